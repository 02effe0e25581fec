"""`agentsense/blind`: MCQs answered from the scenario alone, before any talk (paper §4.3)."""

from __future__ import annotations

import math
import statistics

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, resolve_sample_attachments

from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.leakage.blind_test import BLIND_KEY
from agentsense.sense.prompts import character_system_prompt
from agentsense.sense.scorers.answer_reading import official_choice
from agentsense.tasks import blind

MODEL = "standin/persona/agent"


def test_blind_covers_the_scenes_with_mcqs_three_times() -> None:
    task = blind(dataset="demo")
    assert len(task.dataset) == 12
    assert all(sample.metadata and sample.metadata["has_mcq"] for sample in task.dataset)
    assert task.epochs == 3


@pytest.fixture(scope="module")
def blind_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    (log,) = eval(
        blind(dataset="demo", epochs=2, agent_temperature=0.7),
        model=MODEL,
        sample_id=[101, 501],
        log_dir=str(tmp_path_factory.mktemp("blind")),
        display="none",
    )
    assert log.status == "success"
    return log


def test_each_question_is_asked_without_conversation(blind_log: EvalLog) -> None:
    for logged in blind_log.samples or []:
        sample = resolve_sample_attachments(logged)
        scene = scenario_of(sample.metadata)
        events = [event for event in sample.events if isinstance(event, ModelEvent)]
        assert len(events) == sum(len(c.info_reason_questions) for c in scene.characters)
        prompts = {
            character_system_prompt(
                name=c.name,
                profile=c.profile,
                background=scene.background,
                description=scene.description,
                goals=[g.goal for g in c.goals],
                secret=c.secret,
            )
            for c in scene.characters
        }
        for event in events:
            assert [message.role for message in event.input] == ["system", "user"]
            assert event.input[0].text in prompts
            assert event.input[1].text.startswith(
                "Please answer the question and only output your choice."
            )
            assert event.config.temperature == 0.7  # official: the agents' temperature
            assert event.model == MODEL


def test_blind_accuracy_uses_the_official_parser_and_aggregation(blind_log: EvalLog) -> None:
    assert blind_log.samples
    assert {sample.epoch for sample in blind_log.samples} == {1, 2}
    for sample in blind_log.samples:
        scene = scenario_of(sample.metadata)
        score = sample.scores["blind_mcq"]  # type: ignore[index]
        assert score.metadata is not None
        per_character = []
        for character in scene.characters:
            records = [r for r in score.metadata["mcq_answers"] if r["character"] == character.name]
            hits = []
            for record, item in zip(records, character.info_reason_questions, strict=True):
                chosen = official_choice(record["answer"], item.options, "upper")
                assert record["reading"] == (None if chosen is None else "ABCDEFGH"[chosen])
                assert record["correct"] == "ABCDEFGH"[item.answer_label]
                assert record["right"] == (chosen == item.answer_label)
                hits.append(float(chosen == item.answer_label))
            per_character.append(statistics.fmean(hits))
        assert math.isclose(score.value[BLIND_KEY], statistics.fmean(per_character))  # type: ignore[index]


def test_blind_metrics_are_logged(blind_log: EvalLog) -> None:
    assert blind_log.results is not None
    (result,) = [s for s in blind_log.results.scores if s.name == BLIND_KEY]
    assert {"mean", "stderr"} <= set(result.metrics)


def test_corrected_mode_answers_at_the_judge_temperature(tmp_path: object) -> None:
    (log,) = eval(
        blind(
            dataset="demo",
            epochs=1,
            protocol="corrected",
            agent_temperature=1.0,
            judge_temperature=0.0,
        ),
        model=MODEL,
        sample_id=[101],
        log_dir=str(tmp_path),
        display="none",
    )
    events = [e for s in log.samples or [] for e in s.events if isinstance(e, ModelEvent)]
    assert events and all(event.config.temperature == 0.0 for event in events)
