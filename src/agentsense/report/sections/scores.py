"""The sections of the scores themselves: *Table 1*, the *Leakage baseline*, *Table 2* (script
prediction), *Repeated runs* (Table 7), *Labelling*, *Trivial baselines* and *Uncertainty*."""

from __future__ import annotations

import math
import statistics
from functools import partial

import pandas as pd

from agentsense.analysis import official
from agentsense.analysis.logs import records
from agentsense.analysis.stats import MIN_TEMPLATES, Estimate
from agentsense.report import tables
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.frames import Units
from agentsense.report.paper import References, references
from agentsense.report.plots import Panel, bar_figure
from agentsense.report.render import (
    DASH,
    cell,
    flat,
    frame_markdown,
    header,
    markdown,
    number,
    percent,
    spread,
)
from agentsense.report.sections.profile import GOAL, INFO
from agentsense.report.sections.usage import calls_of, run_usage, table_one_notes
from agentsense.sense.score_keys import (
    BLIND_MCQ_ACCURACY,
    GOAL_KEYS,
    HEADLINE,
    MCQ_ACCURACY,
)

ROW = ("run", "Model / sender × receiver")  # a row's name in the CSV and in the Markdown


def table_section(
    inputs: Inputs, table: pd.DataFrame, why: str, name: str, text: str, row: tuple[str, str] = ROW
) -> Content:
    """A section that is one table of Estimate cells (`name.csv`), after its `text`."""
    if table.empty:
        return Absent(why)
    inputs.report.csv(flat(table, row[0]), name)
    return text + frame_markdown(table, row[1])


# --- Table 1 -----------------------------------------------------------------------------------

# The n of Table 1's columns (its units) and the conversations pooled into them, as headed.
COUNTED = {
    HEADLINE: "n scenes",
    MCQ_ACCURACY: "n MCQ scenes",
    "goal_psi": "n templates (goal PSI)",
    BLIND_MCQ_ACCURACY: "n blind scenes",
}
CONVERSATIONS = {"conversations": "n conversations", "blind_conversations": "n blind conversations"}


def table_one_section(inputs: Inputs) -> Content:
    units, report, table = inputs.units, inputs.report, inputs.table_one
    if table.empty:
        return Absent("no scored sample of a model run (full, goal, info, pairwise or blind)")
    report.csv(flat(table, "run"), "table1")
    for run, row in table[table["kind"] == "homogeneous"].iterrows():
        report.headline(GOAL.key, str(run), row[HEADLINE])
        report.headline(INFO.key, str(run), row[MCQ_ACCURACY])
    counts = table[list(COUNTED)].map(lambda v: v.n if isinstance(v, Estimate) else 0)
    shown = pd.concat(
        [table.drop(columns=list(CONVERSATIONS)), counts.rename(columns=COUNTED)], axis=1
    )
    shown = shown.join(table[list(CONVERSATIONS)].rename(columns=CONVERSATIONS))
    # Columns no run has a value for (e.g. MCQ columns of a goal-only report) are not shown.
    shown = shown[[c for c in shown.columns if c == "kind" or _filled(shown[c])]]
    found = references(units, table)
    text = (
        "## Table 1: overall performance\n\nScores in %, mean [95% CI] over scenes: each scene "
        "counts once, its conversations (epochs, and the same scene in several logs of the row) "
        "averaged first. The interval stays in the score's range and is clustered by template "
        "(Wilson interval at the clustered effective sample size, t on templates − 1 degrees of "
        f"freedom); below {MIN_TEMPLATES} templates it says so, with 1 template it is undefined. "
        "PSI: mean over templates of the per-template std of the scene scores (goal PSI on judge "
        "majority) [95% percentile bootstrap over templates]; templates with fewer than 2 scored "
        "scenes are skipped. n scenes and n conversations count the row's units and the "
        "conversations pooled into them.\n\n"
        + frame_markdown(_beside_paper(shown, found), ROW[1], with_n=False)
        + _paper_note(inputs, table, found)
    )
    panels = [
        Panel(header(m), list(table.index), {"mean": list(table[m])})
        for m in (HEADLINE, MCQ_ACCURACY, BLIND_MCQ_ACCURACY)
        if any(isinstance(v, Estimate) and v.n for v in table[m])
    ]
    if panels:
        text += report.figure("overall", partial(bar_figure, panels, "Overall performance"))
    calls = calls_of(units.runs, inputs.runs.calls)
    lines = table_one_notes(run_usage(calls)) if not calls.empty else []
    return text + "".join(f"\n\n- Tokens: {line} (see *Cost and tokens*)." for line in lines)


