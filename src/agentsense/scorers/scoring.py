"""The registered scorers: goal completion, MCQ accuracy, and both on one conversation.

Scorers work from the sample store alone (the conversation and the protocol it ran with), so
`inspect score` can re-judge a log with other judges. All interview calls of a scene are sent
concurrently; the `full` task's scorer asks goal and MCQ questions in a single round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.scorer import Metric, Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import span, store_as

from ..dataset.samples import scenario_of
from ..dataset.schema import Scenario
from ..metrics import clustered_uncertainty, psi, template_mean
from ..protocol import Protocol
from ..seeding import scene_rng
from ..solvers.conversation import Conversation
from .explanation import goal_explanation, headline, interview_record, mcq_explanation
from .goal import goal_questions, score_goals
from .interview import Interviewer, Question, interview_label
from .judge_panel import Judge, judge_panel
from .mcq import mcq_questions, score_mcq

GOAL_KEYS = ("self", "other", "judge_*")
MCQ_KEY = "mcq_accuracy"


def _goal_metrics() -> list[Metric]:
    return [mean(), *clustered_uncertainty(), template_mean(), psi("nan")]


def _mcq_metrics() -> list[Metric]:
    return [mean(), *clustered_uncertainty(), template_mean(), psi("skip")]


GOAL_METRICS = {key: _goal_metrics() for key in GOAL_KEYS}
MCQ_METRICS = {MCQ_KEY: _mcq_metrics()}


@dataclass
class SceneContext:
    scene: Scenario
    conversation: Conversation
    protocol: Protocol
    seed: int
    model_roles: dict[str, str | None]

    def interviewer(self, judges: list[Judge]) -> Interviewer:
        return Interviewer(
            self.scene,
            self.conversation.turns,
            self.conversation.start_speaker,
            self.protocol,
            self.model_roles,
            judges,
        )


def scene_context(state: TaskState) -> SceneContext:
    conversation = store_as(Conversation)
    if not conversation.turns:
        raise ValueError(
            f"Sample {state.sample_id} has no AgentSense conversation in its store: score logs of "
            "agentsense tasks (the simulation solver writes the conversation)."
        )
    return SceneContext(
        scene=scenario_of(state.metadata),
        conversation=conversation,
        protocol=Protocol.model_validate(conversation.protocol),
        seed=conversation.seed,
        model_roles=dict(state.metadata.get("model_roles") or {}),
    )


def record_interviews(
    questions: list[Question], rows: list[dict[str, Any]], models: dict[Question, str]
) -> None:
    """One transcript info event per interview, in plan order: Inspect View shows these under
    the scorer, where it hides the interview spans."""
    for question, row in zip(questions, rows, strict=True):
        label = interview_label(question, models[question])
        transcript().info(interview_record(row, label), source="interview")


async def interview_scene(state: TaskState, goals: bool, mcq: bool) -> Score:
    """Ask the scene's goal and/or MCQ questions in one concurrent round, then score them."""
    context = scene_context(state)
    judges, judges_bound = judge_panel() if goals else ([], False)
    goal_asked = goal_questions(context.scene, judges) if goals else []
    rng = scene_rng(context.seed, state.sample_id, state.epoch, "option-marks")
    mcq_asked = mcq_questions(context.scene, context.protocol, rng) if mcq else []
    interviewer = context.interviewer(judges)
    phase = " and ".join(part for part, on in (("goal", goals), ("MCQ", mcq)) if on)
    async with span(f"{phase} interviews", type="interviews"):
        answers = await interviewer.ask([*goal_asked, *mcq_asked])
    models = {question: interviewer.model_name(question) for question in answers}
    cast = {name: interviewer.player(name) for name in context.scene.names}

    value: dict[str, float] = {}
    metadata: dict[str, Any] = {"protocol": context.protocol.mode, "cast": cast}
    explanation: list[str] = []
    if goals:
        scores, details = score_goals(
            context.scene, _subset(answers, goal_asked), judges, context.protocol, models
        )
        value.update(scores)
        metadata["judges"] = {judge.key: judge.name for judge in judges}
        metadata["judge_role_bound"] = judges_bound
        metadata.update(details)
        texts = {c.name: [goal.goal for goal in c.goals] for c in context.scene.characters}
        explanation.append(
            goal_explanation(
                details["goal_answers"], details["goal_scores"], metadata["judges"], cast, texts
            )
        )
        record_interviews(goal_asked, details["goal_answers"], models)
    if mcq:
        accuracy, details = score_mcq(
            context.scene, _subset(answers, mcq_asked), context.protocol, models
        )
        value[MCQ_KEY] = accuracy
        metadata.update(details)
        metadata["mcq_scored"] = not math.isnan(accuracy)
        explanation.append(mcq_explanation(details["mcq_answers"]))
        record_interviews(mcq_asked, details["mcq_answers"], models)
    return Score(
        value=value,
        explanation="\n\n".join([headline(value), *explanation]),
        metadata=metadata,
    )


def _subset(answers: dict[Question, str], questions: list[Question]) -> dict[Question, str]:
    return {question: answers[question] for question in questions}


@scorer(metrics=GOAL_METRICS)
def goal_completion() -> Scorer:
    """Goal completion judged by self, others and the judge panel (role `judge`)."""

    async def score(state: TaskState, target: Target) -> Score:
        return await interview_scene(state, goals=True, mcq=False)

    return score


@scorer(metrics=MCQ_METRICS)
def mcq_accuracy() -> Scorer:
    """Implicit reasoning: accuracy on the MCQs about other characters' secrets."""

    async def score(state: TaskState, target: Target) -> Score:
        return await interview_scene(state, goals=False, mcq=True)

    return score


@scorer(metrics={**GOAL_METRICS, **MCQ_METRICS})
def goal_and_mcq() -> Scorer:
    """Both evaluations of the paper on one conversation, asked in a single concurrent round."""

    async def score(state: TaskState, target: Target) -> Score:
        return await interview_scene(state, goals=True, mcq=True)

    return score
