"""Aggregation on hand-computed cases: PSI and template means (docs/protocol.md §5), judge
majority and goal scores (§3.4), and the MCQ gate (§4.4), in official and corrected modes."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable
from fnmatch import fnmatchcase
from typing import Any, cast

import pytest
from inspect_ai.model import get_model
from inspect_ai.scorer import Metric, SampleScore, Score

from agentsense.engine.roles import Judge
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.interview import Question
from agentsense.sense.metrics import (
    GOAL_AND_MCQ_METRICS,
    GOAL_METRICS,
    MCQ_METRICS,
    clustered_uncertainty,
    psi,
    scorer_metrics,
    template_mean,
    template_metrics,
)
from agentsense.sense.protocol import Protocol
from agentsense.sense.scorers.goal import (
    GoalReading,
    combine,
    goal_questions,
    goal_scores,
    majority,
    score_goals,
)
from agentsense.sense.scorers.mcq import mcq_questions, score_mcq

NAN = math.nan


def run(metric: Metric, scores: list[SampleScore]) -> float:
    """Apply a metric to sample scores (`Metric` is a union type that mypy cannot call)."""
    return float(cast(Callable[[list[SampleScore]], Any], metric)(scores))


def sample_score(
    value: float, template: Any, protocol: str = "official", i: int = 0
) -> SampleScore:
    return SampleScore(
        score=Score(value=value, metadata={"protocol": protocol}),
        sample_id=i,
        sample_metadata={"template_id": template},
    )


def scores_of(groups: dict[Any, list[float]], protocol: str = "official") -> list[SampleScore]:
    out: list[SampleScore] = []
    for template, values in groups.items():
        for value in values:
            out.append(sample_score(value, template, protocol, len(out)))
    return out


# Template 1: [1, 0, 1] -> mean 2/3, sample std sqrt(((1/3)^2 + (2/3)^2 + (1/3)^2) / 2) = sqrt(1/3)
# Template 2: [0.5, 0.5] -> mean 1/2, std 0
# Template 3: [0, 1] -> mean 1/2, std sqrt((1/4 + 1/4) / 1) = sqrt(1/2)
THREE = {1: [1.0, 0.0, 1.0], 2: [0.5, 0.5], 3: [0.0, 1.0]}
PSI_THREE = (math.sqrt(1 / 3) + 0.0 + math.sqrt(1 / 2)) / 3
MEAN_THREE = (2 / 3 + 1 / 2 + 1 / 2) / 3  # 5/9, not the scene mean 4/7


def test_psi_and_template_mean_hand_computed() -> None:
    scores = scores_of(THREE)
    assert run(psi("nan"), scores) == pytest.approx(PSI_THREE)
    assert run(psi("skip"), scores) == pytest.approx(PSI_THREE)
    assert run(template_mean(), scores) == pytest.approx(MEAN_THREE)


def test_stderr_is_clustered_by_template() -> None:
    # THREE: n = 7 scenes, mean 4/7. Per-template sums of deviations from 4/7:
    # 2 - 12/7 = 2/7, 1 - 8/7 = -1/7, 1 - 8/7 = -1/7 -> squares sum to 6/49.
    # Clustered SE = sqrt(6/49 * C/(C-1)) / n = sqrt(9/49) / 7 = 3/49, with C = 3 templates.
    [se_metric] = clustered_uncertainty()
    scores = scores_of(THREE)
    assert run(se_metric, scores) == pytest.approx(3 / 49)
    # The naive SE (scenes independent) differs: sd([1,0,1,.5,.5,0,1]) / sqrt(7).
    naive = statistics.stdev([1.0, 0.0, 1.0, 0.5, 0.5, 0.0, 1.0]) / math.sqrt(7)
    assert abs(run(se_metric, scores) - naive) > 0.05


def test_clustered_stderr_needs_the_template_id() -> None:
    [se_metric] = clustered_uncertainty()
    orphan = SampleScore(score=Score(value=1.0), sample_id=1, sample_metadata={})
    with pytest.raises(ValueError, match="template_id"):
        run(se_metric, [orphan, orphan])


def test_psi_uses_the_sample_std() -> None:
    # [0, 1]: ddof=1 gives sqrt(1/2) = 0.7071 (ddof=0 would give 0.5)
    assert run(psi(), scores_of({"t": [0.0, 1.0]})) == pytest.approx(math.sqrt(0.5))
    # [0, 0, 0, 1]: mean 1/4, squares 3 * 1/16 + 9/16 = 12/16, / 3 = 1/4 -> std 1/2
    assert run(psi(), scores_of({"t": [0.0, 0.0, 0.0, 1.0]})) == pytest.approx(0.5)


def test_one_scene_template_official() -> None:
    groups = {**THREE, 4: [0.25]}
    scores = scores_of(groups)
    assert math.isnan(run(psi("nan"), scores))  # official goal PSI: no guard, NaN
    assert run(psi("skip"), scores) == pytest.approx(
        PSI_THREE
    )  # official MCQ PSI: template skipped
    # The template mean still counts the one-scene template: (2/3 + 1/2 + 1/2 + 1/4) / 4 = 23/48
    assert run(template_mean(), scores) == pytest.approx(23 / 48)


def test_one_scene_template_corrected_is_skipped() -> None:
    scores = scores_of({**THREE, 4: [0.25]}, protocol="corrected")
    assert run(psi("nan"), scores) == pytest.approx(PSI_THREE)
    assert run(psi("skip"), scores) == pytest.approx(PSI_THREE)
    assert run(template_mean(), scores) == pytest.approx(23 / 48)


def test_unscored_scenes_are_left_out() -> None:
    # A NaN scene (e.g. no MCQ) is not a value: template 3 keeps [0, 1], template 5 has none.
    groups = {1: [1.0, 0.0, 1.0], 2: [0.5, 0.5], 3: [0.0, NAN, 1.0], 5: [NAN]}
    scores = scores_of(groups)
    assert run(psi("nan"), scores) == pytest.approx(PSI_THREE)
    assert run(template_mean(), scores) == pytest.approx(5 / 9)


def test_templates_are_grouped_by_id() -> None:
    # the same template given as int and str is one template: [1, 0] -> std sqrt(1/2), mean 1/2
    scores = [sample_score(1.0, 8, i=0), sample_score(0.0, "8", i=1)]
    assert run(psi(), scores) == pytest.approx(math.sqrt(0.5))
    assert run(template_mean(), scores) == pytest.approx(0.5)


def test_no_scores() -> None:
    assert math.isnan(run(psi("nan"), []))
    assert math.isnan(run(psi("skip"), []))
    assert math.isnan(run(template_mean(), []))
    only_short = scores_of({1: [1.0], 2: [0.0]})
    assert math.isnan(run(psi("skip"), only_short))
    assert run(template_mean(), only_short) == pytest.approx(0.5)


# ---------------------------------------------------------------------------------------------
# Judge majority and goal scores
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("votes", "official", "expected"),
    [
        ([1, 0, 1], True, 1.0),
        ([0, 0, 1], True, 0.0),
        ([1, 1, 1], True, 1.0),
        ([0, 1, 0], False, 0.0),
        ([1, 1, 0], False, 1.0),
        # two judges: statistics.mode keeps the first vote on a tie; corrected says 0.5
        ([1, 0], True, 1.0),
        ([0, 1], True, 0.0),
        ([1, 0], False, 0.5),
        ([0, 1], False, 0.5),
        # one judge
        ([1], True, 1.0),
        ([0], False, 0.0),
        # four votes, 2-2: first vote in data order wins officially
        ([0, 1, 1, 0], True, 0.0),
        ([1, 0, 0, 1], True, 1.0),
        ([0, 1, 1, 0], False, 0.5),
    ],
)
def test_majority(votes: list[int], official: bool, expected: float) -> None:
    assert majority([float(v) for v in votes], official) == expected


def test_majority_of_no_votes_is_nan() -> None:
    assert math.isnan(majority([], True))
    assert math.isnan(majority([], False))


KEYS3 = ["judge_1", "judge_2", "judge_3"]


def test_goal_scores_three_judges() -> None:
    reading = GoalReading(
        self_=[1], others=[0, 1], judge={0: {"judge_1": 1, "judge_2": 0, "judge_3": 1}}
    )
    expected = {
        "self": 1.0,
        "other": 0.5,
        "judge_1": 1.0,
        "judge_2": 0.0,
        "judge_3": 1.0,
        "judge_mean": 2 / 3,
        "judge_majority": 1.0,
    }
    for official in (True, False):
        assert goal_scores(reading, KEYS3, official) == pytest.approx(expected)


@pytest.mark.parametrize(("first", "second", "official_majority"), [(1, 0, 1.0), (0, 1, 0.0)])
def test_goal_scores_two_judges_tie(first: int, second: int, official_majority: float) -> None:
    reading = GoalReading(self_=[1], others=[1], judge={0: {"judge_1": first, "judge_2": second}})
    official = goal_scores(reading, ["judge_1", "judge_2"], True)
    assert official["judge_mean"] == 0.5
    assert official["judge_majority"] == official_majority
    corrected = goal_scores(reading, ["judge_1", "judge_2"], False)
    assert corrected["judge_mean"] == 0.5
    assert corrected["judge_majority"] == 0.5


def test_corrected_goal_scores_drop_unreadable_votes() -> None:
    reading = GoalReading(
        self_=[None, 1], others=[None, 0], judge={0: {"judge_1": None, "judge_2": 1, "judge_3": 0}}
    )
    scores = goal_scores(reading, KEYS3, False)
    assert scores["self"] == 1.0
    assert scores["other"] == 0.0
    assert math.isnan(scores["judge_1"])
    assert scores["judge_2"] == 1.0
    assert scores["judge_3"] == 0.0
    assert scores["judge_mean"] == 0.5  # over the 2 readable votes
    assert scores["judge_majority"] == 0.5  # 1-1 tie


def test_corrected_goal_scores_all_unreadable() -> None:
    reading = GoalReading(self_=[None], others=[None], judge={0: {"judge_1": None}})
    scores = goal_scores(reading, ["judge_1"], False)
    assert all(math.isnan(value) for value in scores.values())


def test_goal_scores_several_judge_questions() -> None:
    # Questions 1 then 0 inserted out of order; official reads them question-major (0, then 1).
    reading = GoalReading(
        self_=[1],
        others=[1],
        judge={1: {"judge_1": 1, "judge_2": 1}, 0: {"judge_1": 0, "judge_2": 0}},
    )
    official = goal_scores(reading, ["judge_1", "judge_2"], True)
    # flat votes [0, 0, 1, 1]: per-judge columns are the first question's; mode 2-2 -> first (0)
    assert official["judge_1"] == 0.0
    assert official["judge_2"] == 0.0
    assert official["judge_mean"] == 0.5
    assert official["judge_majority"] == 0.0
    corrected = goal_scores(reading, ["judge_1", "judge_2"], False)
    # per judge: mean over its questions
    assert corrected["judge_1"] == 0.5
    assert corrected["judge_2"] == 0.5
    assert corrected["judge_majority"] == 0.5


def test_goal_without_self_questions_is_nan() -> None:
    reading = GoalReading(self_=[], others=[1], judge={0: {"judge_1": 1}})
    for official in (True, False):
        scores = goal_scores(reading, ["judge_1"], official)
        assert math.isnan(scores["self"])
        assert scores["other"] == 1.0


def test_combine_nan_propagates_officially_and_is_skipped_when_corrected() -> None:
    rows = [{"self": 1.0, "other": 0.0}, {"self": NAN, "other": 1.0}, {"self": 0.0, "other": 1.0}]
    official = combine(rows, True)
    assert math.isnan(official["self"])
    assert official["other"] == pytest.approx(2 / 3)
    corrected = combine(rows, False)
    assert corrected["self"] == 0.5
    assert corrected["other"] == pytest.approx(2 / 3)
    assert combine([], True) == {}


def test_combine_is_an_unweighted_mean() -> None:
    # A character with 1 goal weighs as much as one with 3 (scene level = mean over characters).
    alice = combine([{"self": 1.0}, {"self": 1.0}, {"self": 0.0}], True)
    bob = combine([{"self": 0.0}], True)
    assert combine([alice, bob], True)["self"] == pytest.approx((2 / 3 + 0.0) / 2)


# ---------------------------------------------------------------------------------------------
# A whole scene: score_goals and score_mcq
# ---------------------------------------------------------------------------------------------


def goal(name: str, other: str, text: str) -> dict[str, Any]:
    return {
        "goal": text,
        "eval_questions": {
            "self": [{"obj": name, "question": f"self: {text}"}],
            "others": [{"obj": other, "question": f"others: {text}"}],
            "judge": [{"obj": "judge", "question": f"judge: {text}"}],
        },
    }


def goal_scene() -> Scenario:
    return Scenario.model_validate(
        {
            "sample_idx": 1,
            "template_idx": 1,
            "background": "b",
            "description": "d",
            "characters": [
                {
                    "name": "Alice",
                    "profile": "p",
                    "goals": [goal("Alice", "Bob", "To a0."), goal("Alice", "Bob", "To a1.")],
                },
                {"name": "Bob", "profile": "p", "goals": [goal("Bob", "Alice", "To b0.")]},
            ],
        }
    )


# (about, goal text, kind) -> answer; judges in order judge_1, judge_2, judge_3
GOAL_ANSWERS: dict[tuple[str, str, str], list[str]] = {
    ("Alice", "To a0.", "self"): ["Yes."],
    ("Alice", "To a0.", "others"): ["No."],
    ("Alice", "To a0.", "judge"): ["Yes", "Yes", "No"],
    ("Alice", "To a1.", "self"): ["yes"],
    ("Alice", "To a1.", "others"): ["Yesterday"],
    ("Alice", "To a1.", "judge"): ["No", "No", "Yes"],
    ("Bob", "To b0.", "self"): ["Yes"],
    ("Bob", "To b0.", "others"): ["Yes"],
    ("Bob", "To b0.", "judge"): ["No", "Yes", "I cannot say."],
}


def goal_answers(scene: Scenario, judges: list[Judge]) -> dict[Question, str]:
    answers = {}
    for question in goal_questions(scene, judges):
        assert question.goal is not None
        text = scene.character(question.about).goals[question.goal].goal
        replies = GOAL_ANSWERS[(question.about, text, question.kind)]
        index = int(question.interviewee.split("_")[1]) - 1 if question.kind == "judge" else 0
        answers[question] = replies[index]
    return answers


@pytest.fixture
def judges() -> list[Judge]:
    model = get_model("mockllm/model")
    return [Judge(key, model) for key in KEYS3]


def test_score_goals_official(judges: list[Judge]) -> None:
    scene = goal_scene()
    scores, details = score_goals(
        scene, goal_answers(scene, judges), judges, Protocol(mode="official")
    )
    # Alice: a0 self 1 other 0 judges 1,1,0 (mean 2/3, maj 1);
    # a1 self 0 ("yes") other 1 ("Yesterday")
    #        judges 0,0,1 (mean 1/3, maj 0) -> self .5 other .5 j1 .5 j2 .5 j3 .5 mean .5 maj .5
    # Bob:   self 1 other 1 judges 0,1,0 -> j1 0 j2 1 j3 0 mean 1/3 maj 0
    assert scores == pytest.approx(
        {
            "self": 0.75,
            "other": 0.75,
            "judge_1": 0.25,
            "judge_2": 0.75,
            "judge_3": 0.25,
            "judge_mean": (0.5 + 1 / 3) / 2,
            "judge_majority": 0.25,
        }
    )
    assert details["unreadable_goal_answers"] == 0


def test_score_goals_corrected(judges: list[Judge]) -> None:
    scene = goal_scene()
    scores, details = score_goals(
        scene, goal_answers(scene, judges), judges, Protocol(mode="corrected")
    )
    # Alice: a0 self 1 other 0 judges 1,1,0; a1 self 1 ("yes") other unreadable, judges 0,0,1
    #        -> self 1, other 0, j1 .5, j2 .5, j3 .5, mean .5, maj (1 + 0)/2 = .5
    # Bob:   self 1 other 1 judges 0, 1, unreadable -> j1 0 j2 1 j3 NaN mean .5 maj .5
    assert scores == pytest.approx(
        {
            "self": 1.0,
            "other": 0.5,
            "judge_1": 0.25,
            "judge_2": 0.75,
            "judge_3": 0.5,
            "judge_mean": 0.5,
            "judge_majority": 0.5,
        }
    )
    assert details["unreadable_goal_answers"] == 2


def mcq_item(label: int) -> dict[str, Any]:
    return {"question": f"Q{label}?", "options": ["w", "x", "y", "z"], "answer_label": label}


def mcq_scene(alice: list[int], bob: list[int], carol: list[int]) -> Scenario:
    def character(name: str, labels: list[int]) -> dict[str, Any]:
        return {
            "name": name,
            "profile": "p",
            "goals": [
                {
                    "goal": "To g.",
                    "eval_questions": {"self": [{"obj": name, "question": "q"}], "others": []},
                }
            ],
            "info_reason_questions": [mcq_item(label) for label in labels],
        }

    return Scenario.model_validate(
        {
            "sample_idx": 1,
            "template_idx": 1,
            "background": "b",
            "description": "d",
            "characters": [
                character("Alice", alice),
                character("Bob", bob),
                character("Carol", carol),
            ],
        }
    )


def run_mcq(
    scene: Scenario, replies: dict[str, list[str]], mode: str
) -> tuple[float, dict[str, Any]]:
    protocol = Protocol(mode="official" if mode == "official" else "corrected")
    questions = mcq_questions(scene, protocol, random.Random(0))
    answers = {q: replies[q.about][q.item] for q in questions}
    return score_mcq(scene, answers, protocol)


def test_mcq_every_character_has_questions() -> None:
    # Alice: label 0 "(A)" right, label 1 "(A)" wrong -> 1/2; Bob: label 2 "(C)" right -> 1;
    # Carol: label 2, "C" right -> 1. Scene: (1/2 + 1 + 1) / 3 = 5/6
    scene = mcq_scene([0, 1], [2], [2])
    replies = {"Alice": ["(A)", "(A)"], "Bob": ["(C)"], "Carol": ["C"]}
    for mode in ("official", "corrected"):
        accuracy, details = run_mcq(scene, replies, mode)
        assert accuracy == pytest.approx(5 / 6)
        assert details["mcq_per_character"] == pytest.approx(
            {"Alice": 0.5, "Bob": 1.0, "Carol": 1.0}
        )


def test_mcq_first_character_without_questions() -> None:
    scene = mcq_scene([], [2], [0])
    replies = {"Bob": ["(C)"], "Carol": ["(B)"]}
    official, _ = run_mcq(scene, replies, "official")
    assert math.isnan(official)  # the gate looks at the first character only
    corrected, _ = run_mcq(scene, replies, "corrected")
    assert corrected == pytest.approx(0.5)  # (1 + 0) / 2


def test_mcq_later_character_without_questions() -> None:
    scene = mcq_scene([0, 1], [2], [])
    replies = {"Alice": ["(A)", "(B)"], "Bob": ["(D)"]}
    official, details = run_mcq(scene, replies, "official")
    assert math.isnan(official)  # Carol's mean is NaN, and so is the scene's
    assert math.isnan(details["mcq_per_character"]["Carol"])
    corrected, _ = run_mcq(scene, replies, "corrected")
    assert corrected == pytest.approx(0.5)  # (1 + 0) / 2


def test_mcq_scene_without_any_question() -> None:
    scene = mcq_scene([], [], [])
    for mode in ("official", "corrected"):
        accuracy, details = run_mcq(scene, {}, mode)
        assert math.isnan(accuracy)
        assert details["unreadable_mcq_answers"] == 0


def test_mcq_whitespace_is_stripped_only_when_corrected() -> None:
    scene = mcq_scene([1], [1], [1])
    replies = {"Alice": [" B"], "Bob": ["B\n"], "Carol": ["(B)"]}
    official, details = run_mcq(scene, replies, "official")
    assert official == pytest.approx(1 / 3)
    assert details["unreadable_mcq_answers"] == 2
    corrected, details = run_mcq(scene, replies, "corrected")
    assert corrected == 1.0
    assert details["unreadable_mcq_answers"] == 0


# --- template_metrics: the PSI and template mean of every key, logged under its own names ---------


def dict_scores(groups: dict[Any, list[dict[str, float]]], protocol: str) -> list[SampleScore]:
    out: list[SampleScore] = []
    for template, values in groups.items():
        for value in values:
            score = Score(value=cast(Any, value), metadata={"protocol": protocol})
            out.append(
                SampleScore(
                    score=score, sample_id=len(out), sample_metadata={"template_id": template}
                )
            )
    return out


def apply(metric: Metric, scores: list[SampleScore]) -> dict[str, float]:
    return dict(cast(Callable[[list[SampleScore]], Any], metric)(scores))


def test_template_metrics_names_each_key_and_expands_the_judge_glob() -> None:
    # Template 1 has both keys; template 2 one scene (goal PSI NaN officially, MCQ skips it).
    rows = {
        1: [{"judge_1": 1.0, "judge_mean": 1.0, "mcq_accuracy": 1.0}] * 1
        + [{"judge_1": 0.0, "judge_mean": 0.5, "mcq_accuracy": 0.0}],
        2: [{"judge_1": 1.0, "judge_mean": 1.0, "mcq_accuracy": NAN}],
    }
    metric = template_metrics(["judge_*", "mcq_accuracy"], official_nan=["judge_*"])
    official = apply(metric, dict_scores(rows, "official"))
    # The glob takes judge_mean too, as Inspect's metric dicts do; PSI first, then the means.
    assert list(official) == [
        "judge_1_psi",
        "judge_mean_psi",
        "mcq_accuracy_psi",
        "judge_1_tmean",
        "judge_mean_tmean",
        "mcq_accuracy_tmean",
    ]
    assert math.isnan(official["judge_1_psi"]) and math.isnan(official["judge_mean_psi"])
    assert official["mcq_accuracy_psi"] == pytest.approx(math.sqrt(1 / 2))  # template 1 only
    assert official["judge_1_tmean"] == pytest.approx((0.5 + 1.0) / 2)
    assert official["mcq_accuracy_tmean"] == pytest.approx(0.5)  # the NaN scene left out
    corrected = apply(metric, dict_scores(rows, "corrected"))
    assert corrected["judge_1_psi"] == pytest.approx(math.sqrt(1 / 2))
    assert corrected["judge_mean_psi"] == pytest.approx(math.sqrt(1 / 8))


def test_template_metrics_equal_psi_and_template_mean_per_key() -> None:
    """One rule: the block's values are the `psi` and `template_mean` metrics of each key."""
    rng = random.Random(3)
    rows = {t: [{"self": rng.random(), "other": rng.random()} for _ in range(3)] for t in range(4)}
    scores = dict_scores(rows, "official")
    logged = apply(template_metrics(["self", "other"], official_nan=["self"]), scores)
    for key, short in (("self", "nan"), ("other", "skip")):
        alone = scores_of({t: [r[key] for r in v] for t, v in rows.items()})
        assert logged[f"{key}_psi"] == run(psi(cast(Any, short)), alone)
        assert logged[f"{key}_tmean"] == run(template_mean(), alone)


