"""How a sample's transcript labels its model calls: one info record right after each call.

Inspect View shows a span's events in the order they started (a model call's start, a record's
writing) and dissolves the spans of the scorer. A conversation's turns are one at a time, so a
turn's record follows its call with no span. A scene's interviews are asked at once: each has a
span of its own (`scenario.interview.CALL_SPAN`), or all the round's calls would come before all
its records. A record's `source` says what the call was.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.event import Event, InfoEvent, ModelEvent
from inspect_ai.log import transcript

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
