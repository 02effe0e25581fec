"""`agentsense/sotopia`: Sotopia's episodes (sotopia 0.1.5's protocol) and SOTOPIA-EVAL.

Both agents are played on the role `character` (the evaluated model when unbound); the judges
on the role `judge`. docs/sotopia.md has the protocol and docs/deviations.md §5 what differs.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task

from agentsense.engine.data_file import DATA_FILE, recorded_file
from agentsense.engine.strict import task_settings
from agentsense.engine.version import versioned
from agentsense.sotopia import sotopia_eval
from agentsense.sotopia.dataset import sotopia_dataset
from agentsense.sotopia.episode import SotopiaSettings, sotopia_episode
from agentsense.sotopia.prompts import SOTOPIA_VERSION
from agentsense.sotopia.published import data_path, load_episodes


def sotopia(**values: Any) -> Task:
    """Sotopia episodes between two agents, scored by SOTOPIA-EVAL's seven dimensions."""
    settings = task_settings(SotopiaSettings, values)
    dataset = values["dataset"]
    records = load_episodes(dataset)
    path = data_path(dataset)  # the file read, for the log (None: a folder of three files)
    return Task(
        dataset=sotopia_dataset(
            records, name=f"sotopia-{dataset}" if "/" not in dataset else dataset
        ),
        solver=sotopia_episode(settings=settings),
        scorer=sotopia_eval(),
        **versioned(
            {
                "sotopia": settings.model_dump(),
                "sotopia_version": SOTOPIA_VERSION,
                "dataset": dataset,
                DATA_FILE: None if path is None else recorded_file(path).model_dump(),
            }
        ),
    )
