"""The report's *Variance components* section: which noise the intervals are made of.

Every scoring of a sample is read (`Runs.values`, not only the scoring Table 1 shows): the
eval's own scoring is judge repeat 0, each `inspect score LOG -S repeat=K --action append` with
the same panel adds one (`scorers.repeats`). Epochs are the sample's epochs. The decomposition
and the projection are `analysis.variance`.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from agentsense.analysis.logs import records
from agentsense.analysis.sample_rows import VALUE_METRICS
from agentsense.analysis.stats import clustered_mean_ci
from agentsense.analysis.variance import (
    COMPONENTS,
    REMEDY,
    Decomposition,
    projected_half_width,
    projection,
    with_intervals,
)
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.render import markdown
from agentsense.sense.score_keys import HEADLINE, JUDGE_REPEAT, MCQ_ACCURACY

SHOWN_PROJECTIONS = (HEADLINE, MCQ_ACCURACY)
CONVERSATION_KINDS = ("homogeneous", "pairwise")


def run_rows(run: dict[str, Any], values: pd.DataFrame) -> pd.DataFrame:
    """The run's values (`Runs.values`) as (template, scene, epoch, repeat) rows; a judged
    metric keeps only the scorings by the run's panel (a re-judge by other judges is not a
    repeat)."""
    rows = values[values["log"] == run["log"]]
    rows = rows.drop_duplicates(["id", "epoch", "scoring", "metric"], keep="last")
    panel = str(run.get("judges") or "")
    judged = rows["metric"] != MCQ_ACCURACY
    rows = rows[~judged | (rows["panel"] == panel) | (panel == "")]
    renamed: pd.DataFrame = rows.rename(columns={"id": "scene", "scoring": "repeat"})
    return renamed


def _share(result: Decomposition, name: str) -> str:
    share = result.shares()[name]
    if share is None:
        return f"not estimable: {REMEDY[name]}"
    text = f"{100 * share:.0f}"
    if name in result.intervals:
        low, high = result.intervals[name]
        text += f" [{100 * low:.0f}, {100 * high:.0f}]"
    carried = result.carried_by(name)[1:]
    return text + (f" (incl. {', '.join(carried)})" if carried else "")


def _observed_half_width(values: pd.DataFrame) -> float:
    """The template-clustered 95% half-width of the scene means (epochs, repeats averaged)."""
    scenes = values.groupby(["template", "scene"], sort=False)["value"].mean().reset_index()
    return clustered_mean_ci(list(scenes["value"]), list(scenes["template"])).half_width


def decompositions(
    runs: pd.DataFrame, values: pd.DataFrame
) -> list[tuple[dict[str, Any], str, Decomposition]]:
    """(run, metric, decomposition) for every conversation run and metric it scored."""
    found = []
    for run in records(runs):
        if run.get("kind") not in CONVERSATION_KINDS:
            continue
        rows = run_rows(run, values)
        for metric in VALUE_METRICS:
            chosen = rows[rows["metric"] == metric]
            if len(chosen):
                result = with_intervals(chosen)
                result.observed_half_width = _observed_half_width(chosen)
                found.append((run, metric, result))
    return found


def repeat_notes(runs: pd.DataFrame, values: pd.DataFrame) -> list[str]:
    """Scorings of one run that claim the same judge repeat (they then sent the same seeds)."""
    notes = []
    for run in records(runs):
        rows = run_rows(run, values)
        claimed = rows.drop_duplicates("repeat").groupby(JUDGE_REPEAT)["repeat"].agg(list)
        for repeat, scorings in claimed.items():
            if len(scorings) > 1:
                notes.append(
                    f"{run['group']}: scorings {', '.join(scorings)} are all judge repeat "
                    f"{repeat} (same seeds); give each re-judge its own -S repeat=K."
                )
    return notes


def variance_table(found: list[tuple[dict[str, Any], str, Decomposition]]) -> pd.DataFrame:
    rows = []
    for run, metric, result in found:
        shares = result.shares()
        row: dict[str, Any] = {
            "group": run["group"],
            "metric": metric,
            "templates": result.templates,
            "scenes": result.scenes,
            "epochs": result.mean_epochs,
            "repeats": result.mean_repeats,
            "sd": math.sqrt(result.total()),
            "observed_half_width": result.observed_half_width,
            "model_half_width": projected_half_width(
                result, result.mean_epochs, result.mean_repeats
            ),
        }
        for name in COMPONENTS:
            row[f"{name}_variance"] = result.variances[name]
            row[f"{name}_share"] = shares[name]
            low, high = result.intervals.get(name, (math.nan, math.nan))
            row[f"{name}_ci_low"], row[f"{name}_ci_high"] = low, high
        rows.append(row)
    return pd.DataFrame(rows)


def projection_table(found: list[tuple[dict[str, Any], str, Decomposition]]) -> pd.DataFrame:
    frames = []
    for run, metric, result in found:
        wide = projection(result)
        long = wide.reset_index().melt(id_vars="epochs", var_name="repeats", value_name="half")
        frames.append(long.assign(group=run["group"], metric=metric))
    if not frames:
        return pd.DataFrame(columns=["group", "metric", "epochs", "repeats", "half"])
    return pd.concat(frames, ignore_index=True)[["group", "metric", "epochs", "repeats", "half"]]


INTRO = (
    "## Variance components\n\nShare (%) of the variance of one scene score due to templates, "
    "scenes within a template, conversations (epochs of one scene) and judging (judge repeats "
    "on one conversation: the eval's scoring and each `inspect score LOG -S repeat=K --action "
    "append` by the same panel; self and other answers are asked again too), from the nested "
    "model y = μ + template + scene + conversation + judging (method-of-moments nested ANOVA, "
    "negative estimates set to 0; docs/analysis.md). [95% percentile bootstrap over "
    "templates.] A level without replication is not estimable: its variance is carried by the "
    'level above ("incl."). SD: the total standard deviation of one scene score, in points.'
)
PROJECTION_INTRO = (
    "Projected 95% CI half-width (in points) of the mean over the same templates and scenes, "
    "with E epochs and K judge repeats (the components above; a level that is not estimable "
    "is not projected). The model has no negative components: when the scenes of a template "
    "are less alike than scenes at random, the clustered interval is narrower than the model's."
)


def _projection_markdown(found: list[tuple[dict[str, Any], str, Decomposition]]) -> str:
    blocks = []
    for run, metric, result in found:
        if metric not in SHOWN_PROJECTIONS:
            continue
        wide = projection(result)
        head = ["E \\ K", *(f"K = {k}" for k in wide.columns)]
        rows = [[f"E = {e}", *(f"± {100 * v:.1f}" for v in wide.loc[e])] for e in wide.index]
        model = projected_half_width(result, result.mean_epochs, result.mean_repeats)
        check = (
            f"At this design (E = {result.mean_epochs:.3g}, K = {result.mean_repeats:.3g}) the "
            f"model gives ± {100 * model:.1f}; the clustered interval of the scene means "
            f"(epochs and repeats averaged) is ± {100 * result.observed_half_width:.1f}."
        )
        blocks.append(f"**{run['group']}, {metric}**\n\n" + markdown(head, rows) + "\n\n" + check)
    return "\n\n".join(blocks)


def variance_section(inputs: Inputs) -> Content:
    runs, values = inputs.units.runs, inputs.runs.values
    found = decompositions(runs, values)
    if not found:
        return Absent("no scored conversation run (full, goal, info or pairwise)")
    head = ["Run", "metric", "templates", "scenes", "epochs", "repeats", "SD", *COMPONENTS]
    rows = [
        [
            str(run["group"]),
            metric,
            str(result.templates),
            str(result.scenes),
            f"{result.mean_epochs:.3g}",
            f"{result.mean_repeats:.3g}",
            f"{100 * math.sqrt(result.total()):.1f}",
            *(_share(result, name) for name in COMPONENTS),
        ]
        for run, metric, result in found
    ]
    notes = repeat_notes(runs, values)
    text = "\n\n".join(
        [
            INTRO,
            markdown(head, rows),
            *(f"- {note}" for note in notes),
            PROJECTION_INTRO,
            _projection_markdown(found),
        ]
    )
    inputs.report.csv(variance_table(found), "variance")
    inputs.report.csv(projection_table(found), "variance_projection")
    return text
