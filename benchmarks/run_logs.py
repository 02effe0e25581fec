"""What a benchmark run's logs say: the samples' window, the calls, and per scene the sequential
turns and interview rounds (the definitions are in `throughput.py`'s docstring)."""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def read_logs(log_dir: Path, expected: int) -> dict[str, Any]:
    """The samples' window, calls, mean scene time and the longest chain, over all logs."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    logs = list_eval_logs(str(log_dir))
    if len(logs) != expected:
        raise RuntimeError(f"expected {expected} log(s) in {log_dir}, found {len(logs)}")
    samples = []
    for info in logs:
        log = read_eval_log(info)
        if log.status != "success" or not log.samples:
            raise RuntimeError(f"the eval did not succeed: {log.status} {log.error}")
        samples += log.samples
    starts = [dt.datetime.fromisoformat(str(s.started_at)) for s in samples]
    ends = [dt.datetime.fromisoformat(str(s.completed_at)) for s in samples]
    turns, rounds, calls = zip(*(sample_rounds(sample.events) for sample in samples), strict=True)
    return {
        "window": (min(starts), max(ends)),
        "scene_time": statistics.mean(
            (e - s).total_seconds() for s, e in zip(starts, ends, strict=True)
        ),
        "calls": sum(calls),
        "turns": max(turns),
        "chain": max(t + r for t, r in zip(turns, rounds, strict=True)),
    }


def sample_rounds(events: Sequence[Any]) -> tuple[int, int, int]:
    """(turn calls, interview rounds, model calls) of one scene."""
    from inspect_ai.event import SpanBeginEvent

    from agentsense.engine.conversation import TURN_RECORD, labelled_calls
    from agentsense.sense.interview import ROUND_SPAN

    span_type = {e.id: e.type for e in events if isinstance(e, SpanBeginEvent)}
    parent = {e.id: e.parent_id for e in events if isinstance(e, SpanBeginEvent)}
    pairs = labelled_calls(events)
    calls = [call for call, _ in pairs]
    turns = sum(1 for _, record in pairs if record and record.source == TURN_RECORD)
    rounds = {enclosing(e.span_id, ROUND_SPAN, span_type, parent) for e in calls} - {None}
    return turns, len(rounds), len(calls)


def enclosing(
    span: str | None, kind: str, span_type: dict[str, Any], parent: dict[str, Any]
) -> str | None:
    while span is not None and span_type.get(span) != kind:
        span = parent.get(span)
    return span
