"""The conversation of a scene: its turns (kept in the sample store) and what each party sees.

The store holds every utterance in full, so scorers, `inspect score` and reports work from the
log alone. What a model is shown is derived from it: the official AutoGen transforms prefix every
past utterance with `Name: ` and cut it at its first newline.
"""

from __future__ import annotations

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


def prompt(system: str, turns: list[Turn], viewer: str | None, question: str | None = None) -> list[ChatMessage]:
    """A full request: system prompt, the history from `viewer`'s seat, then an optional question."""
    messages: list[ChatMessage] = [ChatMessageSystem(content=system), *history(turns, viewer)]
    if question is not None:
        messages.append(ChatMessageUser(content=question))
    return messages
