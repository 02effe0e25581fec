"""The scoring core's rules where the other unit tests leave a wrong rule unnoticed (found by
mutation testing, docs/testing.md): the metrics' defaults, goal and MCQ rows, the MCQ gate, the
judge panel's order, speaker replay and the who-sees-what cache of `SeatViews`."""

from __future__ import annotations

import asyncio
import contextvars
import math
import random
from typing import Any

import pytest
from inspect_ai.event import InfoEvent
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, get_model
from inspect_ai.model._model import init_model_roles
from inspect_ai.scorer import SampleScore, Score

from agentsense.engine.conversation import SeatViews, Turn
from agentsense.engine.roles import SELF_JUDGING, Judge, judge_panel
from agentsense.engine.scene_loop import FixedOrder
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.interview import Interviewer
from agentsense.sense.metrics import expand_keys, key_scores, psi_of, score_values, template_mean_of
from agentsense.sense.protocol import Protocol
from agentsense.sense.score_keys import judge_key
from agentsense.sense.scorers.answer_reading import official_choice
from agentsense.sense.scorers.goal import GoalReading, goal_questions, goal_scores, score_goals
from agentsense.sense.scorers.mcq import (
    mcq_questions,
    option_label,
    read_mcq,
    scene_accuracy,
    score_mcq,
)

# --- metrics --------------------------------------------------------------------------------------


def unmarked(value: float, template: str) -> SampleScore:
    """A score whose metadata does not say the mode (a score from before modes were logged)."""
    return SampleScore(
        score=Score(value=value), sample_id=template, sample_metadata={"template_id": template}
    )


def test_scores_without_a_mode_are_read_as_official() -> None:
    scores = [unmarked(1.0, "t1"), unmarked(0.0, "t1"), unmarked(1.0, "t2")]
    assert math.isnan(psi_of(scores, "nan"))  # official: the 1-scene template makes PSI NaN
    assert psi_of(scores, "skip") == pytest.approx(math.sqrt(0.5))
    assert template_mean_of(scores) == pytest.approx((0.5 + 1.0) / 2)
    assert math.isnan(psi_of([], "skip")) and math.isnan(template_mean_of([]))


def test_score_values_are_floats_and_none_is_nan() -> None:
    score = SampleScore(score=Score(value={"self": 1, "other": None}), sample_id="s1")
    values = score_values(score)
    assert values["self"] == 1.0 and isinstance(values["self"], float)
    assert math.isnan(values["other"]) and list(values) == ["self", "other"]
    with pytest.raises(TypeError, match=r"sample s2: expected a dict score, got 0\.5"):
        score_values(SampleScore(score=Score(value=0.5), sample_id="s2"))


def keyed(*values: Any) -> list[SampleScore]:
    return [SampleScore(score=Score(value=v), sample_id=i) for i, v in enumerate(values)]


def test_one_key_of_dict_scores_leaves_out_missing_and_nan_values() -> None:
    scores = keyed(
        {"self": 1.0}, {"self": math.nan}, 0.5, {"other": 1.0}, {"self": None}, {"self": 0}
    )
    picked = key_scores(scores, "self")
    assert [(s.sample_id, s.score.value) for s in picked] == [(0, 1.0), (5, 0)]


def test_key_globs_expand_in_the_scores_key_order_once_each() -> None:
    scores = keyed(0.5, {"self": 1, "judge_1": 1, "judge_2": 0, "judge_mean": 0.5})
    assert expand_keys(["self"], scores) == ["self"]
    assert expand_keys(["judge_*", "judge_1", "self"], scores) == [
        "judge_1", "judge_2", "judge_mean", "self",
    ]  # fmt: skip
    assert expand_keys(["self", "judge_*"], keyed(0.5)) == ["self"]


# --- goals: rows, judge questions, goals nobody answered ------------------------------------------


def judge_model() -> Any:
    return get_model("mockllm/model")


