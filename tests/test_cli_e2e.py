"""End to end on the demo set with the stand-in model, through `inspect_ai.eval` in-process (what
`inspect eval` calls; the tests check the logs agentsense writes, not Inspect's CLI)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.samples import demo_path

JUDGES = "standin/persona/judge-a,standin/persona/judge-b,standin/persona/judge-c"
GOAL_KEYS = ["self", "other", "judge_1", "judge_2", "judge_3", "judge_mean", "judge_majority"]


def run_in_process(task: str, log_dir: Path, **options: object) -> EvalLog:
    """`inspect eval TASK -T dataset=demo --model standin/persona/agent ...`, in-process."""
    (log,) = inspect_eval(
        task,
        task_args={"dataset": "demo"},
        model="standin/persona/agent",
        log_dir=str(log_dir),
        display="none",
        **options,  # type: ignore[arg-type]
    )
    assert log.status == "success", log.error
    return only_log(log_dir)


def only_log(log_dir: Path) -> EvalLog:
    logs = list_eval_logs(str(log_dir))
    assert len(logs) == 1, [log.name for log in logs]
    return read_eval_log(logs[0], resolve_attachments=True)


def demo_records() -> list[dict[str, object]]:
    return [json.loads(line) for line in demo_path().read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def full_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    log_dir = tmp_path_factory.mktemp("full")
    return run_in_process("agentsense/full", log_dir, model_roles={"judge": JUDGES.split(",")})


@pytest.mark.slow
def test_full_run_succeeds_on_every_demo_scene(full_log: EvalLog) -> None:
    assert full_log.status == "success"
    assert full_log.eval.task == "agentsense/full"
    assert full_log.samples is not None
    assert sorted(s.id for s in full_log.samples) == sorted(r["sample_idx"] for r in demo_records())
    assert all(sample.error is None for sample in full_log.samples)


@pytest.mark.slow
def test_log_records_roles_and_every_protocol_argument(full_log: EvalLog) -> None:
    judges = full_log.eval.model_roles["judge"]  # type: ignore[index]
    assert isinstance(judges, list)
    assert [j.model for j in judges] == JUDGES.split(",")
    args = full_log.eval.task_args
    for name in (
        "dataset",
        "protocol",
        "seed",
        "max_messages",
        "agent_temperature",
        "judge_temperature",
        "max_tokens",
        "option_mark",
    ):
        assert name in args
    assert args["protocol"] == "official"
    assert (
        full_log.eval.metadata is not None
        and full_log.eval.metadata["protocol"]["max_tokens"] == 128
    )


@pytest.mark.slow
def test_every_score_has_its_mean_and_clustered_interval_in_the_results(full_log: EvalLog) -> None:
    assert full_log.results is not None
    scores = {score.name: score for score in full_log.results.scores}
    for key in [*GOAL_KEYS, "mcq_accuracy"]:
        metrics = scores[key].metrics
        # No interval: Inspect's t interval can leave [0, 1] (metrics.clustered_uncertainty).
        assert set(metrics) == {"mean", "stderr"}, key
        # Uncertainty is clustered by template.
        assert metrics["stderr"].params.get("cluster") == "template_id", key
        assert metrics["stderr"].value >= 0.0
        assert 0.0 <= metrics["mean"].value <= 1.0
    # Only scenes with MCQs count towards MCQ accuracy.
    with_mcq = sum(
        1 for r in demo_records() if any(c["info_reason_questions"] for c in r["characters"])
    )  # type: ignore[index, union-attr]
    assert scores["mcq_accuracy"].scored_samples == with_mcq
    assert scores["self"].scored_samples == len(demo_records())


@pytest.mark.slow
def test_conversation_is_in_store_and_messages(full_log: EvalLog) -> None:
    assert full_log.samples is not None
    for sample in full_log.samples:
        turns = sample.store["Conversation:turns"]
        assert len(turns) == 15
        assert turns[0]["text"] == "Hi, there!" and turns[0]["scripted"]
        assert sample.store["Conversation:start_speaker"] == turns[0]["speaker"]
        spoken = [m for m in sample.messages if m.role == "assistant"]
        assert len(spoken) == 15
        for message, turn in zip(spoken, turns, strict=True):
            assert message.text == f"{turn['speaker']}: {turn['text']}"
            # Metadata only where it adds to the text: the greeting's mark (no role is bound).
            assert message.metadata == ({"scripted": True} if turn["scripted"] else None)
        speakers = [t["speaker"] for t in turns]
        assert all(a != b for a, b in itertools.pairwise(speakers))
        score = sample.scores["goal_and_mcq"]  # type: ignore[index]
        assert score.metadata is not None and score.metadata["judge_role_bound"] is True
        assert set(score.metadata["judges"].values()) == set(JUDGES.split(","))


@pytest.mark.slow
def test_goal_task_without_judges_says_the_evaluated_model_judged(tmp_path: Path) -> None:
    log = run_in_process("agentsense/goal", tmp_path, limit=2)
    assert log.samples is not None
    for sample in log.samples:
        score = sample.scores["goal_completion"]  # type: ignore[index]
        assert set(score.value) == set(GOAL_KEYS) - {"judge_2", "judge_3"}  # type: ignore[arg-type]
        assert score.metadata is not None and score.metadata["judge_role_bound"] is False
        assert score.metadata["judges"] == {"judge_1": "standin/persona/agent"}
        infos = [e for e in sample.events if e.event == "info"]
        assert any("judges the goals" in str(e.data) for e in infos)


@pytest.mark.slow
def test_info_task_keeps_only_scenes_with_mcqs(tmp_path: Path) -> None:
    log = run_in_process("agentsense/info", tmp_path)
    assert log.samples is not None
    with_mcq = {
        r["sample_idx"]
        for r in demo_records()
        if any(c["info_reason_questions"] for c in r["characters"])
    }  # type: ignore[index, union-attr]
    assert {s.id for s in log.samples} == with_mcq
    assert {s.name for s in log.results.scores} == {"mcq_accuracy"}  # type: ignore[union-attr]


def test_bad_dataset_fails_fast_with_a_clear_message(tmp_path: Path) -> None:
    """Refused before anything runs (test_bad_data shows how the real CLI prints the refusal:
    exit status 1, no traceback)."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"sample_idx": 1}\nnot json\n')
    with pytest.raises(PrerequisiteError) as raised:
        inspect_eval(
            "agentsense/goal",
            task_args={"dataset": str(bad)},
            model="standin/persona/agent",
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
    output = str(raised.value.message)
    assert f"{bad}:1 (sample_idx=1): field `template_idx`" in output
    assert f"{bad}:2:" in output and "invalid JSON" in output
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").iterdir())
