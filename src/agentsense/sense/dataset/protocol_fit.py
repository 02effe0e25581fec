"""Scenes checked against the protocol settings of a run, before any model call.

A scene can be valid on its own (`validation.py`) and still not fit a run: a recorded speaker
order must have one speaker per model turn of `max_messages`, and every MCQ option needs a label
under the chosen option mark.
"""

from __future__ import annotations

from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.dataset.validation import Problem
from agentsense.sense.prompts import OPTION_MARKS
from agentsense.sense.protocol import Protocol


def check_replay(scenes: list[Scenario], protocol: Protocol, source: str) -> list[Problem]:
    """A recorded speaker order must have exactly one speaker per model turn."""
    return [
        Problem(
            source,
            None,
            scene.sample_idx,
            "speaker_order",
            f"{len(scene.speaker_order)} speakers",
            f"{protocol.n_turns} (max_messages - 1), or drop the field for a random order",
        )
        for scene in scenes
        if scene.speaker_order is not None and len(scene.speaker_order) != protocol.n_turns
    ]


def check_option_marks(scenes: list[Scenario], protocol: Protocol, source: str) -> list[Problem]:
    """Every MCQ option needs a label under the option mark (`number` has nine, 1-9)."""
    marks = list(OPTION_MARKS) if protocol.option_mark == "all" else [protocol.option_mark]
    labels = min(len(OPTION_MARKS[mark]) for mark in marks)
    return [
        Problem(
            source,
            None,
            scene.sample_idx,
            f"characters[{c}].info_reason_questions[{q}].options",
            f"{len(item.options)} options",
            f"at most {labels}, the labels of option_mark={protocol.option_mark!r}",
        )
        for scene in scenes
        for c, character in enumerate(scene.characters)
        for q, item in enumerate(character.info_reason_questions)
        if item.options is not None and len(item.options) > labels
    ]
