"""The conversation of a scene: its turns (kept in the sample store) and what each party sees.

The store holds every utterance in full, so scorers, `inspect score` and reports work from the
log alone. What a model is shown is derived from it: the official AutoGen transforms prefix every
past utterance with `Name: ` and cut it at its first newline.

How a sample's transcript labels its model calls: one info record right after each call.

Inspect View shows a span's events in the order they started (a model call's start, a record's
writing) and dissolves the spans of the scorer. A conversation's turns are one at a time, so a
turn's record follows its call with no span. A scene's interviews are asked at once: each has a
span of its own (`scenario.interview.CALL_SPAN`), or all the round's calls would come before all
its records. A record's `source` says what the call was.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TypeVar

from inspect_ai.event import Event, InfoEvent, ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import TaskState
from inspect_ai.util import StoreModel, store_as
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


Stored = TypeVar("Stored", bound=StoreModel)


def stored(state: TaskState, model: type[Stored], field: str, what: str, hint: str = "") -> Stored:
    """The sample's `model` store, for a scorer; an error when its `field` is empty (the log of
    another task: `hint` says which logs to score)."""
    found = store_as(model)
    if not getattr(found, field):
        missing = f"Sample {state.sample_id} has no {what} in its store"
        raise ValueError(f"{missing}: {hint}" if hint else f"{missing}.")
    return found


def prefixed_text(turn: Turn) -> str:
    """An utterance in full with `Name: ` in front, once: a reply that already starts with it
    (models often write their name) is not prefixed again, as in the official transforms."""
    prefix = f"{turn.speaker}: "
    return turn.text if turn.text.startswith(prefix) else prefix + turn.text


def visible_text(turn: Turn) -> str:
    """An utterance as others see it later: `prefixed_text` cut at the first newline.

    Empty utterances stay empty and unprefixed, as in the official transforms.
    """
    if not turn.text:
        return ""
    return prefixed_text(turn).split("\n", 1)[0]


def seat_message(turn: Turn, viewer: str | None) -> ChatMessage:
    """One turn from `viewer`'s seat: its own turns as assistant, everyone else's as user.

    `viewer=None` is a bystander (every turn as user), used for judges in corrected mode. This is
    the one rule of what a participant is shown; `history` and `SeatViews` both apply it.
    """
    text = visible_text(turn)
    if turn.speaker == viewer:
        return ChatMessageAssistant(content=text)
    return ChatMessageUser(content=text)


def history(turns: list[Turn], viewer: str | None) -> list[ChatMessage]:
    """The conversation from `viewer`'s seat (`seat_message` of every turn)."""
    return [seat_message(turn, viewer) for turn in turns]


def request(
    system: ChatMessageSystem, past: list[ChatMessage], question: str | None
) -> list[ChatMessage]:
    """A full request: system prompt, the history, then an optional question."""
    messages: list[ChatMessage] = [system, *past]
    if question is not None:
        messages.append(ChatMessageUser(content=question))
    return messages


def prompt(
    system: str, turns: list[Turn], viewer: str | None, question: str | None = None
) -> list[ChatMessage]:
    """A full request: system prompt, the history from `viewer`'s seat, an optional question."""
    return request(ChatMessageSystem(content=system), history(turns, viewer), question)


class Views(Protocol):
    """Builds each participant's request from the turns so far (`SeatViews`, `ThoughtViews`)."""

    def append(self, turn: Turn) -> None: ...

    def prompt(
        self, system: str, viewer: str | None, question: str | None = None
    ) -> list[ChatMessage]: ...


class SeatViews:
    """The requests of one scene (`prompt`), built from message objects made once and shared.

    Each utterance becomes at most two messages (`seat_message` for its speaker's seat and for
    any other seat: the rule depends on the viewer only through whether it spoke), each seat's
    history grows turn by turn and each system prompt is one message. Requests reuse these
    objects, ids included, as an Inspect agent loop reuses its history: Inspect then finds them
    by identity in its input snapshots and log message pool instead of copying and hashing every
    message of every request, and the plugin does not rebuild the history per call.
    Callers must not change the lists or messages they get.
    """

    def __init__(self, turns: Iterable[Turn] = ()) -> None:
        self._turns: list[Turn] = []
        self._shared: dict[tuple[int, bool], ChatMessage] = {}  # (turn, own seat) -> message
        self._seats: dict[str | None, list[ChatMessage]] = {}
        self._systems: dict[str, ChatMessageSystem] = {}
        for turn in turns:
            self.append(turn)

    def append(self, turn: Turn) -> None:
        self._turns.append(turn)

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
        return request(system_message, self.history(viewer), question)

    def _message(self, index: int, viewer: str | None) -> ChatMessage:
        turn = self._turns[index]
        key = (index, turn.speaker == viewer)
        message = self._shared.get(key)
        if message is None:
            message = self._shared[key] = seat_message(turn, viewer)
        return message


TURN_RECORD = "turn"  # a model turn of the conversation


INTERVIEW_RECORD = "interview"  # a goal question to a character or a judge


MCQ_RECORD = "mcq"  # a multiple-choice question to a character


CALL_RECORDS = (TURN_RECORD, INTERVIEW_RECORD, MCQ_RECORD)


def record_call(source: str, label: str, body: str = "") -> None:
    """Write the record of the model call that just returned: its label in bold, then `body`.
    Call it before anything else is awaited, so that no other event comes between."""
    transcript().info(f"**{label}**" + (f"\n\n{body}" if body else ""), source=source)


def record_label(record: InfoEvent) -> str:
    """The label a record names its call by."""
    return str(record.data).split("**")[1]


def labelled_calls(events: Sequence[Event]) -> list[tuple[ModelEvent, InfoEvent | None]]:
    """Every model call of a sample with the record that follows it (None: not an agentsense
    call, such as a construction stage's)."""
    pairs: list[tuple[ModelEvent, InfoEvent | None]] = []
    for i, event in enumerate(events):
        if isinstance(event, ModelEvent):
            after = events[i + 1] if i + 1 < len(events) else None
            is_record = isinstance(after, InfoEvent) and after.source in CALL_RECORDS
            pairs.append((event, after if is_record else None))  # type: ignore[arg-type]
    return pairs


def scene_rng(seed: int, sample_id: int | str, epoch: int, purpose: str) -> random.Random:
    """A generator that depends only on the seed, the scene, the epoch and what it is for."""
    # A string seed is hashed with SHA-512 by `random`, so it is stable across processes.
    return random.Random(f"agentsense:{purpose}:{seed}:{sample_id}:{epoch}")
