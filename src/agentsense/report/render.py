"""Estimate tables -> Markdown (percentages, as in the paper) and flat CSV frames (fractions), and
the column headers of the report (score keys are headed as `score_keys.HEADERS` declares them)."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any

import pandas as pd

from agentsense.analysis.stats import Estimate
from agentsense.report.plots import Panel
from agentsense.sense.score_keys import HEADERS as SCORE_HEADERS

DASH = "–"
HEADERS = {
    "kind": "Run",
    **SCORE_HEADERS,
    "goal_psi": "Goal PSI ↓",
    "mcq_psi": "MCQ PSI ↓",
    "gain_over_blind": "MCQ − blind (paired)",
    "attack": "Attack",
    "defence": "Defence",
    "overconfidence": "Self − judge majority",
}


def header(name: str) -> str:
    return HEADERS.get(name, name)


def missing(value: object) -> bool:
    return not isinstance(value, float | int) or math.isnan(value)


def number(value: object, digits: int = 2, sign: str = "") -> str:
    """`value` to `digits` decimals (`sign="+"`: signed), a dash for no value."""
    return DASH if missing(value) else f"{value:{sign}.{digits}f}"


def percent(value: object) -> str:
    return DASH if missing(value) else f"{100 * value:.1f}"  # type: ignore[operator]


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


def by_clusters(text: str, clusters: str) -> str:
    """A cell whose interval is clustered by `clusters` (books, environments), not templates: its
    caveat names them."""
    return text.replace("templates", f"{clusters}s").replace("template", clusters)


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(_escape(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_escape(str(c)) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def frame_markdown(
    frame: pd.DataFrame, index_name: str, percent: bool = True, with_n: bool = True
) -> str:
    """A frame of Estimate (or plain) cells as a Markdown table, the index as first column."""
    head = [index_name, *(header(str(c)) for c in frame.columns)]
    rows = [
        [str(index), *(cell(v, percent, with_n) for v in row)]
        for index, row in zip(frame.index, frame.itertuples(index=False), strict=True)
    ]
    return markdown(head, rows)


PARTS = {"mean": "mean", "ci_low": "low", "ci_high": "high"}


def estimate_columns(
    values: Sequence[object], prefix: str = "", scale: float = 1.0
) -> dict[str, list[Any]]:
    """Estimate cells as the CSV columns `<prefix>mean`, `ci_low`, `ci_high` (× `scale`) and
    `n`; None where a cell holds no Estimate."""
    columns: dict[str, list[Any]] = {
        f"{prefix}{part}": [
            getattr(v, attr) * scale if isinstance(v, Estimate) else None for v in values
        ]
        for part, attr in PARTS.items()
    }
    columns[f"{prefix}n"] = [v.n if isinstance(v, Estimate) else None for v in values]
    return columns


def spread(table: pd.DataFrame, keys: Sequence[str], points: Collection[str] = ()) -> pd.DataFrame:
    """The Estimate columns `keys` spread into `<key>_mean`, `_ci_low`, `_ci_high`, `_n` at the
    end (× 100 for the `points` keys: scores on a 0-100 scale)."""
    out = table.drop(columns=list(keys))
    for key in keys:
        scale = 100.0 if key in points else 1.0
        out = out.assign(**estimate_columns(list(table[key]), f"{key}_", scale))
    return out


def flat(frame: pd.DataFrame, index_name: str) -> pd.DataFrame:
    """Estimate cells -> `<col>_mean`, `<col>_ci_low`, `<col>_ci_high`, `<col>_n` (fractions)."""
    out: dict[str, list[object]] = {index_name: [str(i) for i in frame.index]}
    for column in frame.columns:
        values = list(frame[column])
        if any(isinstance(v, Estimate) for v in values):
            out.update(estimate_columns(values, f"{column}_"))
        else:
            out[str(column)] = values
    return pd.DataFrame(out)


def long_flat(frame: pd.DataFrame) -> pd.DataFrame:
    """A long breakdown (…, estimate) with the Estimate spread into mean/ci_low/ci_high/n."""
    estimates = list(frame["estimate"]) if "estimate" in frame.columns else []
    return frame.drop(columns=["estimate"], errors="ignore").assign(**estimate_columns(estimates))


def wide(frame: pd.DataFrame, by: str, metric: str) -> pd.DataFrame:
    """A long breakdown -> levels (rows) x groups (columns) for one metric."""
    part = frame[frame["metric"] == metric]
    if part.empty:
        return pd.DataFrame()
    return part.pivot(index=by, columns="group", values="estimate")


def bar_panels(frame: pd.DataFrame, by: str, metrics: Sequence[str]) -> list[Panel]:
    """One bar panel per metric of a long breakdown: its levels, one series per group."""
    panels = []
    for metric in metrics:
        table = wide(frame, by, metric)
        if table.empty:
            continue
        series = {
            str(group): [v if isinstance(v, Estimate) else None for v in table[group]]
            for group in table.columns
        }
        panels.append(Panel(header(metric), [str(level) for level in table.index], series))
    return panels
