"""What several sections use: which runs are scored, bar panels, number cells, a section
module's `Section` written out."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from ...analysis.stats import Estimate
from ..content import Absent, Content
from ..document import Report
from ..frames import Units
from ..headers import HEADERS
from ..plots import Panel
from ..render import Section, wide


def has_values(frame: pd.DataFrame, column: str) -> bool:
    return column in frame.columns and bool(frame[column].notna().any())


def scored_scenes(units: Units) -> pd.DataFrame:
    return units.scenes[units.scenes["kind"].isin(["homogeneous", "pairwise", "blind"])]


def written(section: Section | str, report: Report) -> Content:
    """A section from its own module: its CSVs written, its Markdown returned."""
    if isinstance(section, str):
        return Absent(section)
    for name, frame in section.tables.items():
        report.csv(frame, name)
    return section.text


def bar_panels(frame: pd.DataFrame, by: str, metrics: Sequence[str]) -> list[Panel]:
    panels = []
    for metric in metrics:
        table = wide(frame, by, metric)
        if table.empty:
            continue
        series = {
            str(group): [v if isinstance(v, Estimate) else None for v in table[group]]
            for group in table.columns
        }
        panels.append(
            Panel(HEADERS.get(metric, metric), [str(level) for level in table.index], series)
        )
    return panels


def number(value: object, digits: int = 2) -> str:
    return "–" if not isinstance(value, float | int) or math.isnan(value) else f"{value:.{digits}f}"


def percent(value: object) -> str:
    if not isinstance(value, float | int) or math.isnan(value):
        return "–"
    return f"{100 * value:.1f}"
