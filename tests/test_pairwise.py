"""`agentsense/pairwise`: senders and receivers bound to their own model roles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval, eval_set
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog

from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.samples import demo_path
from agentsense.sense.persona import has_both_roles, role_binding
from agentsense.tasks import pairwise

JUDGES = ["standin/persona/judge-a", "standin/persona/judge-b"]
SENDER = "standin/persona/s1"
RECEIVER = "standin/persona/r1"


def demo_records() -> list[dict[str, object]]:
    return [
        json.loads(line) for line in demo_path().read_text(encoding="utf-8").splitlines() if line
    ]


def test_scenes_without_both_labels_are_left_out() -> None:
    task = pairwise(dataset="demo")
    ids = {sample.id for sample in task.dataset}
    assert len(ids) == 22
    assert 203 not in ids and 403 not in ids  # senders only / receivers only


def test_characters_bind_to_their_label() -> None:
    for sample in pairwise(dataset="demo").dataset:
        assert sample.metadata is not None
        record = sample.metadata["scenario"]
        assert sample.metadata["model_roles"] == record["roles"]
        assert set(record["roles"].values()) == {"sender", "receiver"}


def test_label_rules_follow_the_official_code() -> None:
    from agentsense.sense.dataset.schema import Scenario

    record = demo_records()[0]
    scene = Scenario.model_validate(record)
    assert has_both_roles(scene)
    assert not has_both_roles(scene.model_copy(update={"roles": None}))
    only_senders = scene.model_copy(update={"roles": dict.fromkeys(scene.names, "sender")})
    assert not has_both_roles(only_senders)
    # A character without a label plays a receiver, as in label_role.py.
    partial = scene.model_copy(update={"roles": {scene.names[0]: "sender"}})
    assert role_binding(partial) == {scene.names[0]: "sender", scene.names[1]: "receiver"}


def test_dataset_without_roles_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "no_roles.jsonl"
    records = [{k: v for k, v in r.items() if k != "roles"} for r in demo_records()[:3]]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    with pytest.raises(PrerequisiteError, match="No scene"):
        pairwise(dataset=str(path))


@pytest.fixture(scope="module")
def pair_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    (log,) = eval(
        pairwise(dataset="demo", max_messages=5),
        model="standin/persona/agent",
        model_roles={"sender": SENDER, "receiver": RECEIVER, "judge": JUDGES},
        sample_id=[101, 301],
        log_dir=str(tmp_path_factory.mktemp("pair")),
        display="none",
    )
    assert log.status == "success"
    return log


def test_every_character_is_played_by_its_role_model(pair_log: EvalLog) -> None:
    assert pair_log.samples
    expected = {"sender": SENDER, "receiver": RECEIVER}
    for sample in pair_log.samples:
        roles = sample.metadata["model_roles"]
        spoken = [m for m in sample.messages if m.role == "assistant"]
        stored = sample.store["Conversation:turns"]
        turns = [(m, t) for m, t in zip(spoken, stored, strict=True) if not t["scripted"]]
        assert turns
        for message, turn in turns:
            speaker = turn["speaker"]
            assert message.metadata == {"model_role": roles[speaker]}
            assert message.model == expected[roles[speaker]]  # type: ignore[union-attr]
        models = {event.model for event in sample.events if isinstance(event, ModelEvent)}
        assert models == {SENDER, RECEIVER, *JUDGES}  # the evaluated model plays nobody


def test_pairwise_scores_goals_and_mcqs(pair_log: EvalLog) -> None:
    for sample in pair_log.samples or []:
        score = sample.scores["goal_and_mcq"]  # type: ignore[index]
        assert {"self", "other", "judge_1", "judge_2", "judge_majority", "mcq_accuracy"} <= set(
            score.value
        )  # type: ignore[arg-type]
        assert score.metadata is not None
        roles = sample.metadata["model_roles"]
        answered = {row["character"] for row in score.metadata["goal_answers"]}
        assert answered == set(roles)
        # The cast names the model that played each character.
        expected = {"sender": SENDER, "receiver": RECEIVER}
        assert score.metadata["cast"] == {name: expected[role] for name, role in roles.items()}
        assert score.metadata["judges"] == {"judge_1": JUDGES[0], "judge_2": JUDGES[1]}


def test_task_arguments_bind_roles_and_eval_roles_override(tmp_path: Path) -> None:
    task = pairwise(dataset="demo", max_messages=3, sender=SENDER, receiver=RECEIVER)
    (log,) = eval(
        task,
        model="standin/persona/agent",
        model_roles={"receiver": "standin/persona/r2"},
        sample_id=[101],
        log_dir=str(tmp_path),
        display="none",
    )
    roles = log.eval.model_roles or {}
    assert roles["sender"].model == SENDER  # type: ignore[union-attr]
    assert roles["receiver"].model == "standin/persona/r2"  # type: ignore[union-attr]


def test_eval_set_runs_a_grid_of_pairs(tmp_path: Path) -> None:
    models = ["standin/persona/m1", "standin/persona/m2"]
    tasks = [
        pairwise(dataset="demo", max_messages=3, sender=s, receiver=r)
        for s in models
        for r in models
    ]
    done, logs = eval_set(
        tasks,
        log_dir=str(tmp_path),
        model="standin/persona/agent",
        model_roles={"judge": JUDGES[0]},
        sample_id=[101],
        display="none",
    )
    assert done
    pairs = {
        (log.eval.model_roles["sender"].model, log.eval.model_roles["receiver"].model)  # type: ignore[index, union-attr]
        for log in logs
    }
    assert pairs == {(s, r) for s in models for r in models}
