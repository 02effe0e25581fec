"""`agentsense/labelling`: label a dataset that lacks the paper's categories.

For each scene, the model bound to the role `labeller` (required; temperature 0) is asked:

- the scenario type, one of the 3 of App. B.2 (`SCENARIO_TYPE_PROMPT`);
- the category of every goal, one of the 8 of App. B.3 (`GOAL_CATEGORY_PROMPT`);
- sender or receiver for every character, with the paper's Prompt 19 (`SENDER_RECEIVER_PROMPT`).

The prompts are in `sense/prompts.py`. The scorer reports agreement with the labels the record
already has (NaN where it has none), so a labeller can be checked on a labelled set first.
`agentsense labels LOG --out labels.json` (`report/labels.py`) exports the labels for
`agentsense report --labels`, and `--dataset-out` writes a labelled copy of the dataset (with
`roles`, usable by `agentsense/pairwise`).
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task

from agentsense.construction import label_agreement
from agentsense.construction.labelling import label_scene
from agentsense.engine.version import versioned
from agentsense.sense.dataset.samples import dataset_path, load_scenarios, scene_dataset
from agentsense.sense.tasks import dataset_name, task_metadata


def labelling(**values: Any) -> Task:
    """Label goal categories, scenario types and sender/receiver roles with a model."""
    dataset = values["dataset"]
    return Task(
        dataset=scene_dataset(load_scenarios(dataset), name=dataset_name(dataset)),
        solver=label_scene(values["max_tokens"]),
        scorer=label_agreement(),
        **versioned(task_metadata(dataset, {}, None, dataset_path(dataset))),
    )
