"""`agentsense/script_prediction`: the paper's script prediction (§4.3, Table 2 "Script Acc.").

Can a model name the original script of a scenario from its background alone? The check that
leakage mitigation worked (the paper: 0.03-0.07 for every model), the other half of Table 2 next
to `agentsense/blind`. One scene per template by default (`per_template=1`, the paper's 245
samples); the truth is each record's `source` or `-T titles=FILE` (`leakage.titles`), and a
dataset with scenes lacking both is refused before any model call. The prompt, the answer rule
and the other decisions the paper leaves open: docs/leakage.md.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.strict import strict_arguments
from agentsense.engine.version import eval_version
from agentsense.sense.leakage.script_prediction import SCRIPT_KEY, script_dataset, script_title
from agentsense.sense.leakage.titles import demo_titles_path, read_mapping, script_titles
from agentsense.sense.tasks.common import (
    VIEWER,
    TaskArguments,
    dataset_name,
    headline,
    task_metadata,
    task_scenes,
)

# No conversation, no interview, no MCQ: only the data selection and max_tokens apply.
SCRIPT_EXCLUDES = (
    "protocol",
    "seed",
    "max_messages",
    "agent_temperature",
    "judge_temperature",
    "option_mark",
)


@task
@strict_arguments
def script_prediction(
    dataset: str = "official",
    titles: str | None = None,
    shard: str | None = None,
    per_template: int | None = 1,
    temperature: float = 0.0,
    max_tokens: int = 128,
) -> Task:
    """Script prediction: the model names the script each scenario's background comes from.

    Args:
        dataset: `official`, `official_roles`, `demo` (its invented titles are bundled), or the
            path of a JSONL file (e.g. `agentsense scenarios` output, whose records carry `source`).
        titles: a JSON file `{"<template_idx>": "<title>" or [titles]}`; overrides the records'
            `source` for the templates it names.
        per_template: scenes asked per template (the paper: 1); `None` asks every scene.
        temperature: the answering model's temperature (greedy by default).
    """
    arguments = TaskArguments.parse(locals(), exclude=SCRIPT_EXCLUDES)
    if temperature < 0:
        raise PrerequisiteError(
            f"Invalid AgentSense task argument(s):\n  -T temperature: found {temperature!r}; "
            "expected greater than or equal to 0"
        )
    scenes = task_scenes(arguments, "script_prediction")
    mapping_file = titles or (str(demo_titles_path()) if dataset == "demo" else None)
    mapping = read_mapping(mapping_file) if mapping_file else {}
    truth = script_titles(scenes, mapping, dataset, mapping_file)
    metadata = task_metadata(dataset, arguments.settings.model_dump(), seed=None)
    return Task(
        dataset=script_dataset(scenes, truth, name=dataset_name(dataset)),
        solver=generate(),
        scorer=script_title(),
        config=GenerateConfig(temperature=temperature, max_tokens=max_tokens),
        version=eval_version().comparability_version,
        metadata={**metadata, "titles": mapping_file},
        viewer=VIEWER,
        headline_metric=headline(SCRIPT_KEY),
    )
