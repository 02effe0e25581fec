"""The registered scorers: goal completion, MCQ accuracy, and both on one conversation.

Scorers work from the sample store alone (the conversation and the protocol it ran with), so
`inspect score` can re-judge a log with other judges. All interview calls of a scene are sent
concurrently; the `full` task's scorer asks goal and MCQ questions in a single round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import Metric, Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import span, store_as

from ..dataset.samples import scenario_of
from ..dataset.schema import Scenario
from ..metrics import clustered_uncertainty, psi, template_mean
from ..protocol import Protocol
from ..solvers.conversation import Conversation
from ..solvers.speakers import scene_rng
from .goal import goal_questions, score_goals
from .interview import Interviewer, Question
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
        return Interviewer(self.scene, self.conversation, self.protocol, self.model_roles, judges)


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


def _mark(value: Any) -> str:
    if value is None:
        return "?"
    return "yes" if value == 1 else "no" if value == 0 else str(value)


def goal_explanation(details: dict[str, Any]) -> str:
    """A Markdown table of every goal answer, for the Scoring tab of Inspect View."""
    lines = ["| character | goal | self | others | judges |", "|---|---|---|---|---|"]
    for character, goals in details.items():
        for goal, kinds in goals.items():
            cells = [
                ", ".join(f"{a['to']}: {_mark(a['reading'])}" for a in kinds.get(kind, []))
                for kind in ("self", "others", "judge")
            ]
            lines.append(f"| {character} | {goal} | {' | '.join(cells)} |")
    return "\n".join(lines)


def mcq_explanation(details: dict[str, Any]) -> str:
    lines = ["| character | answer | read as | correct |", "|---|---|---|---|"]
    for character, answers in details.items():
        for a in answers:
            shown = a["answer"].replace("\n", " ").replace("|", "/")[:80]
            lines.append(f"| {character} | {shown} | {a['reading']} | {a['answer_label']} |")
    return "\n".join(lines)


async def interview_scene(state: TaskState, goals: bool, mcq: bool) -> Score:
    """Ask the scene's goal and/or MCQ questions in one concurrent round, then score them."""
    context = scene_context(state)
    judges, judges_bound = judge_panel() if goals else ([], False)
    goal_asked = goal_questions(context.scene, judges) if goals else []
    rng = scene_rng(context.seed, state.sample_id, state.epoch, "option-marks")
    mcq_asked = mcq_questions(context.scene, context.protocol, rng) if mcq else []
    phase = " and ".join(part for part, on in (("goal", goals), ("MCQ", mcq)) if on)
    async with span(f"{phase} interviews", type="interviews"):
        answers = await context.interviewer(judges).ask([*goal_asked, *mcq_asked])

    value: dict[str, float] = {}
    metadata: dict[str, Any] = {"protocol": context.protocol.mode}
    explanation: list[str] = []
    if goals:
        goal_answers = _subset(answers, goal_asked)
        scores, details = score_goals(context.scene, goal_answers, judges, context.protocol)
        value.update(scores)
        metadata.update(details)
        metadata["judges"] = {judge.key: judge.name for judge in judges}
        metadata["judge_role_bound"] = judges_bound
        explanation.append(goal_explanation(details["goals"]))
    if mcq:
        accuracy, details = score_mcq(context.scene, _subset(answers, mcq_asked), context.protocol)
        value[MCQ_KEY] = accuracy
        metadata.update(details)
        metadata["mcq_scored"] = not math.isnan(accuracy)
        explanation.append(mcq_explanation(details["mcq"]))
    return Score(value=value, explanation="\n\n".join(explanation), metadata=metadata)


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