def test_template_metrics_without_psi_or_scores() -> None:
    rows = {1: [{"script_accuracy": 1.0}], 2: [{"script_accuracy": 0.0}]}
    only_means = apply(
        template_metrics(["script_accuracy"], psi=False), dict_scores(rows, "official")
    )
    assert only_means == {"script_accuracy_tmean": 0.5}
    # Before any score (Inspect's first progress update): the plain keys, NaN, names whole.
    empty = apply(template_metrics(["self", "judge_*"]), [])
    assert list(empty) == ["self_psi", "self_tmean"] and all(map(math.isnan, empty.values()))


def test_official_psi_skips_a_one_scene_template_of_a_key_outside_the_nan_rule() -> None:
    # Both keys: THREE plus a one-scene template 4. Officially the goal key's PSI is NaN (the
    # official code has no guard); MCQ accuracy, not in `official_nan`, skips template 4.
    rows = {t: [{"self": v, "mcq_accuracy": v} for v in values] for t, values in THREE.items()}
    rows[4] = [{"self": 0.25, "mcq_accuracy": 0.25}]
    metric = template_metrics(["self", "mcq_accuracy"], official_nan=["self"])
    official = apply(metric, dict_scores(rows, "official"))
    assert math.isnan(official["self_psi"])
    assert official["mcq_accuracy_psi"] == pytest.approx(PSI_THREE)
    corrected = apply(metric, dict_scores(rows, "corrected"))
    assert corrected["self_psi"] == pytest.approx(PSI_THREE)
    assert corrected["mcq_accuracy_psi"] == pytest.approx(PSI_THREE)


