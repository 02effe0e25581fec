"""The texts a critic and the overlap metrics compare: the simulation and the book's conversation.

Both hide character thoughts (`remove_inner_thoughts`); Environment messages stay whole, as in
CoSER's judging code (main.py:409-419). Each message carries its speaker's name (the Feb-2025
code's transcript; docs/gca.md, ambiguity 2) and messages are joined by a blank line.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentsense.coser.prompts import ENVIRONMENT
from agentsense.coser.record import Message
from agentsense.engine.conversation import Turn
from agentsense.engine.thoughts import add_speaker_name, remove_inner_thoughts


def _visible(speaker: str, text: str) -> str:
    named = add_speaker_name(text, speaker)
    return named if speaker == ENVIRONMENT else remove_inner_thoughts(named)


def simulation_text(turns: Sequence[Turn]) -> str:
    return "\n\n".join(_visible(turn.speaker, turn.text).strip("\n") for turn in turns)


def reference_text(dialogues: Sequence[Message]) -> str:
    """`Character: message` blocks, thoughts removed from characters' messages."""
    blocks = []
    for message in dialogues:
        text = message.message
        if message.character != ENVIRONMENT:
            text = remove_inner_thoughts(text)
        blocks.append(f"{message.character}: {text}".strip("\n"))
    return "\n\n".join(blocks)


def actor_rounds(turns: Sequence[Turn]) -> int:
    """CoSER's R: the messages not by the Environment (seeded and empty ones included)."""
    return sum(1 for turn in turns if turn.speaker != ENVIRONMENT)
