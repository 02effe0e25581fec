"""PNG figures (matplotlib, Agg backend): bars with 95% CI error bars and n, and pair heatmaps.

Every figure is also described in `figures.json` (title, panels, x labels, series with mean,
CI and n), so what a plot shows can be checked without looking at it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from agentsense.analysis.stats import Estimate, as_estimate

PERCENT = 100.0
MAX_LABEL = 40
SCORE_LIMITS = (0.0, 100.0)
DIFFERENCE_LIMITS = (-100.0, 100.0)


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


def _interval(value: Estimate | None, limits: tuple[float, float]) -> tuple[float, float] | None:
    """The 95% CI in %, clipped to the axis range (bounded scores); None when there is none."""
    if value is None or not value.n or math.isnan(value.low) or math.isnan(value.high):
        return None
    return max(limits[0], value.low * PERCENT), min(limits[1], value.high * PERCENT)


def _values(
    estimates: list[Estimate | None], limits: tuple[float, float]
) -> tuple[np.ndarray, list[tuple[float, float] | None], list[int]]:
    """Means in %, each bar's interval (None: no interval, so no error bar) and n."""
    means = [
        value.mean * PERCENT if value is not None and value.n else math.nan for value in estimates
    ]
    intervals = [_interval(value, limits) for value in estimates]
    counts = [value.n if value is not None else 0 for value in estimates]
    return np.asarray(means), intervals, counts


def _error_bars(
    axes: Any, x: np.ndarray, means: np.ndarray, intervals: list[tuple[float, float] | None]
) -> None:
    """Error bars for the bars that have an interval only: no zero-width caps that look certain."""
    drawn = [k for k, band in enumerate(intervals) if band is not None and not math.isnan(means[k])]
    if not drawn:
        return
    lower = [max(0.0, means[k] - intervals[k][0]) for k in drawn]  # type: ignore[index]
    upper = [max(0.0, intervals[k][1] - means[k]) for k in drawn]  # type: ignore[index]
    axes.errorbar(
        x[drawn],
        means[drawn],
        yerr=[lower, upper],
        fmt="none",
        ecolor="black",
        elinewidth=1,
        capsize=2,
    )


N_FONT = 8  # points
NO_INTERVAL = "A bar without an error bar has no 95% CI (a single template or scene)."
CHARACTER_WIDTH = 0.62  # of the font size: a digit of the default sans-serif font
STACK_ABOVE = 12  # bars per panel beyond which panels are stacked, one per row
MIN_SLOTS = 3
CELL_FONT = 8  # points, heat map annotations
EQUAL_CONTRAST = 0.179  # relative luminance with the same contrast to black and to white


@dataclass(frozen=True)
class Layout:
    """How a bar figure is laid out: panels side by side or stacked, and the n labels' angle."""

    columns: int
    rows: int
    width: float  # inches
    height: float
    flat_labels: bool

    @property
    def headroom(self) -> float:
        """Room above the axis range for the n labels, as a fraction of the range."""
        return 0.1 if self.flat_labels else 0.3


def layout(panels: list[Panel]) -> Layout:
    bars = max(len(p.x) * max(1, len(p.series)) for p in panels)
    labels = max(len(p.x) for p in panels)
    stacked = bars > STACK_ABOVE and len(panels) > 1
    columns = 1 if stacked else len(panels)
    # Per panel: room for each bar and for each slanted x label.
    panel_width = max(2.6, bars * 0.2, labels * 0.6)
    width = max(6.0, min(18.0, panel_width * columns + 1.5))
    # Bar width in points: the axes take about 80% of a panel's width.
    bar_points = width / columns * 72 * 0.8 / bars * 0.8
    rows = len(panels) if stacked else 1
    return Layout(columns, rows, width, 3.4 * rows + 1.2, bar_points >= _label_points(panels))


def _label_points(panels: list[Panel]) -> float:
    """Width in points of the longest `n=` label, with a margin: the bar width it needs to lie
    flat."""
    largest = max(
        (e.n for p in panels for series in p.series.values() for e in series if e is not None),
        default=0,
    )
    return N_FONT * CHARACTER_WIDTH * len(f"n={largest}") + 4


def _colours(count: int) -> list[Any]:
    """Distinct colours for up to 20 series (the default cycle repeats after 10)."""
    cmap = plt.get_cmap("tab10" if count <= 10 else "tab20")
    return [cmap(k % cmap.N) for k in range(count)]