def two_goal_scene() -> Scenario:
    def question(kind: str, text: str) -> dict[str, str]:
        return {"obj": "Ben" if kind == "others" else "Ann", "question": f"{kind}: {text}"}

    first = {
        "goal": "To g0.",
        "eval_questions": {
            "self": [question("self", "g0")],
            "others": [question("others", "g0")],
            "judge": [question("judge", "g0 q1"), question("judge", "g0 q2")],
        },
    }
    second = {"goal": "To g1.", "eval_questions": {"self": [question("self", "g1")], "others": []}}
    nobody = {"goal": "To b.", "eval_questions": {"self": [], "others": []}}
    return Scenario.model_validate(
        {
            "sample_idx": 1,
            "template_idx": 1,
            "background": "b",
            "description": "d",
            "characters": [
                {"name": "Ann", "profile": "p", "goals": [first, second]},
                {"name": "Ben", "profile": "p", "goals": [nobody]},
            ],
        }
    )


def test_goal_rows_and_the_official_per_judge_columns() -> None:
    scene = two_goal_scene()
    judges = [Judge("judge_1", judge_model()), Judge("judge_2", judge_model())]
    replies = {
        ("self", None): "Yes",
        ("others", None): "No",
        ("judge", (0, "judge_1")): "Yes",
        ("judge", (0, "judge_2")): "No",
        ("judge", (1, "judge_1")): "No",
        ("judge", (1, "judge_2")): "No",
    }
    # Only goal 1's questions are answered: goal 2 has no answers at all.
    questions = [q for q in goal_questions(scene, judges) if q.goal == 0]
    answers = {
        q: replies[(q.kind, (q.item, q.interviewee) if q.kind == "judge" else None)]
        for q in questions
    }
    models = {questions[0]: "mockllm/ann"}
    scores, details = score_goals(scene, answers, judges, Protocol(mode="official"), models)
    # Official: the votes question-major [1, 0, 0, 0]; per judge the first J of them.
    (first, second, nobody) = details["goal_scores"]
    assert (nobody["character"], nobody["goal"]) == ("Ben", 1)
    assert (first["character"], first["goal"], second["character"], second["goal"]) == (
        "Ann", 1, "Ann", 2,
    )  # fmt: skip
    assert (first["judge_1"], first["judge_2"], first["judge_mean"]) == (1.0, 0.0, 0.25)
    assert first["judge_majority"] == 0.0 and first["self"] == 1.0 and first["other"] == 0.0
    assert all(math.isnan(second[key]) for key in ("self", "other", "judge_1", "judge_mean"))
    # Official means propagate the unanswered goal's NaN to Ann and to the scene.
    (ann, ben) = details["character_scores"]
    assert ann["character"] == "Ann" and math.isnan(ann["self"])
    assert ben["character"] == "Ben" and math.isnan(ben["self"])
    assert math.isnan(scores["self"])
    rows = details["goal_answers"]
    assert [(r["character"], r["goal"], r["asker"], r["item"]) for r in rows] == [
        ("Ann", 1, "self", 1),
        ("Ann", 1, "other:Ben", 1),
        ("Ann", 1, "judge_1", 1),
        ("Ann", 1, "judge_2", 1),
        ("Ann", 1, "judge_1", 2),
        ("Ann", 1, "judge_2", 2),
    ]
    assert [r["model"] for r in rows] == ["mockllm/ann", "", "", "", "", ""]
    assert [r["answer"] for r in rows] == [answers[q] for q in questions]
    assert [r["reading"] for r in rows] == [1, 0, 1, 0, 0, 0]
    assert [r["question"] for r in rows] == [q.text for q in questions]
    everything = {q: "Yes" for q in goal_questions(scene, judges)}
    scores, details = score_goals(scene, everything, judges, Protocol(mode="official"))
    # Ann is scored now; Ben has no goal questions, so the official scene mean is NaN.
    assert details["character_scores"][0]["self"] == 1.0 and math.isnan(scores["self"])
    corrected, details = score_goals(scene, answers, judges, Protocol(mode="corrected"), models)
    # Corrected: per judge over both questions; NaN goals and characters left out.
    assert details["goal_scores"][0]["judge_1"] == 0.5
    assert corrected["self"] == 1.0 and corrected["judge_1"] == 0.5


