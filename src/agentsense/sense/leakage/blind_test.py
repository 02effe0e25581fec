"""The blind test (paper §4.3): each character answers its MCQs with no conversation.

The request is the persona system prompt (background, description, its own goals and secret) and
the MCQ as the only user message. Questions, option marks, parsing (official MCQ parser) and
aggregation (per character, then per scene) are those of the real MCQ evaluation, at the
protocol's interview temperature, so `blind_mcq_accuracy` is the accuracy a model gets without
interacting. The task is `agentsense/blind`.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai import Task
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, span, store_as
from pydantic import Field

from agentsense.engine.conversation import scene_rng, stored
from agentsense.sense import blind_mcq
from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.interview import ROUND_SPAN, Interviewer, Question
from agentsense.sense.protocol import Protocol, TaskArguments
from agentsense.sense.score_keys import BLIND_MCQ_ACCURACY, MCQ_ANSWERS, MCQ_SCORED, PROTOCOL
from agentsense.sense.scorers.explanation import mcq_explanation
from agentsense.sense.scorers.mcq import mcq_questions, score_mcq
from agentsense.sense.scorers.scoring import interview_recorder
from agentsense.sense.tasks import NEEDS_MCQS, agentsense_task, has_mcq, task_scenes

BLIND_KEY = BLIND_MCQ_ACCURACY


class BlindAnswers(StoreModel):
    """The blind answers of one scene (sample store), so `inspect score` can re-read them."""

    # {about, item, text, labels, model, answer}
    answers: list[dict[str, Any]] = Field(default_factory=list)
    protocol: dict[str, Any] = Field(default_factory=dict)


def _as_question(record: dict[str, Any]) -> Question:
    about, item = record["about"], int(record["item"])
    return Question("mcq", about, None, item, about, record["text"], record.get("labels", ""))


@solver
def blind_interview(protocol: Protocol | None = None, seed: int = 0) -> Solver:
    """Ask every character its MCQs with no conversation, all at once."""
    settings = protocol or Protocol()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scene = scenario_of(state.metadata)
        # Same option marks as the real MCQ round for this seed and epoch.
        rng = scene_rng(seed, state.sample_id, state.epoch, "option-marks")
        questions = mcq_questions(scene, settings, rng)
        # No conversation: each request is [persona system prompt, MCQ].
        interviewer = Interviewer(scene, [], None, settings, model_roles={})
        async with span("blind MCQs", type=ROUND_SPAN):
            recorder = interview_recorder(scene, settings, interviewer)
            answers = await interviewer.ask(questions, on_answer=recorder)
        record = store_as(BlindAnswers)
        record.protocol = settings.model_dump()
        record.answers = [
            {
                "about": q.about,
                "item": q.item,
                "text": q.text,
                "labels": q.labels,
                "model": interviewer.model_name(q),
                "answer": answer,
            }
            for q, answer in answers.items()
        ]
        summary = "\n".join(f"{q.about}: {answer}" for q, answer in answers.items())
        state.output = ModelOutput.from_content(model="blind", content=summary)
        return state

    return solve


def blind_mcq_scorer() -> Scorer:
    """MCQ accuracy without interaction (official parser and aggregation)."""

    async def score(state: TaskState, target: Target) -> Score:
        blind = stored(state, BlindAnswers, "answers", "blind answers")
        protocol = Protocol.model_validate(blind.protocol)
        answers = {_as_question(record): str(record["answer"]) for record in blind.answers}
        models = {_as_question(record): str(record.get("model", "")) for record in blind.answers}
        accuracy, details = score_mcq(scenario_of(state.metadata), answers, protocol, models)
        metadata = {PROTOCOL: protocol.mode, **details, MCQ_SCORED: not math.isnan(accuracy)}
        return Score(
            value={BLIND_KEY: accuracy},
            explanation=mcq_explanation(details[MCQ_ANSWERS]),
            metadata=metadata,
        )

    return score


# No conversation: the message budget does not apply.
BLIND_EXCLUDES = ("max_messages",)


def blind(**values: Any) -> Task:
    """Blind test: MCQs answered before any interaction, on the scenes that have MCQs."""
    arguments = TaskArguments.parse(values, exclude=BLIND_EXCLUDES)
    scenes = task_scenes(arguments, "blind", keep=has_mcq, needs=NEEDS_MCQS)
    return agentsense_task(
        arguments,
        solver=blind_interview(protocol=arguments.settings, seed=arguments.seed),
        scorer=blind_mcq(),
        scenes=scenes,
        epochs=values["epochs"],
        headline_score=BLIND_KEY,
    )