def _beside_paper(shown: pd.DataFrame, found: References) -> pd.DataFrame:
    """Table 1's cells with the paper's value beside each one the paper publishes for the row
    (`paper.references`: the row's model maps to a paper model, its runs are the official data,
    every scene, finished; Table 7's value for a -T per_template=1 row)."""
    beside = shown.astype(object)
    for match in found.matches:
        if match.table in ("1", "7") and match.metric in beside.columns:
            value = beside.at[match.row, match.metric]
            table = "" if match.table == "1" else f", Table {match.table}"
            paper = f"{match.paper:.2f}"
            beside.at[match.row, match.metric] = f"{cell(value)} · paper {paper}{table}"
    return beside


def _paper_note(inputs: Inputs, table: pd.DataFrame, found: References) -> str:
    """Under Table 1: whose rows have the paper beside their cells, and why the others have not
    (rows sharing a reason in one line; a reason of the data before one of the model's name)."""
    beside = {match.row for match in found.matches if match.table in ("1", "7")}
    reasons: dict[str, list[str]] = {}
    for row in (str(row) for row in table.index if str(row) not in beside):
        runs = inputs.units.runs[inputs.units.runs["group"] == row]
        data = next(filter(None, (official.reason(run) for run in records(runs))), None)
        why = data or found.missing.get(row, "no cell the paper publishes")
        served = {str(model) for model in runs["model"]}
        for model in served:  # one line for many models that share a reason
            why = why.replace(model, "the row's model")
        reasons.setdefault(why, []).append(row)
    lines = [f"\n\n- No paper value beside {_rows(rows)}: {why}." for why, rows in reasons.items()]
    if beside:
        lines.insert(
            0,
            "\n\n- Paper X beside a cell: its published value (Mou et al., 2024), "
            "in % (PSI in points); the difference in *Beside the paper*.",
        )
    return "".join(lines)


def _rows(rows: list[str]) -> str:
    return f"{rows[0]}" if len(rows) == 1 else f"the {len(rows)} rows ({', '.join(rows)})"


def _filled(column: pd.Series) -> bool:
    return any((v.n > 0) if isinstance(v, Estimate) else bool(v) and not pd.isna(v) for v in column)


# --- leakage: the blind test (§4.3) and script prediction (Table 2) ----------------------------


def leakage_section(inputs: Inputs) -> Content:
    scenes = inputs.units.scenes
    if not (scenes["kind"] == "blind").any():
        return Absent("no agentsense/blind log among the inputs")
    if not tables.has_values(tables.real_scenes(inputs.units), MCQ_ACCURACY):
        return Absent("no run with MCQs after a conversation (full, info or pairwise) to compare")
    text = (
        "## Leakage baseline (blind test, §4.3)\n\nMCQ accuracy answered from the scenario "
        "alone (blind) and after the interaction; the gain is paired over the scenes in both.\n\n"
    )
    why = "no blind run has the model (or pair) of a run with MCQs"
    return table_section(inputs, tables.leakage(inputs.units), why, "leakage", text)


def table_two_section(inputs: Inputs) -> Content:
    if not (inputs.units.scenes["kind"] == "script").any():
        return Absent("no agentsense/script_prediction log among the inputs")
    table = tables.table_two(inputs.units)
    inputs.report.csv(spread(table, tables.TABLE_TWO), "table2")
    rows = [
        [
            str(r.model),
            cell(r.script_accuracy, percent=False),
            str(r.templates),
            cell(r.blind_mcq_accuracy, percent=False, with_n=True),
        ]
        for r in table.itertuples()
    ]
    head = ["Model", "Script acc.", "templates asked", "Blind acc. (n scenes)"]
    return (
        "## Table 2: script prediction and blind test (§4.3)\n\nScript acc.: share of the "
        "scenario backgrounds (one scene per template unless `-T per_template` said otherwise) "
        "from which the model named the original script, read by the tolerant title rule "
        "(case, articles and punctuation ignored; docs/leakage.md). Blind acc.: MCQ accuracy "
        "before any interaction (`agentsense/blind` of the same model; – without its log). "
        "Fractions, mean ± 95% CI half-width clustered by template. The paper: 0.03-0.07 and "
        "0.35-0.62.\n\n" + markdown(head, rows)
    )


# --- Table 7: runs repeated over epochs (App. D.2) ---------------------------------------------

REPEATED_KINDS = ("homogeneous", "pairwise", "blind")
REPEATED_METRICS = (*GOAL_KEYS, MCQ_ACCURACY, BLIND_MCQ_ACCURACY)


def metric_order(units: Units) -> list[str]:
    """Table 1's order: self, other, each judge, the panel, then MCQ accuracies."""
    return [*REPEATED_METRICS[:2], *units.judge_columns, *REPEATED_METRICS[2:]]


def _full_mean(units: Units, group: str, full_group: str, metric: str) -> float:
    """The metric's Table 1 mean in the model's row on every scene (NaN when absent). A row
    pools its tasks' conversations per scene (the unit of analysis), so no task filter."""
    if full_group == group:
        return math.nan
    full = units.scenes[units.scenes["group"] == full_group]
    if full.empty or metric not in full.columns:
        return math.nan
    return float(full[metric].mean())  # NaN scenes skipped, as in Table 1


