"""Report figures stay readable with 1 and with 12 rows: measured on the drawn figure, the `n=`
labels never touch an error bar or each other and stay inside their axes; series keep distinct
colours; many series stack the panels."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from agentsense.analysis.stats import Estimate, mean_ci
from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions
from agentsense.report.plots import (
    DIFFERENCE_LIMITS,
    NO_INTERVAL,
    SCORE_LIMITS,
    Panel,
    draw_agreement,
    draw_bars,
    draw_heatmap,
)
from agentsense.sense.prompts import GOAL_CATEGORIES
from agentsense_logs import JUDGES

LEVELS = list(GOAL_CATEGORIES)
NAN = float("nan")  # the x labels of the by-category figure


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


# --- issue 20: no interval, no error bar; readable n; contrast; judges by model ------------------


def caps(axes: Any) -> list[float]:
    """x (display coordinates) of every error-bar cap of the axes."""
    found = []
    for line in axes.lines:
        if line.get_marker() in ("_", 2, 3):  # caps are horizontal-line markers
            for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True):
                found.append(axes.transData.transform((x, y))[0])
    return found


def test_no_interval_draws_no_error_bar() -> None:
    # One scene, a single template (no interval), and two ordinary ones.
    no_interval = Estimate(0.5, NAN, NAN, 1, 1)
    estimates = [mean_ci([0.2, 0.4, 0.9]), no_interval, mean_ci([1.0, 0.0, 1.0, 1.0])]
    panel = Panel("Judge majority", ["vllm/a", "vllm/b", "vllm/c"], {"mean": estimates})
    figure = draw_bars([panel], "mixed")
    figure.canvas.draw()
    (axes,) = figure.axes
    centres = [
        (box.x0 + box.x1) / 2 for box in (patch.get_window_extent() for patch in axes.patches)
    ]
    drawn = sorted(x for x, _, _ in error_bars(axes))
    assert drawn == pytest.approx([centres[0], centres[2]])  # none at the bar without one
    assert all(abs(cap - centres[1]) > 1 for cap in caps(axes))
    assert len(caps(axes)) == 4  # two caps per error bar drawn, none of zero width
    assert len(n_labels(figure, axes)) == 3  # n is still shown for every bar
    assert figure.get_supxlabel() == NO_INTERVAL  # and the figure says why one has no bar
    every = draw_bars(panels(1), "all with intervals")
    assert not every.get_supxlabel()


def test_n_labels_are_readable_at_every_size() -> None:
    for rows in (1, 12):
        figure = draw_bars(panels(rows), f"{rows} rows")
        figure.canvas.draw()
        for axes in figure.axes:
            texts = [t for t in axes.texts if t.get_text().startswith("n=")]
            assert texts and min(t.get_fontsize() for t in texts) >= 8
            tick = axes.get_xticklabels()[0].get_fontsize()
            assert min(t.get_fontsize() for t in texts) >= tick  # not smaller than the labels


def contrast(a: Any, b: Any) -> float:
    """WCAG 2 contrast ratio of two colours."""

    def luminance(colour: Any) -> float:
        r, g, b = (
            c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour)
        )
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def cell_contrasts(figure: Figure) -> list[tuple[str, float]]:
    """(text, contrast with its cell) of every annotation of every heat map of the figure."""
    found = []
    for axes in figure.axes:
        if not axes.images:
            continue
        (image,) = axes.images
        values = image.get_array()
        for text in axes.texts:
            x, y = text.get_position()
            value = values[round(y), round(x)]
            background = "white" if np.ma.is_masked(value) else image.cmap(image.norm(value))
            found.append((text.get_text(), contrast(text.get_color(), background)))
    return found


def test_heat_map_annotations_contrast_with_their_cells() -> None:
    judges = ["openai/gpt-4o", "vllm/Qwen/Qwen2.5-72B-Instruct", "vllm/meta-llama/Llama-3-70B"]
    kappa = pd.DataFrame(
        [[1.0, 0.05, -0.9], [0.05, 1.0, NAN], [-0.9, NAN, 1.0]], index=judges, columns=judges
    )
    found = cell_contrasts(draw_agreement({"run": kappa}, "κ"))
    assert len(found) == 9 and {text for text, _ in found} >= {"1.00", "0.05", "-0.90", "–"}
    # WCAG AA for small text; the diagonal (dark blue) included.
    assert min(ratio for _, ratio in found) >= 4.5, found
    scores = pd.DataFrame(
        [[mean_ci([v, v, 1 - v]) for v in (0.0, 0.3, 0.5, 0.7, 1.0)]],
        index=["sender"],
        columns=list("abcde"),
    )
    found = cell_contrasts(draw_heatmap(scores, "pairs", "sender", "receiver"))
    assert len(found) == 5 and min(ratio for _, ratio in found) >= 4.5, found


@pytest.mark.parametrize("same_judges", [True, False])
def test_kappa_panels_side_by_side_keep_their_judge_names_off_each_other(
    same_judges: bool,
) -> None:
    first = ["vllm/Qwen/Qwen2.5-72B-Instruct", "vllm/meta-llama/Llama-3-70B", "openai/gpt-4o"]
    second = first if same_judges else [f"{name}-v2" for name in first]
    kappa = [[1.0, 0.1, 0.2], [0.1, 1.0, 0.3], [0.2, 0.3, 1.0]]
    matrices = {
        "run a": pd.DataFrame(kappa, index=first, columns=first),
        "run b": pd.DataFrame(kappa, index=second, columns=second),
    }
    figure = draw_agreement(matrices, "κ")
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    panels = [a for a in figure.axes if a.get_title()]
    assert len(panels) == 2
    for axes in panels:
        for other in panels:
            for label in axes.get_yticklabels():
                box = label.get_window_extent(renderer)
                if label.get_text():
                    assert not box.overlaps(other.get_window_extent()), label.get_text()
    # Each judge is named at least once at the left of a panel.
    named = {t.get_text() for a in panels for t in a.get_yticklabels() if t.get_text()}
    assert named == {*first, *second}


def test_the_kappa_heat_map_names_judges_by_model(
    kind_logs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    write_report([str(kind_logs["full"])], ReportOptions(out))
    records = json.loads((out / "figures.json").read_text(encoding="utf-8"))
    (kappa,) = [r for r in records if r["file"] == "judge_agreement.png"]
    (square,) = kappa["panels"]
    assert square["rows"] == square["columns"] == JUDGES
    pairs = pd.read_csv(out / "judge_pairs.csv")
    assert set(pairs["judge_a"]) == set(JUDGES) and set(pairs.columns) >= set(JUDGES)
