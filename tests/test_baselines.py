"""Trivial baselines (analysis.baselines) on hand-computed cases."""

from __future__ import annotations

import math

from agentsense.analysis.baselines import mcq_chance, trivial_goal_scores
from agentsense.sense.dataset.samples import load_scenarios
from agentsense.sense.dataset.schema import MCQ, Scenario
from agentsense.sense.protocol import Protocol

OFFICIAL, CORRECTED = Protocol(mode="official"), Protocol(mode="corrected")


def scene(sample_idx: int) -> Scenario:
    return next(s for s in load_scenarios("demo") if s.sample_idx == sample_idx)


def test_always_yes_and_always_no_readings() -> None:
    for protocol in (OFFICIAL, CORRECTED):
        yes = trivial_goal_scores(scene(301), ["judge_1", "judge_2", "judge_3"], protocol, "Yes")
        no = trivial_goal_scores(scene(301), ["judge_1", "judge_2", "judge_3"], protocol, "No")
        for key in ("self", "other", "judge_1", "judge_mean", "judge_majority"):
            assert yes[key] == 1.0 and no[key] == 0.0, (protocol.mode, key)


def test_mcq_chance_is_averaged_as_the_accuracy() -> None:
    base = scene(101)  # two characters, one 4-option MCQ each
    assert mcq_chance(base, OFFICIAL) == 0.25
    first, second = base.characters
    two = MCQ(question="Which?", options=["a", "b"], answer_label=0)
    three = MCQ(question="Which?", options=["a", "b", "c"], answer_label=0)
    varied = base.model_copy(
        update={
            "characters": [
                first.model_copy(
                    update={"info_reason_questions": [*first.info_reason_questions, two]}
                ),
                second.model_copy(update={"info_reason_questions": [three]}),
            ]
        }
    )
    # First: (1/4 + 1/2) / 2 = 3/8; second: 1/3; mean over characters = 17/48.
    assert math.isclose(mcq_chance(varied, OFFICIAL), 17 / 48)
    # The official gate: no MCQ for the first character -> the scene is not scored.
    gated = base.model_copy(
        update={"characters": [first.model_copy(update={"info_reason_questions": []}), second]}
    )
    assert math.isnan(mcq_chance(gated, OFFICIAL))
    assert mcq_chance(gated, CORRECTED) == 0.25
