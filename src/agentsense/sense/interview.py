"""Interviews after the conversation: questions to characters and judges, all asked concurrently.

Who sees what (docs/protocol.md §3.1): an interviewee gets its own system prompt, the history,
then the question. In official mode every interviewee and judge sees the history from the
starting speaker's seat; in corrected mode a character sees it from its own seat and a judge as
a bystander.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import anyio
import anyio.abc
from inspect_ai.model import ChatMessage, GenerateConfig, Model
from inspect_ai.util import span

from agentsense.engine.conversation import SeatViews, Turn
from agentsense.engine.roles import Judge, character_model
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.persona import system_prompt
from agentsense.sense.prompts import JUDGE_SYSTEM_PROMPT
from agentsense.sense.protocol import Protocol
from agentsense.sense.score_keys import JUDGE_QUESTION, QuestionKind, asker_of

AnswerHook = Callable[["Question", str], None]
ROUND_SPAN = "interviews"  # one concurrent round of a scene's questions
CALL_SPAN = "interview"  # one question of the round: its model call and its record


@dataclass(frozen=True)
class Question:
    """One question put to one interviewee (a character, or a judge by its key)."""

    kind: QuestionKind
    about: str  # whose goal it is; for an MCQ, the character asked
    goal: int | None  # goal index within `about`'s goals (None for MCQs)
    item: int  # position among the goal's questions of this kind, or of the MCQs
    interviewee: str  # a character name or a judge key
    text: str
    labels: str = ""  # an MCQ's option marks ("ABC...")

    @property
    def asker(self) -> str:
        """Who answers, as records name it: `self`, `other:<name>`, `judge_<i>` (MCQs: `self`)."""
        return asker_of(self.kind, self.interviewee)


def interview_label(question: Question, model: str) -> str:
    """The name of an interview in the transcript: whose goal (from 1) or MCQ, and who answers."""
    if question.goal is None:
        return f"{question.about} · MCQ {question.item + 1}"
    asker = f"{question.asker} ({model})" if question.kind == JUDGE_QUESTION else question.asker
    # A goal may put several questions to one kind of asker: the later ones are numbered.
    item = f" · question {question.item + 1}" if question.item else ""
    return f"{question.about} · goal {question.goal + 1} · {asker}{item}"


@dataclass(frozen=True)
class Request:
    model: Model
    messages: list[ChatMessage]
    config: GenerateConfig


class Interviewer:
    """Builds and sends the interview requests of one scene (`turns`: the conversation so far;
    `start`: its starting speaker, whose seat every interviewee shares in official mode;
    `seed`: sent with every interview and judge call; set on judge repeats, `scorers.repeats`)."""

    def __init__(
        self,
        scene: Scenario,
        turns: Sequence[Turn],
        start: str | None,
        protocol: Protocol,
        model_roles: Mapping[str, str | None],
        judges: Sequence[Judge] = (),
        seed: int | None = None,
    ) -> None:
        self.scene = scene
        self.start = start
        self.protocol = protocol
        self.model_roles = model_roles
        self.judges = {judge.key: judge for judge in judges}
        self._prompts = {c.name: system_prompt(scene, c) for c in scene.characters}
        # Made once per scene and shared by all its questions (see SeatViews).
        self._views = SeatViews(turns)
        self._models: dict[str, Model] = {}
        self._judge_config = GenerateConfig(
            temperature=protocol.judge_temperature, max_tokens=protocol.max_tokens, seed=seed
        )
        self._interview_config = GenerateConfig(
            temperature=protocol.interview_temperature, max_tokens=protocol.max_tokens, seed=seed
        )

    def request(self, question: Question) -> Request:
        protocol = self.protocol
        if question.kind == JUDGE_QUESTION:
            viewer = self.start if protocol.shared_interview_view else None
            messages = self._views.prompt(JUDGE_SYSTEM_PROMPT, viewer, question.text)
            return Request(self.judges[question.interviewee].model, messages, self._judge_config)
        name = question.interviewee
        viewer = self.start if protocol.shared_interview_view else name
        messages = self._views.prompt(self._prompts[name], viewer, question.text)
        return Request(self._model(name), messages, self._interview_config)

    def model_name(self, question: Question) -> str:
        """The model that answers `question` (a judge's, or the interviewee character's)."""
        return str(self.request(question).model)

    def player(self, name: str) -> str:
        """The model that plays the character `name`."""
        return str(self._model(name))

    def _model(self, name: str) -> Model:
        if name not in self._models:
            self._models[name] = character_model(name, self.model_roles)
        return self._models[name]

    async def ask(
        self, questions: Sequence[Question], on_answer: AnswerHook | None = None
    ) -> dict[Question, str]:
        """Ask every question at once (plan order kept); a failure (after Inspect's retries)
        is raised as itself. `on_answer` sees each answer as it arrives, right after its model
        call and before any other event, so the record it writes (`record_call`) follows that
        call. Each question has a span of its own (`CALL_SPAN`, named by `interview_label`):
        Inspect View orders a span's events by their start, so in one shared span every call
        (started at once) came before every record (written on return); the viewer shows no
        span header for it, only the call with its record."""
        answers: dict[Question, str] = {}
        failures: list[Exception] = []

        async def ask_one(question: Question, group: anyio.abc.TaskGroup) -> None:
            request = self.request(question)
            async with span(interview_label(question, str(request.model)), type=CALL_SPAN):
                try:
                    output = await request.model.generate(request.messages, config=request.config)
                except Exception as failure:
                    failures.append(failure)
                    group.cancel_scope.cancel()  # the other questions are not worth waiting for
                    return
                answers[question] = output.completion or ""
                if on_answer is not None:
                    on_answer(question, answers[question])

        async with anyio.create_task_group() as group:
            for question in questions:
                group.start_soon(ask_one, question, group)
        if failures:
            raise failures[0]
        return {question: answers[question] for question in questions}