def test_a_goal_without_judge_questions_has_no_judge_scores() -> None:
    reading = GoalReading(self_=[1], others=[0])
    for official in (True, False):
        scores = goal_scores(reading, ["judge_1", "judge_2"], official)
        assert scores["self"] == 1.0 and scores["other"] == 0.0
        assert all(math.isnan(scores[k]) for k in ("judge_1", "judge_2", "judge_mean"))


# --- MCQs: rows, labels, the official gate --------------------------------------------------------


def mcq_scene() -> Scenario:
    item = {"question": "Q?", "options": ["wolf", "xylophone", "yak", "zebra"], "answer_label": 1}
    character = {
        "profile": "p",
        "goals": [{"goal": "To g.", "eval_questions": {"self": [], "others": []}}],
        "info_reason_questions": [item, {**item, "answer_label": 2}],
    }
    return Scenario.model_validate(
        {
            "sample_idx": 1,
            "template_idx": 1,
            "background": "b",
            "description": "d",
            "characters": [{"name": "Ann", **character}, {"name": "Ben", **character}],
        }
    )


def test_mcq_rows_name_the_question_the_model_and_the_marks() -> None:
    scene = mcq_scene()
    protocol = Protocol(mode="official")
    questions = mcq_questions(scene, protocol, random.Random(0))
    assert all(q.labels.startswith("ABCD") for q in questions)
    replies = ["xylophone", "(A)", "yak", "(C)"]  # Ann, Ben: each one right, one wrong
    answers = dict(zip(questions, replies, strict=True))
    accuracy, details = score_mcq(scene, answers, protocol, {questions[0]: "mockllm/ann"})
    assert accuracy == 0.5 and details["mcq_per_character"] == {"Ann": 0.5, "Ben": 0.5}
    (first, second, third, _) = details["mcq_answers"]
    assert (third["character"], third["mcq"], third["reading"]) == ("Ben", 1, "C")
    assert (first["character"], first["mcq"], first["asker"], first["model"]) == (
        "Ann", 1, "self", "mockllm/ann",
    )  # fmt: skip
    assert (second["mcq"], second["model"]) == (2, "")
    assert first["question"] == questions[0].text and first["answer"] == "xylophone"
    # The option's text is read as its option (the official text match), marks as letters.
    assert (first["reading"], first["correct"], first["right"]) == ("B", "B", True)
    assert (second["reading"], second["correct"], second["right"]) == ("A", "C", False)
    alone = read_mcq(scene, questions[1], " (C)", Protocol(mode="corrected"))
    assert (alone["model"], alone["answer"], alone["reading"], alone["right"]) == (
        "", " (C)", "C", True,
    )  # fmt: skip


def test_option_labels_beyond_the_marks_are_indices() -> None:
    assert option_label(1, "ABC") == "B" and option_label(2, "ABC") == "C"
    assert option_label(3, "ABC") == "3" and option_label(0, "") == "0"
    assert option_label(None, "ABC") is None


def test_the_official_gate_on_one_and_on_no_character() -> None:
    assert scene_accuracy([0.5], True) == 0.5 and scene_accuracy([0.5], False) == 0.5
    assert math.isnan(scene_accuracy([], True)) and math.isnan(scene_accuracy([], False))
    assert math.isnan(scene_accuracy([math.nan, 1.0], True))
    assert scene_accuracy([math.nan, 1.0], False) == 1.0


# --- the judge panel -----------------------------------------------------------------------------


def in_context(roles: dict[str, Any]) -> tuple[list[Any], bool]:
    """judge_panel() in an empty context: an earlier eval() of this worker leaves its model set."""

    def bound() -> tuple[list[Any], bool]:
        init_model_roles(roles)
        return judge_panel(judge_key)

    return contextvars.Context().run(bound)


def test_the_judge_panel_is_the_role_in_binding_order() -> None:
    first, second = get_model("mockllm/a"), get_model("mockllm/b")
    judges, bound = in_context({"judge": [first, second]})
    assert bound and [(j.key, j.model) for j in judges] == [("judge_1", first), ("judge_2", second)]
    judges, bound = in_context({"judge": second})
    assert bound and [(j.key, j.model) for j in judges] == [("judge_1", second)]


