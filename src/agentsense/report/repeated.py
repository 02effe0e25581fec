"""Table 7 of the paper (App. D.2): a run repeated over epochs, and its change against the full run.

For every run with several epochs (`--epochs 3`, typically with `-T per_template=1`, the paper's
one-scene-per-template subset), each metric's per-epoch mean over scenes is taken as one run's
score: the table gives their mean and standard deviation (ddof=1, the paper's "standard deviation
of the 3 times tests"). When the same model's run on every scene is among the logs (its Table 1
row, which pools its tasks per scene), the relative change of the mean against it is given too:
(subset mean − full mean) / full mean, as the paper's percentages.
"""

from __future__ import annotations

import math
import statistics

import pandas as pd

from ..analysis.log_reader import Runs
from ..analysis.logs import records
from ..score_keys import BLIND_MCQ_ACCURACY, GOAL_KEYS, MCQ_ACCURACY
from .frames import Units
from .render import DASH, Section, markdown

REPEATED_KINDS = ("homogeneous", "pairwise", "blind")
METRICS = (*GOAL_KEYS, MCQ_ACCURACY, BLIND_MCQ_ACCURACY)
COLUMNS = [
    "run",
    "metric",
    "epochs",
    "scenes",
    "mean",
    "std",
    "full_run",
    "full_mean",
    "relative_change",
]


def metric_order(units: Units) -> list[str]:
    """Table 1's order: self, other, each judge, the panel, then MCQ accuracies."""
    return [*METRICS[:2], *units.judge_columns, *METRICS[2:]]


def _full_mean(units: Units, group: str, full_group: str, metric: str) -> float:
    """The metric's Table 1 mean in the model's row on every scene (NaN when absent). A row
    pools its tasks' conversations per scene (the unit of analysis), so no task filter."""
    if full_group == group:
        return math.nan
    scenes = units.scenes
    full = scenes[scenes["group"] == full_group]
    if full.empty or metric not in full.columns:
        return math.nan
    return float(full[metric].mean())  # NaN scenes skipped, as in Table 1


def repeated_runs(runs: Runs, units: Units) -> pd.DataFrame:
    """One row per (run with several epochs, metric): mean and std over epochs, relative change."""
    labelled = units.runs[units.runs["kind"].isin(REPEATED_KINDS)]
    scenes = runs.scenes.merge(labelled[["log", "group", "full_group", "task"]], on="log")
    rows = []
    for (group, full_group, task), frame in scenes.groupby(
        ["group", "full_group", "task"], sort=True
    ):
        if frame["epoch"].nunique() < 2:
            continue
        for metric in metric_order(units):
            if metric not in frame.columns or frame[metric].isna().all():
                continue
            per_epoch = frame.groupby("epoch")[metric].mean().dropna()
            mean = float(per_epoch.mean())
            full = _full_mean(units, str(group), str(full_group), metric)
            rows.append(
                {
                    "run": f"{group} · {task}",
                    "metric": metric,
                    "epochs": len(per_epoch),
                    "scenes": int(frame.loc[frame[metric].notna(), "id"].nunique()),
                    "mean": mean,
                    "std": statistics.stdev(per_epoch) if len(per_epoch) > 1 else math.nan,
                    "full_run": str(full_group) if not math.isnan(full) else None,
                    "full_mean": full,
                    "relative_change": (mean - full) / full if full else math.nan,
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def _mean_cell(mean: float, change: float) -> str:
    text = f"{mean * 100:.2f}"
    return text if math.isnan(change) else f"{text} ({change * 100:+.2f}%)"


def repeated_markdown(table: pd.DataFrame, headers: dict[str, str], order: list[str]) -> str:
    """Table 7's layout: per run, each metric's mean (relative change) and std, in %."""
    metrics = [metric for metric in order if metric in set(table["metric"])]
    head = ["Run", "epochs", "scenes"]
    for metric in metrics:
        name = headers.get(metric, metric)
        head += [f"{name} mean", f"{name} std"]
    rows = []
    for run, frame in table.groupby("run", sort=True):
        cells = {str(r["metric"]): r for r in records(frame)}
        row = [str(run), str(frame["epochs"].max()), str(frame["scenes"].max())]
        for metric in metrics:
            r = cells.get(metric)
            row += (
                [
                    _mean_cell(float(r["mean"]), float(r["relative_change"])),
                    f"{float(r['std']) * 100:.2f}",
                ]
                if r is not None
                else [DASH, DASH]
            )
        rows.append(row)
    full_runs = sorted({str(f) for f in table["full_run"].dropna()})
    against = (
        f" The change in brackets is relative to the run on every scene ({', '.join(full_runs)})."
        if full_runs
        else " No run of the same task and model on every scene was given, so no relative change."
    )
    return (
        "## Repeated runs (Table 7, App. D.2)\n\nRuns with several epochs: per metric the mean "
        "over epochs of each epoch's mean over scenes, in %, and the standard deviation over "
        "epochs (ddof=1)." + against + "\n\n" + markdown(head, rows)
    )


def repeated_section(runs: Runs, units: Units, headers: dict[str, str]) -> Section | str:
    """The section, or why it is left out (`headers`: the report's column names)."""
    table = repeated_runs(runs, units)
    if table.empty:
        return "no run with several epochs (--epochs)"
    names = {**headers, **{c: c.removeprefix("judge: ") for c in units.judge_columns}}
    return Section(repeated_markdown(table, names, metric_order(units)), {"repeated": table})
