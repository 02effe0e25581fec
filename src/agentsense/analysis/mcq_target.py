"""Whose secret an MCQ is about: the defender of the attacker/defender analysis (paper §5.2).

The official records list each MCQ under the character who is *asked* (the attacker) and do not
name the character whose secret it probes. The rule, first match wins:

1. an explicit field on the MCQ (`target`, `about` or `owner`) naming another character;
2. in a two-character scene, the other character;
3. the other character whose name appears first in the question text (whole-word match);
4. otherwise unknown: the question counts for the attacker but for no defender.
"""

from __future__ import annotations

import re

from agentsense.sense.dataset.schema import MCQ, Scenario

EXPLICIT_FIELDS = ("target", "about", "owner")


def _mentions(text: str, name: str) -> int | None:
    match = re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text)
    return match.start() if match else None


def mcq_target(scene: Scenario, asker: str, mcq: MCQ) -> str | None:
    """The character whose secret `mcq` (asked to `asker`) is about, or None if unknown."""
    others = [name for name in scene.names if name != asker]
    extra = mcq.model_extra or {}
    for field in EXPLICIT_FIELDS:
        if extra.get(field) in others:
            return str(extra[field])
    if len(others) == 1:
        return others[0]
    named = [
        (position, name)
        for name in others
        if (position := _mentions(mcq.question, name)) is not None
    ]
    return min(named)[1] if named else None
