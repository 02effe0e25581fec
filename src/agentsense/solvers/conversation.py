"""The conversation of a scene: its turns (kept in the sample store) and what each party sees.

The store holds every utterance in full, so scorers, `inspect score` and reports work from the
log alone. What a model is shown is derived from it: the official AutoGen transforms prefix every
past utterance with `Name: ` and cut it at its first newline.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.util import StoreModel
from pydantic import BaseModel, Field


class Turn(BaseModel):
    """One message of the conversation, as the speaker produced it (never truncated)."""

    index: int
    speaker: str
    text: str
    scripted: bool = False  # the greeting is not model-generated


class Conversation(StoreModel):
    """The conversation of one scene; lives in the sample store (and so in the log)."""

    start_speaker: str = ""
    turns: list[Turn] = Field(default_factory=list)
    # The settings the scene was simulated with, so re-scoring from the log uses the same ones.
    protocol: dict[str, Any] = Field(default_factory=dict)
    seed: int = 0


def visible_text(turn: Turn) -> str:
    """An utterance as others see it later: `Name: ` prefixed (once), cut at the first newline.

    Empty utterances stay empty and unprefixed, as in the official transforms.
    """
    if not turn.text:
        return ""
    prefix = f"{turn.speaker}: "
    text = turn.text if turn.text.startswith(prefix) else prefix + turn.text
    return text.split("\n", 1)[0]


def history(turns: list[Turn], viewer: str | None) -> list[ChatMessage]:
    """The conversation from `viewer`'s seat: its own turns as assistant, all others as user.

    `viewer=None` is a bystander's view (every turn as user), used for judges in corrected mode.
    """
    messages: list[ChatMessage] = []
    for turn in turns:
        text = visible_text(turn)
        if turn.speaker == viewer:
            messages.append(ChatMessageAssistant(content=text))
        else:
            messages.append(ChatMessageUser(content=text))
    return messages


def prompt(
    system: str, turns: list[Turn], viewer: str | None, question: str | None = None
) -> list[ChatMessage]:
    """A full request: system prompt, the history from `viewer`'s seat, an optional question."""
    messages: list[ChatMessage] = [ChatMessageSystem(content=system), *history(turns, viewer)]
    if question is not None:
        messages.append(ChatMessageUser(content=question))
    return messages


class SeatViews:
    """The requests of one scene, built from message objects made once and shared.

    Gives the same roles and texts as `prompt`. Each utterance becomes at most two messages (a
    user message for every other seat, an assistant message for its speaker's seat), each seat's
    history grows turn by turn and each system prompt is one message. Requests reuse these
    objects, ids included, as an Inspect agent loop reuses its history: Inspect then finds them
    by identity in its input snapshots and log message pool instead of copying and hashing every
    message of every request, and the plugin does not rebuild the history per call.
    Callers must not change the lists or messages they get.
    """

    def __init__(self, turns: Iterable[Turn] = ()) -> None:
        self._turns: list[Turn] = []
        self._others: list[ChatMessageUser | None] = []  # built on first use
        self._own: list[ChatMessageAssistant | None] = []
        self._seats: dict[str | None, list[ChatMessage]] = {}
        self._systems: dict[str, ChatMessageSystem] = {}
        for turn in turns:
            self.append(turn)

    def append(self, turn: Turn) -> None:
        self._turns.append(turn)
        self._others.append(None)
        self._own.append(None)

    def history(self, viewer: str | None) -> list[ChatMessage]:
        """`history(turns, viewer)` from shared messages (extended with any new turns)."""
        seat = self._seats.setdefault(viewer, [])
        for index in range(len(seat), len(self._turns)):
            seat.append(self._message(index, viewer))
        return seat

    def prompt(
        self, system: str, viewer: str | None, question: str | None = None
    ) -> list[ChatMessage]:
        """`prompt(system, turns, viewer, question)` from shared messages."""
        system_message = self._systems.get(system)
        if system_message is None:
            system_message = self._systems[system] = ChatMessageSystem(content=system)
        messages: list[ChatMessage] = [system_message, *self.history(viewer)]
        if question is not None:
            messages.append(ChatMessageUser(content=question))
        return messages

    def _message(self, index: int, viewer: str | None) -> ChatMessage:
        turn = self._turns[index]
        if turn.speaker == viewer:
            own = self._own[index]
            if own is None:
                own = self._own[index] = ChatMessageAssistant(content=visible_text(turn))
            return own
        other = self._others[index]
        if other is None:
            other = self._others[index] = ChatMessageUser(content=visible_text(turn))
        return other
