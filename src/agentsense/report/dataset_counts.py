"""`agentsense stats DATASET`: a dataset's counts (Table 3, Figure 4a): Markdown, CSV, a PNG."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from agentsense.report.render import markdown
from agentsense.sense.dataset.counts import (
    TOTAL,
    UNCATEGORISED,
    category_table,
    count_table,
    dataset_label,
)
from agentsense.sense.dataset.samples import load_scenarios
from agentsense.sense.prompts import SCENARIO_TYPES

FIGURE = "goal_categories.png"
HEADERS = {
    "templates": "Templates",
    "scenarios": "Scenarios",
    "characters": "Characters",
    "distinct_characters": "Distinct characters",
    "goals": "Goals",
    "judge_questions": "Judge questions",
    **{kind: kind.capitalize() for kind in SCENARIO_TYPES},
    "untyped": "Untyped",
    "scenarios_with_private_info": "Scenarios w/ private info",
    "characters_with_private_info": "Characters w/ private info",
    "mcqs": "MCQs",
    "scenarios_with_mcqs": "Scenarios w/ MCQs",
}


@dataclass
class DatasetCounts:
    dataset: str
    counts: pd.DataFrame
    categories: pd.DataFrame


def dataset_counts(dataset: str) -> DatasetCounts:
    """Load (and validate) the dataset, then count."""
    scenes = load_scenarios(dataset)
    label = dataset_label(dataset)
    return DatasetCounts(dataset, count_table(scenes, label), category_table(scenes, label))


def _used(frame: pd.DataFrame, columns: list[str]) -> list[str]:
    """Leave out the `untyped` / `uncategorised` columns when every count is 0."""
    return [c for c in columns if c not in ("untyped", UNCATEGORISED) or frame[c].sum() > 0]


def counts_markdown(result: DatasetCounts) -> str:
    counts = result.counts
    columns = _used(counts, list(HEADERS))
    main = markdown(
        ["Source", *(HEADERS[c] for c in columns)],
        [[row["source"], *(str(row[c]) for c in columns)] for row in counts.to_dict("records")],
    )
    wide = result.categories.pivot_table(
        index=["need", "category"],
        columns="source",
        values=["goals", "scenarios"],
        sort=False,
        aggfunc="sum",
    )
    sources = list(counts["source"])
    rows = []
    for need, category in wide.index:
        if category == UNCATEGORISED and wide.loc[(need, category)].sum() == 0:
            continue
        cells = [
            f"{int(wide.loc[(need, category), ('goals', s)])} / "
            f"{int(wide.loc[(need, category), ('scenarios', s)])}"
            for s in sources
        ]
        rows.append([need or "–", category, *cells])
    categories = markdown(["ERG need", "Goal category", *sources], rows)
    return (
        f"# Dataset statistics: {result.dataset}\n\n"
        "Counts per source script (records built by `agentsense/construct` carry "
        "`source.script`; others count under the dataset's name) (Table 3, §3.5).\n\n"
        f"{main}\n\n"
        "## Goals by ERG category (Figure 4a)\n\n"
        "Goals / scenarios with at least one goal of the category (a scenario may count under "
        f"several).\n\n{categories}\n"
    )


def category_figure(result: DatasetCounts, path: Path) -> Path:
    """Figure 4a: scenarios per goal category, stacked by source when there are several."""
    frame = result.categories[result.categories["source"] != TOTAL]
    totals = frame.groupby("category", sort=False)["scenarios"].sum()
    order = [c for c, n in totals.items() if c != UNCATEGORISED or n > 0]
    sources = list(dict.fromkeys(frame["source"]))
    needs = dict(zip(frame["category"], frame["need"], strict=False))
    positions = np.arange(len(order))[::-1]
    figure, axes = plt.subplots(figsize=(7.5, 0.45 * len(order) + 1.6))
    left = np.zeros(len(order))
    colours = plt.get_cmap("tab10")
    if len(sources) == 1:  # one source: colour by ERG need instead
        need_list = list(dict.fromkeys(needs[c] for c in order))
        part = frame.set_index("category")["scenarios"]
        values = np.array([float(part.get(c, 0)) for c in order])
        bar_colours = [colours(need_list.index(needs[c]) % 10) for c in order]
        axes.barh(positions, values, color=bar_colours)
        left += values
        handles = [Patch(color=colours(k % 10)) for k in range(len(need_list))]
        axes.legend(handles, [f"{n or '–'} need" for n in need_list], fontsize=7, loc="best")
    for k, source in enumerate(sources if len(sources) > 1 else []):
        part = frame[frame["source"] == source].set_index("category")["scenarios"]
        values = np.array([float(part.get(c, 0)) for c in order])
        axes.barh(positions, values, left=left, color=colours(k % 10), label=source)
        left += values
    for y, total in zip(positions, left, strict=True):
        axes.text(total, y, f" {int(total)}", va="center", fontsize=8)
    axes.set_yticks(positions, [str(c) for c in order], fontsize=8)
    axes.set_xlabel("scenarios with at least one goal of the category")
    axes.set_xlim(0, max(1.0, float(left.max())) * 1.15)
    scenarios = int(result.counts["scenarios"].iloc[-1])
    axes.set_title(f"{result.dataset}: scenarios per goal category (n = {scenarios} scenarios)")
    if len(sources) > 1:
        axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=150)
    plt.close(figure)
    return path


def write_counts(result: DatasetCounts, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = [out / "stats.md", out / "counts.csv", out / "goal_categories.csv"]
    files[0].write_text(counts_markdown(result), encoding="utf-8")
    result.counts.to_csv(files[1], index=False)
    result.categories.to_csv(files[2], index=False)
    return [*files, category_figure(result, out / "figures" / FIGURE)]