# --- the metric lists the scorers log (`scorer_metrics`, `GOAL_METRICS`, `MCQ_METRICS`, ...) ------

# THREE plus a one-scene template 4 ([0.25]); a key's values are shifted by its position (so a
# block read off the wrong key shows), which moves the means but not the spreads.
FOUR = {**THREE, 4: [0.25]}
MEAN_FOUR = 17 / 32  # 4.25 / 8 scenes
# Clustered SE: deviations from 17/32 summed per template are 13/32, -2/32, -2/32, -9/32
# (squares 258/1024); C = 4 templates: sqrt(258/1024 * 4/3) / 8 scenes.
SE_FOUR = math.sqrt(258 / 1024 * 4 / 3) / 8
TMEAN_FOUR = 23 / 48  # (2/3 + 1/2 + 1/2 + 1/4) / 4


def keyed_rows(keys: list[str]) -> dict[Any, list[dict[str, float]]]:
    return {
        t: [{key: v + i / 100 for i, key in enumerate(keys)} for v in values]
        for t, values in FOUR.items()
    }


def one_key(scores: list[SampleScore], key: str) -> list[SampleScore]:
    """The scores as Inspect hands them to a key's metrics in a metric dict: the key's value."""
    picked = []
    for s in scores:
        value = cast(dict[str, float], s.score.value)[key]
        picked.append(s.model_copy(update={"score": s.score.model_copy(update={"value": value})}))
    return picked


