"""The report reads the per-goal scores the scorer logged; it does not re-derive them.

A goal asked to the judges twice tells where each vote belongs: the official per-judge columns
take the first question's votes and the majority runs over all votes, question-major. A scorer
that filed every vote under question 0 would log other per-goal scores, and the report must show
exactly what was logged (before, it re-derived the readings from the order of the answers and
recomputed the scores, so such a scorer went unnoticed by every report test).
"""

from __future__ import annotations

from typing import Any

import pytest
from inspect_ai.model import get_model

from agentsense.analysis.sample_rows import SampleContext, goal_rows
from agentsense.engine.roles import Judge
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.protocol import Protocol
from agentsense.sense.scorers.goal import goal_questions, score_goals

# Judge question 0: both judges say yes; judge question 1: both say no.
VOTES = {0: "Yes.", 1: "No."}


def scene() -> Scenario:
    asked = {
        "self": [{"obj": "Alice", "question": "self?"}],
        "others": [{"obj": "Bob", "question": "other?"}],
        "judge": [{"obj": "judge", "question": "judge 0?"}, {"obj": "judge", "question": "j1?"}],
    }
    return Scenario.model_validate(
        {
            "sample_idx": 7,
            "template_idx": 1,
            "background": "b",
            "description": "d",
            "characters": [
                {
                    "name": "Alice",
                    "profile": "p",
                    "goals": [{"goal": "To a.", "eval_questions": asked}],
                },
                {
                    "name": "Bob",
                    "profile": "p",
                    "goals": [
                        {
                            "goal": "To b.",
                            "eval_questions": {
                                "self": [{"obj": "Bob", "question": "self b?"}],
                                "others": [{"obj": "Alice", "question": "other b?"}],
                                "judge": [{"obj": "judge", "question": "judge b?"}],
                            },
                        }
                    ],
                },
            ],
        }
    )


def logged_metadata(judges: list[Judge]) -> tuple[Scenario, dict[str, Any]]:
    played = scene()
    answers = {
        q: VOTES[q.item] if q.kind == "judge" else "Yes." for q in goal_questions(played, judges)
    }
    _, metadata = score_goals(played, answers, judges, Protocol(mode="official"))
    metadata["judges"] = {judge.key: str(judge.model) for judge in judges}
    return played, metadata


@pytest.fixture
def judges() -> list[Judge]:
    return [Judge(key, get_model("mockllm/model")) for key in ("judge_1", "judge_2")]


def test_report_goal_rows_are_the_logged_per_goal_scores(judges: list[Judge]) -> None:
    played, metadata = logged_metadata(judges)
    context = SampleContext(
        "log", "7", 1, played, {}, metadata, dict.fromkeys(played.names, "m"), {}
    )
    rows = {row["character"]: row for row in goal_rows(context)}
    alice = rows["Alice"]
    # Official: votes question-major [1, 1, 0, 0]; judge columns = the first 2 (question 0);
    # mean 1/2; `statistics.mode` takes the first of a tie: 1.
    assert (alice["self"], alice["other"]) == (1.0, 1.0)
    assert alice["judge_mean"] == pytest.approx(0.5)
    assert alice["judge_majority"] == 1.0
    logged = {row["character"]: row for row in metadata["goal_scores"]}
    for name, row in rows.items():
        for key in ("self", "other", "judge_mean", "judge_majority"):
            assert row[key] == logged[name][key], (name, key)
    assert logged["Alice"]["judge_1"] == logged["Alice"]["judge_2"] == 1.0


def test_goal_rows_skip_goals_the_scorer_did_not_log(judges: list[Judge]) -> None:
    played, metadata = logged_metadata(judges)
    metadata["goal_scores"] = [r for r in metadata["goal_scores"] if r["character"] == "Bob"]
    context = SampleContext(
        "log", "7", 1, played, {}, metadata, dict.fromkeys(played.names, "m"), {}
    )
    assert [row["character"] for row in goal_rows(context)] == ["Bob"]
