"""The line account of a script: where every input line went (an element, or a named skip).

The reader marks each line as it consumes it; a line it never marks is unaccounted, which is a
reader bug or a layout it does not understand. A script whose unaccounted share of non-blank
lines exceeds `MAX_UNACCOUNTED` is dropped before the build, with that share as the reason.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

MAX_UNACCOUNTED = 0.02  # of the non-blank lines; docs/construction.md "Reading a script"
BLANK = "blank"
# Why a line is in no element, in the order the account prints them.
SKIPS = (
    BLANK,
    "title page",
    "note",
    "boneyard",
    "section",
    "synopsis",
    "page break",
    "page furniture",
    "markup",
)
NO_CUE = "speech-indented text with no cue above"


class LineAccount(BaseModel):
    """Lines read = used (by element kind) + skipped (by reason) + unaccounted (by reason)."""

    read: int = 0
    used: dict[str, int] = Field(default_factory=dict)
    skipped: dict[str, int] = Field(default_factory=dict)
    unaccounted: dict[str, int] = Field(default_factory=dict)
    first_unaccounted: list[int] = Field(default_factory=list)  # 1-based line numbers

    @classmethod
    def of(cls, marks: list[tuple[str, str] | None]) -> LineAccount:
        """From one mark per line: ("used", kind), ("skipped", reason), ("unaccounted", why)."""
        counts: dict[str, Counter[str]] = {"used": Counter(), "skipped": Counter()}
        counts["unaccounted"] = Counter()
        first: list[int] = []
        for number, mark in enumerate(marks, start=1):
            side, name = mark or ("unaccounted", "not read")
            counts[side][name] += 1
            if side == "unaccounted" and len(first) < 5:
                first.append(number)
        skipped = {r: counts["skipped"][r] for r in SKIPS if counts["skipped"][r]}
        return cls(
            read=len(marks),
            used=dict(sorted(counts["used"].items())),
            skipped=skipped | dict(counts["skipped"] - Counter(skipped)),
            unaccounted=dict(counts["unaccounted"]),
            first_unaccounted=first,
        )

    @property
    def share(self) -> float:
        """Unaccounted lines as a share of the non-blank lines."""
        content = self.read - self.skipped.get(BLANK, 0)
        return sum(self.unaccounted.values()) / content if content else 0.0

    def problem(self) -> str | None:
        """Why the script is dropped, or None if the account is within `MAX_UNACCOUNTED`."""
        if self.share <= MAX_UNACCOUNTED:
            return None
        lines = ", ".join(map(str, self.first_unaccounted))
        return (
            f"{sum(self.unaccounted.values())} of {self.read} lines unaccounted "
            f"({self.share:.0%}, more than {MAX_UNACCOUNTED:.0%}: "
            f"{_parts(self.unaccounted)}; first at line {lines})"
        )

    def line(self) -> str:
        """One line for the build summary."""
        used, skipped = sum(self.used.values()), sum(self.skipped.values())
        text = (
            f"lines: {self.read} read = {used} used ({_parts(self.used)}) + {skipped} skipped "
            f"({_parts(self.skipped)})"
        )
        lost = sum(self.unaccounted.values())
        return text + (f" + {lost} unaccounted ({_parts(self.unaccounted)})" if lost else "")


def _parts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in counts.items()) or "none"