def logged_metrics(metrics: list[Any], scores: list[SampleScore]) -> dict[str, float]:
    """What a scorer with these metrics logs: a dict of scene metrics per key (a glob names every
    matching key, as Inspect expands it), each as `<key>/<position>`, then the template block."""
    scene_blocks, template_block = metrics
    keys = list(cast(dict[str, float], scores[0].score.value))
    logged: dict[str, float] = {}
    for pattern, block in scene_blocks.items():
        for key in (k for k in keys if fnmatchcase(k, pattern)):
            for position, scene_metric in enumerate(block):
                logged[f"{key}/{position}"] = run(scene_metric, one_key(scores, key))
    return logged | apply(template_block, scores)


def check_logged(metrics: list[Any], goal_keys: list[str], other_keys: list[str]) -> None:
    """Every key logs its scene mean and clustered SE, its PSI and its template mean; officially
    the goal keys' PSI is NaN (template 4 has one scene) and the others skip template 4."""
    keys = [*goal_keys, *other_keys]
    for mode in ("official", "corrected"):
        logged = logged_metrics(metrics, dict_scores(keyed_rows(keys), mode))
        expected_names = {f"{key}/{position}" for key in keys for position in (0, 1)}
        expected_names |= {f"{key}{suffix}" for key in keys for suffix in ("_psi", "_tmean")}
        assert set(logged) == expected_names
        for i, key in enumerate(keys):
            assert logged[f"{key}/0"] == pytest.approx(MEAN_FOUR + i / 100), key
            assert logged[f"{key}/1"] == pytest.approx(SE_FOUR), key
            assert logged[f"{key}_tmean"] == pytest.approx(TMEAN_FOUR + i / 100), key
            if mode == "official" and key in goal_keys:
                assert math.isnan(logged[f"{key}_psi"]), key
            else:
                assert logged[f"{key}_psi"] == pytest.approx(PSI_THREE), key


def test_scorer_metrics_log_each_key_and_the_official_nan_psi_of_goal_keys_only() -> None:
    check_logged(scorer_metrics(("self", "mcq_accuracy"), ("self",)), ["self"], ["mcq_accuracy"])
    check_logged(scorer_metrics(("mcq_accuracy",)), [], ["mcq_accuracy"])


GOAL_SCORE_KEYS = ["self", "other", "judge_1", "judge_2", "judge_mean", "judge_majority"]


@pytest.mark.parametrize(
    ("metrics", "goal_keys", "other_keys"),
    [
        (GOAL_METRICS, GOAL_SCORE_KEYS, []),
        (MCQ_METRICS, [], ["mcq_accuracy"]),
        (GOAL_AND_MCQ_METRICS, GOAL_SCORE_KEYS, ["mcq_accuracy"]),
    ],
    ids=["goal", "mcq", "goal_and_mcq"],
)
def test_the_scorers_metric_lists(
    metrics: list[Any], goal_keys: list[str], other_keys: list[str]
) -> None:
    """The lists `goal_completion`, `mcq_accuracy` and `goal_and_mcq` log (two judges bound)."""
    check_logged(metrics, goal_keys, other_keys)
