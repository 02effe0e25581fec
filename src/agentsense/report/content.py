"""What a report section returns: its Markdown, or `Absent` with the reason it is left out."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Absent:
    """A section left out, and why (one line in the report and on the console)."""

    reason: str


Content = str | Absent
