"""The registered scorers: goal completion, MCQ accuracy, and both on one conversation.

Scorers work from the sample store alone (the conversation and the protocol it ran with), so
`inspect score` can re-judge a log with other judges. All interview calls of a scene are sent
concurrently; the `full` task's scorer asks goal and MCQ questions in a single round.

Judge repeats: the same conversations judged again, told apart from epochs in the log.

An epoch plays a scene again (a new conversation); a judge repeat asks the same interview and
judge questions again about the same conversation, with `inspect score LOG -S repeat=K`. The
eval's own scoring is repeat 0 and sends no seed (requests as the protocol prescribes); repeat
K >= 1 sends a seed derived from the run's seed, the scene, the epoch and K with every interview
and judge call, so a repeat is reproducible where the provider honours seeds and repeats differ
from each other. Each score records its repeat in its metadata (`score_keys.JUDGE_REPEAT`;
`report.variance_components` reads it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import TaskState
from inspect_ai.util import span

from agentsense.engine.conversation import (
    INTERVIEW_RECORD,
    MCQ_RECORD,
    Conversation,
    record_call,
    scene_rng,
    stored,
)
from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.roles import Judge, character_role, judge_panel
from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.interview import (
    ROUND_SPAN,
    AnswerHook,
    Interviewer,
    Question,
    interview_label,
)
from agentsense.sense.protocol import Protocol
from agentsense.sense.score_keys import (
    CAST,
    GOAL_ANSWERS,
    GOAL_SCORES,
    JUDGE_REPEAT,
    JUDGE_ROLE_BOUND,
    JUDGES,
    MCQ_ACCURACY,
    MCQ_ANSWERS,
    MCQ_QUESTION,
    MCQ_SCORED,
    PROTOCOL,
    ROLES,
    judge_key,
)
from agentsense.sense.scorers.explanation import (
    goal_explanation,
    headline,
    interview_record,
    mcq_explanation,
)
from agentsense.sense.scorers.goal import goal_answer_row, goal_questions, goal_reader, score_goals
from agentsense.sense.scorers.mcq import mcq_questions, read_mcq, score_mcq


@dataclass
class SceneContext:
    scene: Scenario
    conversation: Conversation
    protocol: Protocol
    seed: int
    model_roles: dict[str, str | None]

    def interviewer(self, judges: list[Judge], seed: int | None = None) -> Interviewer:
        return Interviewer(
            self.scene,
            self.conversation.turns,
            self.conversation.start_speaker,
            self.protocol,
            self.model_roles,
            judges,
            seed,
        )


def scene_context(state: TaskState) -> SceneContext:
    hint = "score logs of agentsense tasks (the simulation solver writes the conversation)."
    conversation = stored(state, Conversation, "turns", "AgentSense conversation", hint)
    return SceneContext(
        scene=scenario_of(state.metadata),
        conversation=conversation,
        protocol=Protocol.model_validate(conversation.protocol),
        seed=conversation.seed,
        model_roles=dict(state.metadata.get("model_roles") or {}),
    )


def interview_recorder(scene: Scenario, protocol: Protocol, interviewer: Interviewer) -> AnswerHook:
    """Writes one transcript record per interview, read as the scorer reads it, right after its
    model call (see `agentsense.engine.conversation`)."""
    read = goal_reader(protocol)

    def record(question: Question, answer: str) -> None:
        model = interviewer.model_name(question)
        if question.kind == MCQ_QUESTION:
            row: Mapping[str, Any] = read_mcq(scene, question, answer, protocol, model)
        else:
            row = goal_answer_row(question, model, answer, read(answer))
        source = MCQ_RECORD if question.kind == MCQ_QUESTION else INTERVIEW_RECORD
        record_call(source, interview_label(question, model), interview_record(row))

    return record


async def interview_scene(state: TaskState, goals: bool, mcq: bool, repeat: int = 0) -> Score:
    """Ask the scene's goal and/or MCQ questions in one concurrent round, then score them
    (`repeat`: which judge repeat this scoring is, `scorers.repeats`)."""
    context = scene_context(state)
    judges, judges_bound = judge_panel(judge_key) if goals else ([], False)
    goal_asked = goal_questions(context.scene, judges) if goals else []
    rng = scene_rng(context.seed, state.sample_id, state.epoch, "option-marks")
    mcq_asked = mcq_questions(context.scene, context.protocol, rng) if mcq else []
    seed = repeat_seed(context.seed, state.sample_id, state.epoch, repeat)
    interviewer = context.interviewer(judges, seed)
    phase = " and ".join(part for part, on in (("goal", goals), ("MCQ", mcq)) if on)
    async with span(f"{phase} interviews", type=ROUND_SPAN):
        recorder = interview_recorder(context.scene, context.protocol, interviewer)
        answers = await interviewer.ask([*goal_asked, *mcq_asked], on_answer=recorder)
    models = {question: interviewer.model_name(question) for question in answers}
    cast = {name: interviewer.player(name) for name in context.scene.names}

    value: dict[str, float] = {}
    roles = {name: character_role(name, context.model_roles) for name in context.scene.names}
    metadata: dict[str, Any] = {
        PROTOCOL: context.protocol.mode,
        CAST: cast,
        ROLES: roles,
        JUDGE_REPEAT: repeat,
    }
    explanation: list[str] = []
    if goals:
        scores, details = score_goals(
            context.scene, _subset(answers, goal_asked), judges, context.protocol, models
        )
        value.update(scores)
        metadata[JUDGES] = {judge.key: judge.name for judge in judges}
        metadata[JUDGE_ROLE_BOUND] = judges_bound
        metadata.update(details)
        texts = {c.name: [goal.goal for goal in c.goals] for c in context.scene.characters}
        explanation.append(
            goal_explanation(
                details[GOAL_ANSWERS],
                details[GOAL_SCORES],
                metadata[JUDGES],
                cast,
                texts,
                roles=context.model_roles,
            )
        )
    if mcq:
        accuracy, details = score_mcq(
            context.scene, _subset(answers, mcq_asked), context.protocol, models
        )
        value[MCQ_ACCURACY] = accuracy
        metadata.update(details)
        metadata[MCQ_SCORED] = not math.isnan(accuracy)
        explanation.append(mcq_explanation(details[MCQ_ANSWERS]))
    return Score(
        value=value,
        explanation="\n\n".join([headline(value), *explanation]),
        metadata=metadata,
    )


def _subset(answers: dict[Question, str], questions: list[Question]) -> dict[Question, str]:
    return {question: answers[question] for question in questions}


def interview_scorer(goals: bool, mcq: bool, repeat: int = 0) -> Scorer:
    """The scene's interview: goal completion (self, others, the judge panel on role `judge`)
    and/or the MCQs; `repeat`: the judge repeat (`scorers.repeats`). Registered by name as
    `goal_completion`, `mcq_accuracy` and `goal_and_mcq` (`agentsense.sense`)."""
    repeat = checked_repeat(repeat)

    async def score(state: TaskState, target: Target) -> Score:
        return await interview_scene(state, goals=goals, mcq=mcq, repeat=repeat)

    return score


SEED_BITS = 31  # providers take 32-bit signed seeds


def checked_repeat(repeat: object) -> int:
    """The scorer argument `repeat` as an int >= 0, or a clear error before any model call."""
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
        raise PrerequisiteError(
            f"Scorer argument repeat={repeat!r}: expected a whole number >= 0 (0 is the eval's "
            "own judging; re-judge with -S repeat=1, then -S repeat=2, ...)."
        )
    return repeat


def repeat_seed(seed: int, sample_id: int | str, epoch: int, repeat: int) -> int | None:
    """The generation seed of judge repeat `repeat` of one sample and epoch (None for repeat 0)."""
    if repeat == 0:
        return None
    return scene_rng(seed, sample_id, epoch, f"judge-repeat:{repeat}").getrandbits(SEED_BITS)
