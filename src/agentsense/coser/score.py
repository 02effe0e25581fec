"""CoSER's dimension score with its length correction (coser-gca.md §3.5).

    score = clip(100 - 5 * (S - 0.3 * R), 0, 100)

S is the sum of the integer severities of the flaws found, R the number of actor messages
(not the Environment's). Each round adds 1.5 points: the paper's lambda = 1.5, fitted to offset the
longer conversations' larger flaw counts. Severities that are not integers count 0 and a
missing one counts 1, as in CoSER; they are listed in the metadata so they are not lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PENALTY = 5
ROUND_CREDIT = 0.3  # per actor round, before the factor 5: 1.5 points


def severity_sum(flaws: Sequence[dict[str, Any]]) -> int:
    """S: the integer severities (bools are ints in Python, and in CoSER)."""
    return sum(flaw["severity"] for flaw in flaws if isinstance(flaw.get("severity"), int))


def ignored_severities(flaws: Sequence[dict[str, Any]]) -> list[Any]:
    """Severities CoSER silently counts as 0 (strings, floats, ...)."""
    return [flaw.get("severity") for flaw in flaws if not isinstance(flaw.get("severity"), int)]


def dimension_score(severities: int, rounds: int) -> float:
    """CoSER's expression, operation for operation (main.py:471)."""
    return float(max(0, min(100 - (severities - ROUND_CREDIT * rounds) * PENALTY, 100)))
