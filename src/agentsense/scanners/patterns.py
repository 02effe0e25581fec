"""The pattern scanners (no model): `scout scan src/agentsense/scanners/patterns.py -T LOGS`.

Each counts the turns of a transcript it flags (`value`), quotes the first in `explanation` and
references the model calls it flags; `newline_cut_loss` gives the share of the characters' text
that the first-newline cut drops, `judge_disagreement` the share of judged goals the panel splits
on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from inspect_scout import Reference, Result, Scanner, Transcript, scanner

from agentsense.scanners import detect
from agentsense.scanners.turns import ModelTurn, characters, goal_answers, model_turns

TurnRule = Callable[[ModelTurn, dict[str, str]], bool]  # (turn, name -> secret) -> flagged


def flagged_result(flagged: Sequence[ModelTurn], scanned: int) -> Result:
    """How many of `scanned` turns were flagged, the first quoted, each referenced."""
    references = [Reference(type="event", id=t.event_id) for t in flagged if t.event_id]
    first = (
        f"{flagged[0].speaker} (turn {flagged[0].index}): {flagged[0].text[:300]}"
        if flagged
        else None
    )
    return Result(
        value=len(flagged),
        explanation=first,
        metadata={"turns": [t.index for t in flagged], "scanned_turns": scanned},
        references=references,
    )


def turn_scanner(rule: TurnRule) -> Scanner[Transcript]:
    async def scan(transcript: Transcript) -> Result:
        cast = characters(transcript.metadata)
        turns = model_turns(transcript.events)
        return flagged_result([t for t in turns if rule(t, cast)], len(turns))

    return scan


@scanner(events=["model", "info"], metadata=True)
def character_break() -> Scanner[Transcript]:
    """Turns that speak as an AI or assistant, not as the character."""
    return turn_scanner(lambda turn, cast: detect.character_break(turn.text))


@scanner(events=["model", "info"], metadata=True)
def wrong_speaker() -> Scanner[Transcript]:
    """Turns that speak for another character (a line starting with their `Name:`)."""
    return turn_scanner(
        lambda turn, cast: detect.wrong_speaker(turn.text, turn.speaker, list(cast)) is not None
    )


@scanner(events=["model", "info"], metadata=True)
def secret_leak() -> Scanner[Transcript]:
    """Turns that state the speaker's own secret (most of its words; paraphrases: `llm.py`)."""
    return turn_scanner(
        lambda turn, cast: detect.secret_leak(turn.text, cast.get(turn.speaker, ""), list(cast))
    )


@scanner(events=["model", "info"], metadata=True)
def refusal() -> Scanner[Transcript]:
    """Turns that decline to take part."""
    return turn_scanner(lambda turn, cast: detect.refusal(turn.text))


@scanner(events=["model", "info"])
def newline_cut_loss() -> Scanner[Transcript]:
    """Share of the characters' text (raw model output) dropped by the first-newline cut; the
    turns that lose most of their reply are listed."""

    async def scan(transcript: Transcript) -> Result:
        turns = model_turns(transcript.events)
        losses = [detect.cut_loss(t.text, t.speaker) for t in turns]
        lengths = [len(t.text) for t in turns]
        total = sum(lengths)
        share = (
            sum(loss * n for loss, n in zip(losses, lengths, strict=True)) / total if total else 0.0
        )
        most = [t for t, loss in zip(turns, losses, strict=True) if loss >= detect.MOST]
        result = flagged_result(most, len(turns))
        return Result(
            value=round(share, 4),
            explanation=result.explanation,
            metadata={**(result.metadata or {}), "turns_losing_most": len(most)},
            references=result.references,
        )

    return scan


# The panel's answers are in the transcript's metadata (its scores); `info` events are few.
@scanner(events=["info"], metadata=True)
def judge_disagreement() -> Scanner[Transcript]:
    """Share of judged goals on which the judge panel's readings are not unanimous."""

    async def scan(transcript: Transcript) -> Result:
        split, judged = detect.panel_splits(goal_answers(transcript.metadata))
        return Result(
            value=round(split / judged, 4) if judged else 0.0,
            metadata={"split_items": split, "judged_items": judged},
        )

    return scan
