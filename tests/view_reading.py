"""Helpers for the viewer tests: the events in the order Inspect View lists them, and the goal
tables of a Scoring-tab explanation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from inspect_ai.event import Event, SpanBeginEvent


def viewer_order(events: list[Event]) -> list[Event]:
    """The events as Inspect View 0.3.285 lists them in the Transcript (its `buildSpanTree` and
    `eventSequence`): each span's events and child spans sorted by their start, then flattened."""
    spans = {e.id: e for e in events if isinstance(e, SpanBeginEvent)}
    children: dict[str | None, list[Event]] = {}
    for event in events:
        if isinstance(event, SpanBeginEvent):
            parent = event.parent_id if event.parent_id in spans else None
        elif event.event == "span_end":
            continue
        else:
            parent = event.span_id if event.span_id in spans else None
        children.setdefault(parent, []).append(event)

    def flat(parent: str | None) -> list[Event]:
        out: list[Event] = []
        for event in sorted(children.get(parent, []), key=lambda e: e.timestamp):
            out += flat(event.id) if isinstance(event, SpanBeginEvent) else [event]
        return out

    return flat(None)


@dataclass
class GoalTable:
    """One character's part of the explanation: heading, goals in full, the table's rows."""

    character: str
    heading: str
    goals: list[str]
    header: list[str]
    rows: dict[str, list[str]]  # row label (self, other: Name, judge_i, **majority**) -> cells


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def goal_tables(explanation: str) -> list[GoalTable]:
    """Every character's goal table, in order."""
    tables = []
    for block in explanation.split("\n---\n")[1:]:
        lines = [line for line in block.split("\n### MCQs")[0].splitlines() if line.strip()]
        heading = lines[0]
        match = re.match(r"\*\*(.+?)\*\*", heading)
        assert match, heading
        goals = [re.sub(r"^\d+\. ", "", line) for line in lines if re.match(r"^\d+\. ", line)]
        table = [line for line in lines if line.startswith("|")]
        header, rows = _cells(table[0]), [_cells(line) for line in table[2:]]
        tables.append(
            GoalTable(match.group(1), heading, goals, header, {r[0]: r[1:] for r in rows})
        )
    return tables
