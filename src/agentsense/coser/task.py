"""`agentsense/gca`: CoSER's Given-Circumstance Acting (Wang et al., 2025) on this project's engine.

The evaluated model plays every character of a scene from a book; the roles `environment`,
`next_speaker` and `critic` play the Environment, the next-speaker predictor and the four
critics (each falls back to the evaluated model when unbound). docs/gca.md has the protocol and
every decision taken where CoSER's code and paper differ.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task

from agentsense.coser import gca_critics
from agentsense.coser.dataset import dataset_path, gca_dataset, load_circumstances
from agentsense.coser.simulation import GCASettings, gca_simulation
from agentsense.engine.data_file import DATA_FILE, recorded_file
from agentsense.engine.strict import task_settings
from agentsense.engine.version import versioned


def gca(**values: Any) -> Task:
    """Given-Circumstance Acting: simulate each scene, then CoSER's four penalty-based critics."""
    settings = task_settings(GCASettings, values)
    dataset, seed = values["dataset"], values["seed"]
    records = load_circumstances(dataset)
    return Task(
        dataset=gca_dataset(records, name=f"coser-{dataset}" if "/" not in dataset else dataset),
        solver=gca_simulation(settings=settings, seed=seed),
        scorer=gca_critics(),
        **versioned(
            {
                "gca": settings.model_dump(),
                "dataset": dataset,
                "seed": seed,
                DATA_FILE: recorded_file(dataset_path(dataset)).model_dump(),
            }
        ),
    )