def _draw_panel(
    axes: Any, panel: Panel, ylabel: str, limits: tuple[float, float], shape: Layout
) -> None:
    positions = np.arange(len(panel.x))
    width = 0.8 / max(1, len(panel.series))
    colours = _colours(len(panel.series))
    for k, (name, estimates) in enumerate(panel.series.items()):
        means, intervals, counts = _values(estimates, limits)
        offset = positions - 0.4 + width * (k + 0.5)
        axes.bar(offset, np.nan_to_num(means), width, label=_short(name), color=colours[k])
        _error_bars(axes, offset, means, intervals)
        for x, mean, band, n in zip(offset, means, intervals, counts, strict=True):
            if n and not math.isnan(mean):
                # n sits above the error bar's top (or above 0 for a negative bar), so the two
                # never overlap; the axis has headroom above its range for it.
                top = band[1] if band is not None else mean
                axes.annotate(
                    f"n={n}",
                    (x, max(top, mean, 0.0)),
                    ha="center",
                    va="bottom",
                    rotation=0 if shape.flat_labels else 90,
                    fontsize=N_FONT,
                    xytext=(0, 2),
                    textcoords="offset points",
                )
    axes.set_xticks(positions, [_short(x) for x in panel.x], rotation=35, ha="right", fontsize=8)
    # At least MIN_SLOTS slots wide, so one or two bars do not fill the whole panel.
    pad = max(0, MIN_SLOTS - len(panel.x)) / 2
    axes.set_xlim(-0.5 - pad, len(panel.x) - 0.5 + pad)
    axes.set_title(panel.title, fontsize=10)
    axes.set_ylabel(ylabel, fontsize=8)
    span = limits[1] - limits[0]
    axes.set_ylim(limits[0], limits[1] + span * shape.headroom)
    axes.set_yticks(np.linspace(limits[0], limits[1], 5))
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


def draw_bars(
    panels: list[Panel],
    title: str,
    ylabel: str = "score (%, mean and 95% CI)",
    limits: tuple[float, float] = SCORE_LIMITS,
) -> Figure:
    """The figure of `bar_figure`, not saved (tests measure it)."""
    shape = layout(panels)
    figure, axes = plt.subplots(
        shape.rows, shape.columns, figsize=(shape.width, shape.height), squeeze=False
    )
    for axis, panel in zip(axes.flat, panels, strict=True):
        _draw_panel(axis, panel, ylabel, limits, shape)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if len(labels) > 1:
        # Outside the panels, on the right; the saved image grows to hold it.
        figure.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7)
    if any(
        e is not None and e.n and _interval(e, limits) is None
        for p in panels
        for series in p.series.values()
        for e in series
    ):
        figure.supxlabel(NO_INTERVAL, fontsize=N_FONT)
    figure.suptitle(title, fontsize=11)
    figure.tight_layout()
    return figure


def _saved(figure: Figure, path: Path) -> None:
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)


def bar_figure(
    panels: list[Panel],
    title: str,
    path: Path,
    ylabel: str = "score (%, mean and 95% CI)",
    limits: tuple[float, float] = SCORE_LIMITS,
) -> FigureRecord:
    _saved(draw_bars(panels, title, ylabel, limits), path)
    return FigureRecord(path.name, title, "bars", [_panel_record(p) for p in panels])


def text_colour(background: Any) -> str:
    """Black or white, whichever contrasts more with the background: black above the relative
    luminance (WCAG 2) at which both contrast ratios are equal, (L + 0.05) / 0.05 = 1.05 /
    (L + 0.05), i.e. L = 0.179."""
    linear = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(background)
    ]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return "black" if luminance > EQUAL_CONTRAST else "white"


def _annotate(
    axes: Any, image: Any, values: np.ndarray, texts: Sequence[Sequence[str | None]]
) -> None:
    """Each cell's text (None: none) in the colour that contrasts with its cell (no value: the
    white axes)."""
    for (i, j), text in np.ndenumerate(np.array(texts, dtype=object)):
        if text is not None:
            value = values[i, j]
            colour = "black" if math.isnan(value) else text_colour(image.cmap(image.norm(value)))
            axes.text(j, i, text, ha="center", va="center", fontsize=CELL_FONT, color=colour)


def _grid_record(title: str, matrix: pd.DataFrame, cells: list[list[Any]]) -> dict[str, Any]:
    return {
        "title": title,
        "rows": [str(r) for r in matrix.index],
        "columns": [str(c) for c in matrix.columns],
        "cells": cells,
    }


