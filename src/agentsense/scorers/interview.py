"""Interviews after the conversation: questions to characters and judges, all asked concurrently.

Who sees what (docs/protocol.md §3.1): an interviewee gets its own system prompt, the history,
then the question. In official mode every interviewee and judge sees the history from the
starting speaker's seat; in corrected mode a character sees it from its own seat and a judge as
a bystander.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from inspect_ai.model import ChatMessage, GenerateConfig, Model
from inspect_ai.util import span

from ..dataset.schema import Scenario
from ..prompts import JUDGE_SYSTEM_PROMPT
from ..protocol import Protocol
from ..solvers.characters import character_model, system_prompt
from ..solvers.conversation import Conversation, SeatViews, Turn
from .judge_panel import Judge

Kind = Literal["self", "others", "judge", "mcq"]


@dataclass(frozen=True)
class Question:
    """One question put to one interviewee (a character, or a judge by its key)."""

    kind: Kind
    about: str  # whose goal it is; for an MCQ, the character asked
    goal: int | None  # goal index within `about`'s goals (None for MCQs)
    item: int  # position among the goal's questions of this kind, or of the MCQs
    interviewee: str  # a character name or a judge key
    text: str


@dataclass(frozen=True)
class Request:
    model: Model
    messages: list[ChatMessage]
    config: GenerateConfig


class Interviewer:
    """Builds and sends the interview requests of one scene."""

    def __init__(
        self,
        scene: Scenario,
        conversation: Conversation,
        protocol: Protocol,
        model_roles: Mapping[str, str | None],
        judges: Sequence[Judge] = (),
    ) -> None:
        self.scene = scene
        self.turns: list[Turn] = list(conversation.turns)
        self.start = conversation.start_speaker
        self.protocol = protocol
        self.model_roles = model_roles
        self.judges = {judge.key: judge for judge in judges}
        self._prompts = {c.name: system_prompt(scene, c) for c in scene.characters}
        # Made once per scene and shared by all its questions (see SeatViews).
        self._views = SeatViews(self.turns)
        self._models: dict[str, Model] = {}
        self._judge_config = GenerateConfig(
            temperature=protocol.judge_temperature, max_tokens=protocol.max_tokens
        )
        self._interview_config = GenerateConfig(
            temperature=protocol.interview_temperature, max_tokens=protocol.max_tokens
        )

    def request(self, question: Question) -> Request:
        protocol = self.protocol
        if question.kind == "judge":
            viewer = self.start if protocol.shared_interview_view else None
            messages = self._views.prompt(JUDGE_SYSTEM_PROMPT, viewer, question.text)
            return Request(self.judges[question.interviewee].model, messages, self._judge_config)
        name = question.interviewee
        viewer = self.start if protocol.shared_interview_view else name
        messages = self._views.prompt(self._prompts[name], viewer, question.text)
        return Request(self._model(name), messages, self._interview_config)

    def _model(self, name: str) -> Model:
        if name not in self._models:
            self._models[name] = character_model(name, self.model_roles)
        return self._models[name]

    async def ask(self, questions: Sequence[Question]) -> dict[Question, str]:
        """Ask every question at once; the first failure (after Inspect's retries) is raised."""
        answers: dict[Question, str] = {}
        failures: list[BaseException] = []

        async with anyio.create_task_group() as group:

            async def ask_one(question: Question) -> None:
                request = self.request(question)
                label = f"{question.kind}: {question.interviewee}"
                if question.kind != "mcq":
                    label += f" on {question.about}'s goal {question.goal}"
                try:
                    async with span(label, type="interview"):
                        output = await request.model.generate(
                            request.messages, config=request.config
                        )
                    answers[question] = output.completion or ""
                except Exception as error:  # keep the original error, not an exception group
                    failures.append(error)
                    group.cancel_scope.cancel()

            for question in questions:
                group.start_soon(ask_one, question)
        if failures:
            raise failures[0]
        return {
            question: answers[question] for question in questions
        }  # plan order, not finish order


def answer_record(question: Question, answer: str, reading: Any) -> dict[str, Any]:
    """One answer as it goes into score metadata (and so into the log)."""
    return {
        "to": question.interviewee,
        "question": question.text,
        "answer": answer,
        "reading": reading,
    }
