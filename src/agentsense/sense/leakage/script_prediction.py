"""Script prediction (§4.3, Table 2 "Script Acc."): name a scenario's script from its background.

One sample per scene (the task keeps one scene per template, as the paper): the prompt
(`prompts.SCRIPT_PREDICTION_PROMPT`) with the scene's background as the only user message,
answered by the evaluated model with Inspect's `generate()`; the target is the script's titles
(`titles`). The scorer reads the reply with the answer rule of `script_answers` and keeps the raw
reply, the title it read and the title it matched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import TaskState, generate

from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.version import versioned
from agentsense.sense import script_title
from agentsense.sense.dataset.samples import dataset_path, no_roles, scene_metadata
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.leakage.script_answers import matched_title, named_title
from agentsense.sense.leakage.titles import Titles, demo_titles_path, read_mapping, script_titles
from agentsense.sense.prompts import script_prediction_prompt
from agentsense.sense.protocol import TaskArguments
from agentsense.sense.score_keys import SCRIPT_ACCURACY
from agentsense.sense.tasks import VIEWER, dataset_name, headline, task_metadata, task_scenes

SCRIPT_KEY = SCRIPT_ACCURACY


def script_sample(scene: Scenario, titles: Titles) -> Sample:
    return Sample(
        id=scene.sample_idx,
        input=script_prediction_prompt(scene.background),
        target=list(titles),
        metadata=scene_metadata(scene, no_roles(scene)),
    )


def script_dataset(
    scenes: Sequence[Scenario], truth: Mapping[str, Titles], name: str
) -> MemoryDataset:
    """`truth`: sample id -> titles (`titles.script_titles` refuses scenes without)."""
    return MemoryDataset(
        [script_sample(scene, truth[str(scene.sample_idx)]) for scene in scenes], name=name
    )


# The template mean logs as `script_accuracy_tmean` in a block of its own (a package metric in the
# key's block would print as `agentsense/template_mean`); no PSI: one scene per template.
def title_scorer() -> Scorer:
    """1 when the reply names the scene's script (tolerant of case, articles, punctuation)."""

    async def score(state: TaskState, target: Target) -> Score:
        reply = state.output.completion
        read = named_title(reply)
        matched = matched_title(reply, target.target)
        verdict = "✓" if matched else "✗"
        return Score(
            value={SCRIPT_KEY: 1.0 if matched else 0.0},
            answer=reply,
            explanation=f"read {read!r} {verdict}; the script: {' / '.join(target.target)}",
            metadata={"reply": reply, "read": read, "matched": matched, "titles": target.target},
        )

    return score


# No conversation, no interview, no MCQ: only the data selection and max_tokens apply.
SCRIPT_EXCLUDES = (
    "protocol",
    "seed",
    "max_messages",
    "agent_temperature",
    "judge_temperature",
    "option_mark",
)


def script_prediction(**values: Any) -> Task:
    """Script prediction: the model names the script each scenario's background comes from."""
    arguments = TaskArguments.parse(values, exclude=SCRIPT_EXCLUDES)
    dataset, titles, temperature = values["dataset"], values["titles"], values["temperature"]
    if temperature < 0:
        raise PrerequisiteError(
            f"Invalid AgentSense task argument(s):\n  -T temperature: found {temperature!r}; "
            "expected greater than or equal to 0"
        )
    scenes = task_scenes(arguments, "script_prediction")
    mapping_file = titles or (str(demo_titles_path()) if dataset == "demo" else None)
    mapping = read_mapping(mapping_file) if mapping_file else {}
    truth = script_titles(scenes, mapping, dataset, mapping_file)
    metadata = task_metadata(dataset, arguments.settings.model_dump(), None, dataset_path(dataset))
    return Task(
        dataset=script_dataset(scenes, truth, name=dataset_name(dataset)),
        solver=generate(),
        scorer=script_title(),
        config=GenerateConfig(temperature=temperature, max_tokens=arguments.max_tokens),
        **versioned({**metadata, "titles": mapping_file}),
        viewer=VIEWER,
        headline_metric=headline(SCRIPT_KEY),
    )
