"""Estimate tables -> Markdown (percentages, as in the paper) and flat CSV frames (fractions)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from ..analysis.stats import Estimate

DASH = "–"


@dataclass
class Section:
    """A section's Markdown and the CSV tables it writes (name -> frame)."""

    text: str
    tables: dict[str, pd.DataFrame]


def cell(value: object, percent: bool = True, with_n: bool = False) -> str:
    """`mean [low, high]` (× 100 when `percent`) with its caveat ("undefined (1 template)", "too
    few templates (k)"), `(n=..)` if asked; a dash for no value."""
    if not isinstance(value, Estimate):
        return (
            DASH
            if value is None or (isinstance(value, float) and math.isnan(value))
            else str(value)
        )
    if value.n == 0 or math.isnan(value.mean):
        return DASH
    scale = 100.0 if percent else 1.0
    digits = 1 if percent else 3
    text = f"{value.mean * scale:.{digits}f}"
    # The interval is asymmetric near the ends of the range: its bounds, not a ± half-width.
    if not math.isnan(value.half_width):
        text += f" [{value.low * scale:.{digits}f}, {value.high * scale:.{digits}f}]"
    if value.caveat:
        text += f", {value.caveat}" if value.caveat.startswith("too") else f" {value.caveat}"
    return text + (f" (n={value.n})" if with_n else "")


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(_escape(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_escape(str(c)) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def frame_markdown(
    frame: pd.DataFrame,
    index_name: str,
    percent: bool = True,
    with_n: bool = True,
    headers: dict[str, str] | None = None,
) -> str:
    """A frame of Estimate (or plain) cells as a Markdown table, the index as first column."""
    names = headers or {}
    head = [index_name, *(names.get(str(c), str(c)) for c in frame.columns)]
    rows = [
        [str(index), *(cell(v, percent, with_n) for v in row)]
        for index, row in zip(frame.index, frame.itertuples(index=False), strict=True)
    ]
    return markdown(head, rows)


def flat(frame: pd.DataFrame, index_name: str) -> pd.DataFrame:
    """Estimate cells -> `<col>_mean`, `<col>_ci_low`, `<col>_ci_high`, `<col>_n` (fractions)."""
    out: dict[str, list[object]] = {index_name: [str(i) for i in frame.index]}
    for column in frame.columns:
        values = list(frame[column])
        if any(isinstance(v, Estimate) for v in values):
            for part, attr in (
                ("mean", "mean"),
                ("ci_low", "low"),
                ("ci_high", "high"),
                ("n", "n"),
            ):
                out[f"{column}_{part}"] = [
                    getattr(v, attr) if isinstance(v, Estimate) else None for v in values
                ]
        else:
            out[str(column)] = values
    return pd.DataFrame(out)


def long_flat(frame: pd.DataFrame) -> pd.DataFrame:
    """A long breakdown (…, estimate) with the Estimate spread into mean/ci_low/ci_high/n."""
    if frame.empty:
        return frame.drop(columns=["estimate"], errors="ignore").assign(
            mean=[], ci_low=[], ci_high=[], n=[]
        )
    estimates = list(frame["estimate"])
    return frame.drop(columns=["estimate"]).assign(
        mean=[e.mean for e in estimates],
        ci_low=[e.low for e in estimates],
        ci_high=[e.high for e in estimates],
        n=[e.n for e in estimates],
    )


def wide(frame: pd.DataFrame, by: str, metric: str) -> pd.DataFrame:
    """A long breakdown -> levels (rows) x groups (columns) for one metric."""
    part = frame[frame["metric"] == metric]
    if part.empty:
        return pd.DataFrame()
    return part.pivot(index=by, columns="group", values="estimate")
