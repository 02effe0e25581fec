"""The task suite as a package: exports, the version from eval.yaml, the task-level solvers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai import Task, eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

import agentsense
from agentsense.dataset.samples import load_scenarios, scene_dataset
from agentsense.tasks.blind import BlindAnswers, blind_interview
from agentsense.tasks.labelling import SceneLabels, label_agreement, label_scene
from agentsense.version import EvalVersion, eval_version

EVAL_YAML = Path(agentsense.__file__).parent / "eval.yaml"


def built_tasks() -> dict[str, Task]:
    return {name: getattr(agentsense, name)(dataset="demo") for name in agentsense.__all__}


def test_the_package_exports_every_task_in_eval_yaml() -> None:
    listed = [entry["name"] for entry in yaml.safe_load(EVAL_YAML.read_text())["tasks"]]
    assert sorted(listed) == sorted(agentsense.__all__)


def test_every_task_carries_the_eval_yaml_version() -> None:
    declared = yaml.safe_load(EVAL_YAML.read_text())["version"]
    version = EvalVersion.parse(declared)
    assert eval_version() == version
    for name, task in built_tasks().items():
        assert task.version == version.comparability_version, name
        assert task.metadata and task.metadata["eval_version"] == declared, name


@pytest.mark.parametrize("text", ["1", "A-1", "1-a", "1.0-A", ""])
def test_a_malformed_version_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"eval\.yaml"):
        EvalVersion.parse(text)


def usage(output: ModelOutput) -> ModelOutput:
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def test_blind_interview_stores_one_answer_per_mcq(log_dir: Path) -> None:
    scene = next(s for s in load_scenarios("demo") if s.sample_idx == 501)
    task = Task(dataset=scene_dataset([scene], name="one"), solver=blind_interview(seed=4))
    (log,) = eval(task, model="standin/persona/agent", log_dir=str(log_dir), display="none")
    assert log.status == "success" and log.samples
    answers = log.samples[0].store[f"{BlindAnswers.__name__}:answers"]
    expected = [(c.name, i) for c in scene.characters for i in range(len(c.info_reason_questions))]
    assert [(a["about"], a["item"]) for a in answers] == expected
    assert all(a["answer"] for a in answers)


def scripted_labeller(replies: list[str]) -> Any:
    outputs = [usage(ModelOutput.from_content(model="labeller", content=r)) for r in replies]
    return get_model("mockllm/model", custom_outputs=outputs)


def test_label_scene_asks_three_questions_and_reads_the_replies(log_dir: Path) -> None:
    scene = next(s for s in load_scenarios("demo") if s.sample_idx == 101)
    first, second = scene.names
    n_goals = sum(len(c.goals) for c in scene.characters)
    replies = [
        'It is {"type": "personal domain"}.',
        json.dumps({str(i): "Cooperation" for i in range(1, n_goals + 1)}),
        json.dumps({first: "sender", second: "Receiver"}),
    ]
    task = Task(
        dataset=scene_dataset([scene], name="one"), solver=label_scene(), scorer=label_agreement()
    )
    (log,) = eval(
        task,
        model="none",
        model_roles={"labeller": scripted_labeller(replies)},
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success" and log.samples
    store = log.samples[0].store
    assert store[f"{SceneLabels.__name__}:scenario_type"] == "personal domain"
    assert store[f"{SceneLabels.__name__}:roles"] == {first: "sender", second: "receiver"}
    categories = store[f"{SceneLabels.__name__}:categories"]
    assert {c for goals in categories.values() for c in goals.values()} == {"Cooperation"}


def test_label_scene_refuses_to_label_with_the_evaluated_model(log_dir: Path) -> None:
    scene = load_scenarios("demo")[0]
    task = Task(dataset=scene_dataset([scene], name="one"), solver=label_scene())
    (log,) = eval(task, model="standin/persona/agent", log_dir=str(log_dir), display="none")
    assert log.status == "error" and log.error is not None
    assert "labeller" in log.error.message
    assert not log.stats.model_usage  # no model call was made