def repeated_runs(inputs: Inputs) -> pd.DataFrame:
    """For every run with several epochs (`--epochs 3`, typically with `-T per_template=1`, the
    paper's subset), per metric: the mean and std (ddof=1, the paper's "standard deviation of
    the 3 times tests") over epochs of each epoch's mean over scenes, and the relative change
    (subset − full) / full against the same model's run on every scene when given."""
    units = inputs.units
    labelled = units.runs[units.runs["kind"].isin(REPEATED_KINDS)]
    scenes = inputs.runs.scenes.merge(labelled[["log", "group", "full_group", "task"]], on="log")
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
    return pd.DataFrame(rows)  # empty: the section is left out


def _mean_cell(mean: float, change: float) -> str:
    text = f"{mean * 100:.2f}"
    return text if math.isnan(change) else f"{text} ({change * 100:+.2f}%)"


def repeated_section(inputs: Inputs) -> Content:
    """Table 7's layout: per run, each metric's mean (relative change) and std, in %."""
    table = repeated_runs(inputs)
    if table.empty:
        return Absent("no run with several epochs (--epochs)")
    inputs.report.csv(table, "repeated")
    order = metric_order(inputs.units)
    metrics = [metric for metric in order if metric in set(table["metric"])]
    head = ["Run", "epochs", "scenes"]
    for metric in metrics:
        name = header(metric).removeprefix("judge: ")
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


# --- labelling, trivial baselines, uncertainty -------------------------------------------------


def labelling_section(inputs: Inputs) -> Content:
    text = (
        "## Labelling: agreement with the dataset's labels\n\nShare of scenario types, goal "
        "categories and sender/receiver roles the labeller gave as the records have them, in %, "
        "mean [95% CI] (n scenes with that label). Export the labels with `agentsense labels LOG "
        "--out labels.json` and pass `--labels labels.json`.\n\n"
    )
    why = "no agentsense/labelling log among the inputs"
    table = tables.label_agreement(inputs.units)
    return table_section(inputs, table, why, "label_agreement", text, ("labeller", "Labeller"))


def baselines_section(inputs: Inputs) -> Content:
    table = tables.baselines(inputs.units)
    if table.empty:
        return Absent("no scored conversation run (full, goal, info or pairwise)")
    inputs.report.csv(spread(table, ["score"]).rename(columns={"score_n": "n"}), "baselines")
    rows = [
        [
            str(r.group),
            header(str(r.metric)),
            cell(r.score, with_n=True),
            percent(r.always_yes),
            percent(r.always_no),
            percent(r.chance),
            percent(r.blind),
            f"⚠ {r.flags!s}" if r.flags else "beats all",
        ]
        for r in table.itertuples()
    ]
    head = ["Run", "metric", "score", "always-yes", "always-no", "chance", "blind", "baselines"]
    return (
        "## Trivial baselines\n\nIn %, on the scenes the score is computed on. Always-yes / "
        "always-no: the score if every answer (self, other, every judge) were Yes / No, "
        "aggregated by the scorer's own rules. Chance: 1/number of options of each MCQ, averaged "
        "per character and over characters as MCQ accuracy is. Blind: the blind test of the same "
        "model on the same scenes, when its log is given. ⚠ lists the baselines the score's 95% "
        "CI (clustered by template) does not clear: ≤ always-no / chance / blind (not above "
        "them), ≥ always-yes (not below an everything-yes reading: the judges may say yes to "
        "anything).\n\n" + markdown(head, rows)
    )


def uncertainty_section(inputs: Inputs) -> Content:
    table = tables.uncertainty(inputs.units)
    if table.empty:
        return Absent("no scored conversation run (full, goal, info or pairwise)")
    inputs.report.csv(table, "uncertainty")
    rows = [
        [
            str(r.group),
            header(str(r.metric)),
            str(r.n),
            number(r.templates, digits=0),  # a dash when no template was scored (PSI)
            percent(r.mean),
            percent(r.naive_half_width),
            percent(r.half_width),
            str(r.method),
            number(r.ratio),
        ]
        for r in table.itertuples()
    ]
    head = ["Run", "metric", "n", "templates", "mean %", "± naive", "± reported"]
    head += ["reported interval", "reported / naive"]
    return (
        "## Uncertainty: clustered and naive intervals\n\nHalf-widths (in %) of the 95% "
        "interval that treats the n scenes (templates, for PSI) as independent (naive t) and of "
        "the one the report gives: clustered by template for means, a bootstrap over templates "
        "for PSI. A ratio above 1 means the naive interval is too narrow.\n\n"
        + markdown(head, rows)
    )