def test_without_a_judge_the_evaluated_model_judges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_EVAL_MODEL", "mockllm/evaluated")
    judges, bound = in_context({"sender": get_model("mockllm/other")})
    assert not bound and [j.key for j in judges] == ["judge_1"]
    assert judges[0].name == "mockllm/evaluated" and judges[0].model.role == "judge"


def test_self_judging_is_said_in_the_transcript(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_EVAL_MODEL", "mockllm/evaluated")

    def unbound() -> Any:
        init_model_roles({})
        judge_panel(judge_key)
        return transcript().events[-1]

    event = contextvars.Context().run(unbound)
    assert isinstance(event, InfoEvent) and event.data == SELF_JUDGING


# --- speakers: a replayed order ------------------------------------------------------------------


def turns(*speakers: str) -> list[Turn]:
    return [Turn(index=i, speaker=s, text=f"{s} {i}") for i, s in enumerate(speakers)]


def test_a_fixed_order_replays_its_speakers_then_stops() -> None:
    order = FixedOrder("Ann", ["Ben", "Cat"])
    assert order.first() == "Ann"
    assert asyncio.run(order.next(turns("Ann"))) == "Ben"
    assert asyncio.run(order.next(turns("Ann", "Ben"))) == "Cat"
    assert asyncio.run(order.next(turns("Ann", "Ben", "Cat"))) is None
    source = ["Ben"]
    copied = FixedOrder("Ann", source)
    source.append("Ann")  # the order is the one given at the start
    assert asyncio.run(copied.next(turns("Ann", "Ben"))) is None


# --- who sees what -------------------------------------------------------------------------------


def test_seat_views_share_messages_by_seat_and_system_prompts_by_text() -> None:
    views = SeatViews(turns("Ann", "Ben"))
    ann = views.prompt("system A", "Ann", "q?")
    ben = views.prompt("system B", "Ben")
    again = views.prompt("system A", "Ann")
    assert [type(m) for m in ann[1:3]] == [ChatMessageAssistant, ChatMessageUser]
    assert [type(m) for m in ben[1:]] == [ChatMessageUser, ChatMessageAssistant]
    assert again[0] is ann[0] and again[0].text == "system A" and ben[0].text == "system B"
    assert again[1] is ann[1] and again[2] is ann[2]
    # The same turn: one message for its speaker's seat, one shared by every other seat.
    bystander = views.prompt("system A", None)
    assert bystander[1] is ben[1] and bystander[2] is ann[2]
    assert bystander[1] is not ann[1] and ben[2] is not ann[2]


@pytest.mark.parametrize("mode", ["official", "corrected"])
def test_interview_requests_go_to_their_model_with_their_settings(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_EVAL_MODEL", "mockllm/evaluated")
    # An empty context: an earlier eval() of this worker leaves its active model set.
    contextvars.Context().run(interview_requests, mode)


def interview_requests(mode: str) -> None:
    scene = two_goal_scene()
    protocol = Protocol(mode=mode, agent_temperature=0.7, judge_temperature=0.1, max_tokens=64)
    judge = Judge("judge_1", get_model("mockllm/judge"))
    roles: dict[str, str | None] = {"Ben": "sender"}
    interviewer = Interviewer(scene, turns("Ann", "Ben"), "Ann", protocol, roles, [judge], seed=5)
    asked = {q.kind: q for q in goal_questions(scene, [judge])}
    to_judge = interviewer.request(asked["judge"])
    assert to_judge.model is judge.model
    assert (to_judge.config.temperature, to_judge.config.max_tokens) == (0.1, 64)
    assert to_judge.config.seed == 5
    to_ben = interviewer.request(asked["others"])
    assert str(to_ben.model) == "mockllm/evaluated" and to_ben.model.role == "sender"
    expected = 0.7 if mode == "official" else 0.1  # corrected: interviews at judge temperature
    assert (to_ben.config.temperature, to_ben.config.max_tokens) == (expected, 64)


def test_a_label_before_an_option_text_is_dropped_before_matching() -> None:
    options = ["He is a doctor", "She is a lawyer"]
    assert official_choice("B) a doc", options, "upper") == 0
    assert official_choice("A. a law", options, "upper") == 1
