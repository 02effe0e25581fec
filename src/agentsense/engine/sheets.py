"""The sheets people fill in a spreadsheet and give back (the construction review sheet, the
annotation sheet of `agentsense annotate`): one way to write, read and refuse them.

A sheet is CSV with a BOM, so spreadsheet programs read its text as UTF-8. It is read back with
every cell as text, whatever delimiter the spreadsheet saved it with (some locales save `;`),
and a sheet that cannot be used is refused with every problem named by its row or column.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

ENCODING = "utf-8-sig"
DELIMITERS = (",", ";", "\t")


def write_sheet(path: Path, columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding=ENCODING) as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def read_sheet(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The columns and rows of a filled sheet, every cell as text ("" where a row is short);
    the delimiter is the one that splits the header into the most columns."""
    with path.open(newline="", encoding=ENCODING) as handle:
        delimiter = max(DELIMITERS, key=handle.readline().count)
        handle.seek(0)
        reader = csv.DictReader(handle, delimiter=delimiter, restval="")
        rows = list(reader)
    return list(reader.fieldnames or []), rows


class SheetError(ValueError):
    """A filled sheet that cannot be used; every problem is named by row or column."""

    MAX_LISTED = 25

    def __init__(self, problems: Sequence[object], outcome: str, hint: str) -> None:
        self.problems = list(problems)
        shown = "\n".join(f"  - {p}" for p in self.problems[: self.MAX_LISTED])
        more = len(self.problems) - self.MAX_LISTED
        tail = f"\n  ... and {more} more" if more > 0 else ""
        super().__init__(
            f"{len(self.problems)} problem(s) in the sheet, {outcome}:\n{shown}{tail}\n{hint}"
        )
