"""Report figures stay readable with 1 and with 12 rows: measured on the drawn figure, the `n=`
labels never touch an error bar or each other and stay inside their axes; series keep distinct
colours; many series stack the panels."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from agentsense.prompts import GOAL_CATEGORIES
from agentsense.report.plots import DIFFERENCE_LIMITS, SCORE_LIMITS, Panel, draw_bars
from agentsense.report.stats import mean_ci

LEVELS = list(GOAL_CATEGORIES)  # the x labels of the by-category figure


def panels(rows: int, signed: bool = False, seed: int = 0) -> list[Panel]:
    """Three panels of `rows` series over the 8 goal categories, with wide and narrow CIs."""
    rng = np.random.default_rng(seed)

    def values() -> list[float]:
        n = int(rng.integers(2, 300))
        if signed:
            return list(rng.normal(rng.uniform(-0.6, 0.6), 0.5, n))
        return list(rng.binomial(1, rng.uniform(0.0, 1.0), n).astype(float))

    names = [f"vllm/organisation/model-{k:02d}-7B-Instruct" for k in range(rows)]
    return [
        Panel(title, LEVELS, {name: [mean_ci(values()) for _ in LEVELS] for name in names})
        for title in ("Self", "Other", "Judge majority")
    ]


def error_bars(axes: Any) -> list[tuple[float, float, float]]:
    """(x, low, high) of every error bar of the axes, in display coordinates."""
    found = []
    for collection in axes.collections:
        if isinstance(collection, LineCollection):
            for segment in collection.get_segments():
                (x, y0), (_, y1) = axes.transData.transform(segment)
                found.append((x, min(y0, y1), max(y0, y1)))
    return found


def n_labels(figure: Figure, axes: Any) -> list[Bbox]:
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    return [t.get_window_extent(renderer) for t in axes.texts if t.get_text().startswith("n=")]


def check_readable(figure: Figure, series: int) -> None:
    figure.canvas.draw()
    for axes in figure.axes:
        labels = n_labels(figure, axes)
        bars = error_bars(axes)
        assert labels and len(bars) == len(labels)
        frame = axes.get_window_extent()
        for box in labels:
            assert frame.y0 <= box.y0 and box.y1 <= frame.y1 + 0.5  # inside the axes
            for x, low, high in bars:
                touches = box.x0 - 2 <= x <= box.x1 + 2 and low < box.y1 and box.y0 < high
                assert not touches, f"n label {box} crosses the error bar at x={x}"
        for a, b in itertools.combinations(labels, 2):
            assert not a.overlaps(b), "two n labels overlap"
        colours = {tuple(patch.get_facecolor()) for patch in axes.patches}
        assert len(colours) == series


@pytest.mark.parametrize("rows", [1, 12])
@pytest.mark.parametrize("signed", [False, True])
def test_bars_are_readable(rows: int, signed: bool) -> None:
    limits = DIFFERENCE_LIMITS if signed else SCORE_LIMITS
    figure = draw_bars(panels(rows, signed), f"{rows} rows", limits=limits)
    check_readable(figure, rows)
    grid = figure.axes[0].get_subplotspec().get_gridspec().get_geometry()  # type: ignore[union-attr]
    # 12 series x 8 levels = 96 bars per panel: one panel per row; 8 bars: side by side.
    assert grid == ((3, 1) if rows == 12 else (1, 3))


def test_one_bar_does_not_fill_its_panel() -> None:
    one = [Panel("Judge majority", ["vllm/a"], {"mean": [mean_ci([0.2, 0.4, 0.9])]})]
    figure = draw_bars(one, "one row")
    check_readable(figure, 1)
    axes = figure.axes[0]
    bar = axes.patches[0].get_window_extent()
    assert bar.width < axes.get_window_extent().width / 2
