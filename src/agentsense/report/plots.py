"""PNG figures (matplotlib, Agg backend): bars with 95% CI error bars and n, and pair heatmaps.

Every figure is also described in `figures.json` (title, panels, x labels, series with mean,
CI and n), so what a plot shows can be checked without looking at it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .stats import Estimate, as_estimate

PERCENT = 100.0
MAX_LABEL = 40


@dataclass
class Panel:
    """One subplot: bars for each series at each x label."""

    title: str
    x: list[str]
    series: dict[str, list[Estimate | None]]


@dataclass
class FigureRecord:
    file: str
    title: str
    kind: str
    panels: list[dict[str, Any]] = field(default_factory=list)


def _short(label: str) -> str:
    """Long labels lose their middle, so both models of a pair stay recognisable."""
    if len(label) <= MAX_LABEL:
        return label
    keep = (MAX_LABEL - 1) // 2
    return label[:keep] + "…" + label[-keep:]


def _values(
    estimates: list[Estimate | None], limits: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Means and error-bar lengths in %, the interval clipped to the axis range (bounded scores)."""
    means: list[float] = []
    errors: list[list[float]] = [[], []]
    counts: list[int] = []
    for value in estimates:
        mean = value.mean * PERCENT if value is not None and value.n else math.nan
        low = (
            max(limits[0], value.low * PERCENT)
            if value is not None and not math.isnan(value.low)
            else mean
        )
        high = (
            min(limits[1], value.high * PERCENT)
            if value is not None and not math.isnan(value.high)
            else mean
        )
        means.append(mean)
        errors[0].append(max(0.0, mean - low) if not math.isnan(mean) else 0.0)
        errors[1].append(max(0.0, high - mean) if not math.isnan(mean) else 0.0)
        counts.append(value.n if value is not None else 0)
    return np.asarray(means), np.nan_to_num(np.asarray(errors)), counts


def _draw_panel(axes: Any, panel: Panel, ylabel: str, limits: tuple[float, float]) -> None:
    positions = np.arange(len(panel.x))
    width = 0.8 / max(1, len(panel.series))
    for k, (name, estimates) in enumerate(panel.series.items()):
        means, errors, counts = _values(estimates, limits)
        offset = positions - 0.4 + width * (k + 0.5)
        axes.bar(offset, np.nan_to_num(means), width, yerr=errors, capsize=2, label=_short(name))
        for x, mean, n in zip(offset, means, counts, strict=True):
            if n and not math.isnan(mean):
                # n at the foot of each bar, vertical, so labels never collide with error bars.
                axes.annotate(
                    f"n={n}",
                    (x, 0),
                    ha="center",
                    va="bottom" if mean >= 0 else "top",
                    rotation=90,
                    fontsize=6,
                    xytext=(0, 2 if mean >= 0 else -2),
                    textcoords="offset points",
                )
    axes.set_xticks(positions, [_short(x) for x in panel.x], rotation=30, ha="right", fontsize=8)
    axes.set_title(panel.title, fontsize=10)
    axes.set_ylabel(ylabel)
    axes.set_ylim(*limits)
    axes.axhline(0, color="black", linewidth=0.5)


def _panel_record(panel: Panel) -> dict[str, Any]:
    return {
        "title": panel.title,
        "x": panel.x,
        "series": {
            name: [asdict(e) if e is not None else None for e in estimates]
            for name, estimates in panel.series.items()
        },
    }


SCORE_LIMITS = (0.0, 100.0)
DIFFERENCE_LIMITS = (-100.0, 100.0)


def bar_figure(
    panels: list[Panel],
    title: str,
    path: Path,
    ylabel: str = "score (%, mean ± 95% CI)",
    limits: tuple[float, float] = SCORE_LIMITS,
) -> FigureRecord:
    width = max(6.0, min(18.0, sum(len(p.x) * max(1, len(p.series)) for p in panels) * 0.35 + 3))
    figure, axes = plt.subplots(1, len(panels), figsize=(width, 4.5), squeeze=False)
    for axis, panel in zip(axes[0], panels, strict=True):
        _draw_panel(axis, panel, ylabel, limits)
    handles, labels = axes[0][0].get_legend_handles_labels()
    if len(labels) > 1:
        figure.legend(handles, labels, loc="upper right", fontsize=7)
    figure.suptitle(title, fontsize=11)
    figure.tight_layout(rect=(0, 0, 0.85 if len(labels) > 1 else 1, 0.95))
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return FigureRecord(path.name, title, "bars", [_panel_record(p) for p in panels])


def heatmap_figure(
    matrix: pd.DataFrame, title: str, path: Path, rows: str, columns: str
) -> FigureRecord:
    """Rows x columns of Estimate cells, coloured by the mean, annotated with mean ± CI and n."""
    cells = [
        [as_estimate(matrix.iat[i, j]) for j in range(matrix.shape[1])]
        for i in range(matrix.shape[0])
    ]
    means = np.array(
        [[c.mean * PERCENT if c is not None else np.nan for c in row] for row in cells]
    )
    size = (max(4.5, 1.6 * matrix.shape[1] + 2.5), max(3.5, 1.2 * matrix.shape[0] + 1.5))
    figure, axes = plt.subplots(figsize=size)
    image = axes.imshow(np.ma.masked_invalid(means), cmap="viridis", vmin=0, vmax=PERCENT)
    for i, row in enumerate(cells):
        for j, value in enumerate(row):
            if value is not None and value.n:
                half = (
                    "" if math.isnan(value.half_width) else f"\n± {value.half_width * PERCENT:.1f}"
                )
                axes.text(
                    j,
                    i,
                    f"{value.mean * PERCENT:.1f}{half}\nn={value.n}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if value.mean < 0.6 else "black",
                )
    axes.set_xticks(
        range(matrix.shape[1]), [_short(str(c)) for c in matrix.columns], rotation=30, ha="right"
    )
    axes.set_yticks(range(matrix.shape[0]), [_short(str(r)) for r in matrix.index])
    axes.set_xlabel(columns)
    axes.set_ylabel(rows)
    axes.set_title(title, fontsize=10)
    figure.colorbar(image, ax=axes, label="%")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    record = {
        "title": title,
        "rows": [str(r) for r in matrix.index],
        "columns": [str(c) for c in matrix.columns],
        "cells": [[asdict(c) if c is not None else None for c in row] for row in cells],
    }
    return FigureRecord(path.name, title, "heatmap", [record])
