"""Messages with hidden thoughts: `speech (action) [thought]`, thoughts seen only by the speaker.

CoSER's message format (coser-gca.md §2.5). The conversation store keeps every message whole;
what another participant (or a critic) is shown has the `[...]` parts removed and the speaker's
name in front. Each participant's history is CoSER's `Agent.update`: its own messages whole as
`assistant`, everything said between two of its turns joined into one `user` message, empty
messages dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from agentsense.engine.conversation import Turn

# Non-greedy and within one line, as CoSER's `remove_inner_thoughts` (no re.S).
_THOUGHT = re.compile(r"\[.*?\]")
_NEWLINES = re.compile(r"\n+")


def remove_inner_thoughts(text: str) -> str:
    """The message without `[...]` thoughts, lines stripped, runs of newlines collapsed."""
    cleaned = _THOUGHT.sub("", text)
    cleaned = "\n".join(line.strip() for line in cleaned.split("\n"))
    return _NEWLINES.sub("\n", cleaned).strip()


def add_speaker_name(text: str, speaker: str) -> str:
    """`Speaker: text`, unless a line already starts with the name and a colon."""
    lines = text.split("\n")
    if any(line.startswith((f"{speaker}:", f"{speaker}：")) for line in lines):
        return text
    return f"{speaker}: {text}"


def public_text(turn: Turn) -> str:
    """What the others are shown of a turn: thoughts removed, the speaker's name in front."""
    return add_speaker_name(remove_inner_thoughts(turn.text), turn.speaker)


def named_text(turn: Turn) -> str:
    """The whole turn with the speaker's name in front (the log's and its own view)."""
    return add_speaker_name(turn.text, turn.speaker)


@dataclass(frozen=True)
class _Entry:
    author: str
    own: str | None  # what the author's own history holds
    public: str | None  # what everybody else's history holds
    own_role: Literal["assistant", "user"] = "assistant"


class ThoughtViews:
    """Every participant's request in CoSER's format; same interface as `SeatViews`."""

    def __init__(self, opening: str, name_own: bool = True) -> None:
        self._opening = opening
        # CoSER's Feb-2025 code prefixed every reply with `Name: ` before storing it, so the
        # speaker's own history carried its name too (the Dec-2025 code stores it bare).
        self._name_own = name_own
        self._entries: list[_Entry] = []

    def append(self, turn: Turn) -> None:
        own = named_text(turn) if self._name_own else turn.text
        self._entries.append(_Entry(turn.speaker, own, public_text(turn)))

    def note(
        self, author: str, text: str, role: Literal["assistant", "user"] = "assistant"
    ) -> None:
        """A message only `author` sees (e.g. the next-speaker predictor's own answers)."""
        self._entries.append(_Entry(author, text, None, role))

    def history(self, viewer: str | None) -> list[ChatMessage]:
        turns: list[tuple[str, str]] = [("user", self._opening)]
        for entry in self._entries:
            role, text = (
                (entry.own_role, entry.own) if entry.author == viewer else ("user", entry.public)
            )
            if not text:
                continue  # Agent.update drops empty messages
            if turns[-1][0] == role:
                turns[-1] = (role, f"{turns[-1][1]}\n\n{text}")
            else:
                turns.append((role, text))
        return [
            ChatMessageAssistant(content=text)
            if role == "assistant"
            else ChatMessageUser(content=text)
            for role, text in turns
        ]

    def prompt(
        self, system: str, viewer: str | None, question: str | None = None
    ) -> list[ChatMessage]:
        messages: list[ChatMessage] = [ChatMessageSystem(content=system), *self.history(viewer)]
        if question is not None:
            messages.append(ChatMessageUser(content=question))
        return messages
