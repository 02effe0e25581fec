"""What the scanners read from a transcript of an agentsense log: the characters' model turns
(each model call with its `Name · turn N` record), the scene's characters and secrets, and the
judge panel's answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.event import Event

from agentsense.engine.conversation import TURN_RECORD, labelled_calls, record_label


@dataclass(frozen=True)
class ModelTurn:
    """A character's turn as its model produced it (the raw output, before the newline cut)."""

    index: int
    speaker: str
    text: str
    event_id: str | None  # the model call's event, for Scout's references


def model_turns(events: Sequence[Event]) -> list[ModelTurn]:
    """Every conversation turn a model produced (the scripted greeting has no call)."""
    turns = []
    for call, record in labelled_calls(events):
        if record is None or record.source != TURN_RECORD:
            continue
        speaker, _, index = record_label(record).rpartition(" · turn ")
        text = call.output.completion if call.output else ""
        turns.append(ModelTurn(int(index), speaker, text, getattr(call, "uuid", None)))
    return turns


def _scenario(metadata: dict[str, Any]) -> dict[str, Any]:
    sample = metadata.get("sample_metadata") or {}
    scenario = sample.get("scenario") if isinstance(sample, dict) else None
    return scenario if isinstance(scenario, dict) else {}


def characters(metadata: dict[str, Any]) -> dict[str, str]:
    """Each character's name -> its secret (`private_info`; empty when it has none)."""
    found = _scenario(metadata).get("characters") or []
    return {c["name"]: str(c.get("private_info") or "") for c in found if "name" in c}


def goal_answers(metadata: dict[str, Any]) -> list[dict[str, Any]]:
    """The goal answers of the sample's AgentSense scoring (empty when it was not scored)."""
    scores = metadata.get("scores") or {}
    for score in scores.values() if isinstance(scores, dict) else []:
        answers = ((score or {}).get("metadata") or {}).get("goal_answers")
        if answers:
            return list(answers)
    return []