def _cells(matrix: pd.DataFrame) -> list[list[Estimate | None]]:
    return [
        [as_estimate(matrix.iat[i, j]) for j in range(matrix.shape[1])]
        for i in range(matrix.shape[0])
    ]


def _cell_text(value: Estimate | None) -> str | None:
    """Mean, 95% CI and n; the interval is asymmetric (Wilson), so its bounds, not a width."""
    if value is None or not value.n:
        return None
    bounds = (
        ""
        if math.isnan(value.half_width)
        else f"\n[{value.low * PERCENT:.1f}, {value.high * PERCENT:.1f}]"
    )
    return f"{value.mean * PERCENT:.1f}{bounds}\nn={value.n}"


def draw_heatmap(matrix: pd.DataFrame, title: str, rows: str, columns: str) -> Figure:
    """The figure of `heatmap_figure`, not saved (tests measure it)."""
    cells = _cells(matrix)
    means = np.array(
        [[c.mean * PERCENT if c is not None else np.nan for c in row] for row in cells]
    )
    size = (max(4.5, 1.6 * matrix.shape[1] + 2.5), max(3.5, 1.2 * matrix.shape[0] + 1.5))
    figure, axes = plt.subplots(figsize=size)
    image = axes.imshow(np.ma.masked_invalid(means), cmap="viridis", vmin=0, vmax=PERCENT)
    _annotate(axes, image, means, [[_cell_text(c) for c in row] for row in cells])
    axes.set_xticks(
        range(matrix.shape[1]), [_short(str(c)) for c in matrix.columns], rotation=30, ha="right"
    )
    axes.set_yticks(range(matrix.shape[0]), [_short(str(r)) for r in matrix.index])
    axes.set_xlabel(columns)
    axes.set_ylabel(rows)
    axes.set_title(title, fontsize=10)
    figure.colorbar(image, ax=axes, label="%")
    figure.tight_layout()
    return figure


def heatmap_figure(
    matrix: pd.DataFrame, title: str, path: Path, rows: str, columns: str
) -> FigureRecord:
    """Rows x columns of Estimate cells, coloured by the mean, annotated with mean, 95% CI and n."""
    _saved(draw_heatmap(matrix, title, rows, columns), path)
    cells = [[asdict(c) if c is not None else None for c in row] for row in _cells(matrix)]
    return FigureRecord(path.name, title, "heatmap", [_grid_record(title, matrix, cells)])


def draw_agreement(matrices: dict[str, pd.DataFrame], title: str) -> Figure:
    """The figure of `agreement_heatmaps`, not saved (tests measure it)."""
    count = len(matrices)
    side = max(3.2, 1.1 * max(m.shape[0] for m in matrices.values()) + 1.6)
    # Constrained layout leaves each panel room for its judge names (they are long model names).
    figure, axes_list = plt.subplots(
        1, count, figsize=(side * count + 1.0, side), squeeze=False, layout="constrained"
    )
    image = None
    first_labels: list[str] | None = None
    for axes, (run, matrix) in zip(axes_list[0], matrices.items(), strict=True):
        values = matrix.to_numpy(dtype=float)
        image = axes.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=-1.0, vmax=1.0)
        texts = [["–" if math.isnan(v) else f"{v:.2f}" for v in row] for row in values]
        _annotate(axes, image, values, texts)
        labels = [_short(str(c)) for c in matrix.columns]
        axes.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
        # A later panel with the first one's judges names them once, at the left.
        repeated = first_labels == labels
        axes.set_yticks(range(len(labels)), [] if repeated else labels)
        first_labels = first_labels or labels
        axes.set_title(_short(run), fontsize=9)
    if image is not None:
        figure.colorbar(image, ax=list(axes_list[0]), label="Cohen's κ")
    figure.suptitle(title, fontsize=10)
    return figure


def agreement_heatmaps(matrices: dict[str, pd.DataFrame], title: str, path: Path) -> FigureRecord:
    """One square of pairwise agreement (Cohen's κ, -1..1) per run, judges (by model) on both
    axes."""
    _saved(draw_agreement(matrices, title), path)
    records = [
        _grid_record(
            run,
            matrix,
            [[None if math.isnan(v) else float(v) for v in row] for row in matrix.to_numpy(float)],
        )
        for run, matrix in matrices.items()
    ]
    return FigureRecord(path.name, title, "heatmap", records)
