"""The numbers Mou et al. (2024) publish per model in Tables 1, 2, 6 and 7, read from `paper.csv`.

One cell a line, as the paper prints it (docs/reference.md says what each table and unit holds).
The values are data, not literals here, so a correction is a one-line diff a reader can check
against the paper.
"""

from __future__ import annotations

import csv
import functools
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentsense.engine.errors import ReportError

__all__ = ["PaperCell", "cell", "paper_models", "published_cells", "read_cells"]

TableId = Literal["1", "2", "6", "7"]
# percent: a rate on 0-100; percentage points: a std of such rates (PSI, Table 7's std);
# percent change: Table 7's relative gap to Table 1; fraction: an accuracy on 0-1 (Tables 2, 6).
Unit = Literal["percent", "percentage points", "percent change", "fraction"]


class PaperCell(BaseModel):
    """One published value: its table, the model (row) and column as printed, and its unit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    table: TableId
    row: str = Field(min_length=1)
    column: str = Field(min_length=1)
    value: float = Field(allow_inf_nan=False)
    unit: Unit


FIELDS = tuple(PaperCell.model_fields)


def packaged_csv() -> Path:
    return Path(str(resources.files("agentsense.sense.reference") / "paper.csv"))


def read_cells(path: Path | None = None) -> tuple[PaperCell, ...]:
    """Every cell of `path` (the packaged paper.csv by default), validated line by line."""
    source = path or packaged_csv()
    with source.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        _check_header(source, reader.fieldnames)
        cells: dict[tuple[str, str, str], tuple[int, PaperCell]] = {}
        for record in reader:
            found = _cell(source, reader.line_num, record)
            key = (found.table, _fold(found.row), _fold(found.column))
            if key in cells:
                line, _ = cells[key]
                raise ReportError(
                    f"{source}, line {reader.line_num}: Table {found.table}, {found.row}, "
                    f"{found.column} is also on line {line}; keep one of the two lines."
                )
            cells[key] = (reader.line_num, found)
    return tuple(found for _, found in cells.values())


def _check_header(source: Path, header: Sequence[str] | None) -> None:
    if tuple(header or ()) != FIELDS:
        raise ReportError(
            f"{source}, line 1: the header is {','.join(header or [])!r}; "
            f"expected {','.join(FIELDS)!r}."
        )


def _cell(source: Path, line: int, record: dict[str | None, str | None]) -> PaperCell:
    """One line as a cell; a bad line names its line number and each bad field."""
    if None in record or None in record.values():  # DictReader's marks of a wrong field count
        raise ReportError(f"{source}, line {line}: expected {len(FIELDS)} fields ({FIELDS}).")
    try:
        return PaperCell.model_validate(record)
    except ValidationError as error:
        problems = "; ".join(
            f"field {'.'.join(map(str, p['loc']))!r}: {p['msg']} (found {p.get('input')!r})"
            for p in error.errors()
        )
        raise ReportError(f"{source}, line {line}: {problems}") from None


@functools.cache
def published_cells() -> tuple[PaperCell, ...]:
    """The packaged cells, read once."""
    return read_cells()


def _fold(text: str) -> str:
    """Case, spacing and the paper's '↓' (lower is better) do not tell two names apart."""
    return re.sub(r"\s+", " ", text.replace("↓", "")).strip().casefold()


@functools.cache
def _index() -> dict[tuple[str, str, str], PaperCell]:
    return {(c.table, _fold(c.row), _fold(c.column)): c for c in published_cells()}


def cell(table: str | int, model: str, column: str) -> PaperCell | None:
    """The published cell of `model` (the paper's name, any case) in `column`, or None.

    `column` is the printed header with its group headers, e.g. "Goal / Judge / Majority";
    case, spacing and '↓' are ignored. A serving name goes through `model_names.paper_model`.
    """
    return _index().get((str(table), _fold(model), _fold(column)))


@functools.cache
def paper_models() -> dict[str, str]:
    """Every model of the four tables: its folded name -> its spelling where first printed.

    The paper prints 'Llama-3-8B' in Tables 1 and 7 and 'Llama-3-8b' in Tables 2 and 6: one model.
    """
    names: dict[str, str] = {}
    for found in published_cells():
        names.setdefault(_fold(found.row), found.row)
    return names
