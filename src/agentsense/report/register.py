"""The Inspect Evals Register's `evaluation_report` block, built from a report's Table 1, and the
report's *Evaluation report* section.

One result per Table 1 row of same-model runs: the headline goal score (judge majority) and the MCQ
accuracy in the paper's units (percent), each with the stderr Inspect logs for it (clustered by
template, computed by Inspect's own `stderr` metric over the row's scene units, so a one-log row
repeats its log's stderr), the paper's value and the difference when the run is comparable to
the paper, the samples behind it and the row's wall-clock time. The block's schema is
`inspect_evals.metadata.EvaluationReport` (register/agentsense/eval.yaml; tests/test_register.py).

The *Evaluation report* section writes `evaluation_report.md` (its table, to paste into a README),
`.csv`, `.yaml` (the block, from the `full` runs: the entry's task) and, with the `viz` extra
(inspect-viz), `scores_by_model.html`: first the numbers as a plain HTML table (each score with
its 95% CI, stderr, the paper's value and the difference, or why there is none), readable with no
network and no JavaScript, then a bar plot per score with the paper's value as a red dot (the
plots load their JavaScript from a CDN, so they show only online; the page says so).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from importlib.util import find_spec
from pathlib import Path
from typing import Any, cast

import pandas as pd
import yaml
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.scorer import MetricProtocol, SampleScore, Score, stderr

from agentsense.analysis.logs import records
from agentsense.analysis.stats import Estimate
from agentsense.engine.version import eval_version
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.frames import Units, unfinished_suffix
from agentsense.report.paper import References, references
from agentsense.report.render import cell, markdown, number
from agentsense.sense.metrics import CLUSTER
from agentsense.sense.reference.model_names import paper_model
from agentsense.sense.score_keys import HEADLINE, MCQ_ACCURACY

# Our score key -> its name in the block (its paper column: report.paper's matches).
SCORES: dict[str, str] = {HEADLINE: "goal_judge_majority", MCQ_ACCURACY: MCQ_ACCURACY}
# The task of register/agentsense/eval.yaml, named as the Register's engine names it (the @task
# function), and how it is run.
REGISTER_TASK = "full"
COMMAND = "inspect eval agentsense/full --model MODEL --model-role judge=JUDGE"
PLACEHOLDER_COMMIT = "FILL-IN-UPSTREAM-COMMIT"
YAML_FILE = "evaluation_report.yaml"
TABLE_FILE = "evaluation_report.md"
VIZ_PAGE = "scores_by_model.html"
TITLES = {
    "goal_judge_majority": "Goal completion, judge majority (%)",
    MCQ_ACCURACY: "MCQ accuracy (%)",
}


@dataclass(frozen=True)
class ScoreRow:
    """One score of one row, in percent: ours, its stderr, and the paper's (None: no reference);
    with Table 1's 95% CI (clustered by template) and its caveat ("too few templates (2)")."""

    key: str
    value: float
    stderr: float
    samples: int
    paper: float | None
    low: float = math.nan
    high: float = math.nan
    caveat: str = ""

    @property
    def difference(self) -> float | None:
        return None if self.paper is None else round(self.value - self.paper, 2)


@dataclass
class Result:
    """One row of the block: a Table 1 row of runs of one model."""

    model: str
    paper_model: str | None
    scores: list[ScoreRow]
    time: str | None
    task: str  # the runs' task ("full", "goal", ...; several joined by "+")
    date: str | None = None  # the day of the newest log (YYYY-MM-DD)
    why_no_paper: str = ""  # one line: why the paper's values are not given
    commits: set[str] = field(default_factory=set)
    dirty: bool = False  # a log was run from a working tree with uncommitted edits
    label: str = ""  # the Table 1 row's label (it says how far an unfinished run got)
    unfinished: bool = False  # a log of the row did not finish its plan


def clustered_stderr(scenes: pd.DataFrame, key: str) -> float:
    """Inspect's clustered stderr, as the log's metric computes it, over the scored scene units."""
    scored = scenes.dropna(subset=[key])
    scores = [
        SampleScore(score=Score(value=float(v)), sample_metadata={CLUSTER: t}, sample_id=str(i))
        for v, t, i in zip(scored[key], scored[CLUSTER], scored["id"], strict=True)
    ]
    metric = cast(MetricProtocol, stderr(cluster=CLUSTER))  # Inspect 0.3's SampleScore form
    return float(cast(float, metric(scores))) if scores else math.nan


def log_headers(runs: pd.DataFrame) -> list[EvalLog]:
    """The header of every log of these runs (its times and the code's git commit)."""
    headers = []
    for run in records(runs):
        folder = Path(str(run["log"])).parent
        paths = [folder / name for name in run["log_files"] if (folder / name).exists()]
        headers += [read_eval_log(str(p), header_only=True) for p in paths or [run["log"]]]
    return headers


def log_seconds(headers: Sequence[EvalLog]) -> float | None:
    """The wall-clock seconds of the logs together (None: a log has no end time)."""
    total = 0.0
    for header in headers:
        start, end = header.stats.started_at, header.stats.completed_at
        if not start or not end:
            return None
        total += (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    return total


def commits(headers: Sequence[EvalLog]) -> set[str]:
    """The git commits of agentsense the logs were run from (Inspect records the revision)."""
    return {h.eval.revision.commit for h in headers if h.eval.revision is not None}


def clock(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    minutes, second = divmod(round(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}:{minute:02d}:{second:02d}"


def result(
    group: str, row: pd.Series, scenes: pd.DataFrame, runs: pd.DataFrame, found: References
) -> Result:
    """The row's scores; the paper's value is the *Beside the paper* section's match for the
    cell (report.paper: one rule for when a cell has a reference)."""
    model = str(runs["model"].iloc[0])
    named = paper_model(model)
    matched = {m.metric: m for m in found.matches if m.row == group and m.table == "1"}
    scores = []
    for key, name in SCORES.items():
        estimate = row.get(key)
        if not isinstance(estimate, Estimate) or not estimate.n:
            continue
        scores.append(
            ScoreRow(
                key=name,
                value=round(100 * estimate.mean, 2),
                stderr=round(100 * clustered_stderr(scenes, key), 2),
                samples=estimate.n,
                paper=matched[key].paper if key in matched else None,
                low=round(100 * estimate.low, 2),
                high=round(100 * estimate.high, 2),
                caveat=estimate.caveat,
            )
        )
    why = found.missing.get(group, "")
    if not why and HEADLINE not in matched:
        why = next((note for note in found.notes if note.startswith(f"{group}:")), why)
        why = why.removeprefix(f"{group}: ")
    task = "+".join(sorted(set(map(str, runs["task"]))))
    headers = log_headers(runs)
    out = Result(model, named, scores, clock(log_seconds(headers)), task, why_no_paper=why)
    out.date = str(max(runs["created"]))[:10] if not runs.empty else None
    out.commits = commits(headers)
    out.dirty = any(h.eval.revision is not None and h.eval.revision.dirty for h in headers)
    out.label = group
    out.unfinished = any(unfinished_suffix(run) for run in records(runs))
    return out


def results(units: Units, table: pd.DataFrame) -> list[Result]:
    """One result per homogeneous row with a score of Table 1 (`table`, the report's)."""
    found = references(units, table)
    scenes, runs = units.scenes, units.runs
    rows = []
    for group, row in table.iterrows():
        if row["kind"] != "homogeneous":
            continue
        got = result(
            str(group), row, scenes[scenes["group"] == group], runs[runs["group"] == group], found
        )
        if got.scores:
            rows.append(got)
    return rows


def entry_results(found: Sequence[Result]) -> list[Result]:
    """The results the Register entry's block can hold: finished runs of its task (`full`)."""
    return [r for r in found if r.task == REGISTER_TASK and not r.unfinished]


def block(found: Sequence[Result], runs: pd.DataFrame) -> dict[str, Any]:
    """The `evaluation_report` mapping (inspect_evals' EvaluationReport) of `found`, results of
    the entry's task (`entry_results`). Its commit is the one the logs were run from, a
    placeholder when they disagree or Inspect recorded none."""
    run_from = sorted(set().union(*(r.commits for r in found)))
    out: dict[str, Any] = {
        "results": [_row(r) for r in found],
        "commit": run_from[0] if len(run_from) == 1 else PLACEHOLDER_COMMIT,
        "version": str(eval_version()),
        "command": COMMAND,
        "timestamp": str(max(runs["created"])) if not runs.empty else None,
    }
    notes = [f"{r.model}: no paper value, {r.why_no_paper}." for r in found if r.why_no_paper]
    if any(r.dirty for r in found):
        notes.append("Some logs were run from a working tree with uncommitted changes.")
    notes.append(
        "Scores in percent as the paper prints them (Table 1): goal_judge_majority is goal "
        "completion by judge-panel majority, mcq_accuracy the private-information MCQ accuracy; "
        "stderr clustered by template, as logged."
    )
    out["notes"] = notes
    return out


def _row(found: Result) -> dict[str, Any]:
    metrics: list[dict[str, Any]] = []
    for score in found.scores:
        metrics.append({"key": score.key, "value": score.value})
        metrics.append({"key": f"{score.key}_stderr", "value": score.stderr})
        if score.paper is not None and score.difference is not None:
            metrics.append({"key": f"{score.key}_paper", "value": score.paper})
            metrics.append({"key": f"{score.key}_difference", "value": score.difference})
    row: dict[str, Any] = {"model": found.model, "metrics": metrics, "task": found.task}
    row["provider"] = found.model.split("/", 1)[0]  # Inspect's provider prefix
    if found.time:
        row["time"] = found.time
    if found.date:
        row["date"] = found.date
    row["samples"] = max(score.samples for score in found.scores)
    if found.paper_model:
        row["paper_model"] = found.paper_model
    return row


def block_yaml(report: dict[str, Any]) -> str:
    """The block as it goes under `evaluation_report:` in the Register's eval.yaml."""
    text: str = yaml.safe_dump({"evaluation_report": report}, sort_keys=False, allow_unicode=True)
    return text


def score_frame(found: Sequence[Result]) -> pd.DataFrame:
    """One line per row and score: `evaluation_report.csv`'s columns and the row's label."""
    return pd.DataFrame(
        [
            {
                "label": r.label or r.model,
                "model": r.model,
                "task": r.task,
                "paper_model": r.paper_model,
                "score": s.key,
                "agentsense": s.value,
                "paper": s.paper,
                "difference": s.difference,
                "samples": s.samples,
                "stderr": s.stderr,
                "ci_low": s.low,
                "ci_high": s.high,
                "time": r.time,
                "date": r.date,
            }
            for r in found
            for s in r.scores
        ]
    )


def table_markdown(frame: pd.DataFrame) -> str:
    """One line per model and score: ours, the paper's, the difference, samples, stderr, time."""
    head = ["Model", "Task", "Score", "AgentSense", "Paper", "Difference", "Samples", "Stderr"]
    rows = [
        [
            r.label,
            r.task,
            r.score,
            f"{r.agentsense:.2f}",
            number(r.paper),
            number(r.difference, sign="+"),
            r.samples,
            f"{r.stderr:.2f}",
            cell(r.time),
        ]
        for r in frame.itertuples()
    ]
    return markdown([*head, "Time"], rows)


# --- the interactive page (inspect-viz) ----------------------------------------------------------


def page_line(written: bool) -> str:
    """The report's one line about the page: where it is, or how to get it."""
    if written:
        return f"Interactive scores by model, the paper's value marked: [{VIZ_PAGE}]({VIZ_PAGE})."
    return (
        "An interactive page of these scores by model (the paper's value marked) needs the "
        "`viz` extra: `pip install 'agentsense[viz]'` (inspect-viz), then run the report again."
    )


PAGE_TITLE = "AgentSense: scores by model beside the paper"
PAGE_HEAD = ["Model", "Task", "Score", "AgentSense (%)", "95% CI", "Stderr", "Paper", "Difference"]
PAGE_HEAD += ["Samples"]
NO_NETWORK = (
    "This table is plain HTML: it shows without network and without JavaScript. The plots below "
    "load their JavaScript (Mosaic, DuckDB-WASM) from cdn.jsdelivr.net, so they show only "
    "online; offline they stay an empty grey bar. They hold the same numbers as the table."
)


def _interval(score: ScoreRow) -> str:
    if math.isnan(score.low) or math.isnan(score.high):
        return score.caveat or "–"
    text = f"[{score.low:.2f}, {score.high:.2f}]"
    return f"{text}, {score.caveat}" if score.caveat else text


def _no_paper(found: Result, score: ScoreRow) -> str:
    """Why a score has no paper value (report.paper's reason for the row, when it gave one)."""
    why = found.why_no_paper or "the paper has no value of this score for this model and setting"
    return f"{found.label or found.model}, {score.key}: {why}."


def value_table(found: Sequence[Result]) -> str:
    """The page's numbers as a plain HTML table, with why a score has no paper value."""
    cells, reasons = [], []
    for r in found:
        for s in r.scores:
            difference = number(s.difference, sign="+")
            if s.paper is None:
                reasons.append(_no_paper(r, s))
                difference = f"– (note {len(reasons)})"
            values = [r.label or r.model, r.task, s.key, f"{s.value:.2f}", _interval(s)]
            values += [f"{s.stderr:.2f}", number(s.paper), difference, str(s.samples)]
            cells.append("".join(f"<td>{html.escape(v)}</td>" for v in values))
    head = "".join(f"<th>{html.escape(h)}</th>" for h in PAGE_HEAD)
    rows = "".join(f"<tr>{row}</tr>" for row in cells)
    notes = "".join(f"<li>{html.escape(why)}</li>" for why in reasons)
    return (
        f"<h1>{html.escape(PAGE_TITLE)}</h1>"
        "<p>Scores in percent as the paper prints them (Table 1), each with its 95% CI "
        "(clustered by template, as in the report's Table 1) and the stderr Inspect logs; the "
        "difference is AgentSense minus the paper, given only where the run is comparable with "
        "the paper (the report's <em>Beside the paper</em> rule).</p>"
        f'<table id="agentsense-scores" border="1" cellpadding="4">'
        f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        + (f"<p>No difference from the paper:</p><ol>{notes}</ol>" if notes else "")
        + f"<p>{html.escape(NO_NETWORK)}</p>"
    )


def scores_page(found: Sequence[Result]) -> str | None:
    """The page's HTML, or None when inspect-viz is not installed."""
    if find_spec("inspect_viz") is None:
        return None
    from inspect_viz import Data
    from inspect_viz.layout import vconcat
    from inspect_viz.mark import dot
    from inspect_viz.plot import to_html
    from inspect_viz.view import scores_by_model

    frame = score_frame(found)
    # The columns inspect-viz's `scores_by_model` reads.
    viz = frame.rename(
        columns={
            "score": "task_name",
            "agentsense": "score_headline_value",
            "stderr": "score_headline_stderr",
        }
    )[["model", "task_name", "score_headline_value", "score_headline_stderr", "paper"]]
    plots = []
    for key, part in viz.groupby("task_name", sort=False):
        marks = []
        paper = part.dropna(subset=["paper"])
        if not paper.empty:
            marks.append(dot(Data.from_dataframe(paper), x="paper", y="model", fill="#d62728", r=5))
        plots.append(
            scores_by_model(
                Data.from_dataframe(part.reset_index(drop=True)),
                model_name="model",
                title=TITLES.get(str(key), str(key)),
                marks=marks or None,
            )
        )
    page = to_html(vconcat(*plots))
    # The title, then the plain table first: offline the plots stay empty.
    page = page.replace("<head>", f"<head><title>{html.escape(PAGE_TITLE)}</title>", 1)
    return page.replace("<body>", "<body>" + value_table(found), 1)


# --- the section ----------------------------------------------------------------------------------


def evaluation_report_section(inputs: Inputs) -> Content:
    units, report = inputs.units, inputs.report
    if inputs.table_one.empty:
        return Absent("no scored sample of a model run (full, goal or info)")
    found = results(units, inputs.table_one)
    if not found:
        return Absent("no Table 1 row of one model (pairwise rows have no paper counterpart)")
    frame = score_frame(found)
    table = table_markdown(frame)
    report.files[TABLE_FILE] = table + "\n"
    report.csv(frame.drop(columns="label"), "evaluation_report")
    text = (
        "## Evaluation report\n\nTable 1's goal completion (judge majority) and MCQ accuracy in "
        "the paper's units (%), with the stderr Inspect logs (clustered by template), the "
        "paper's value and the difference where the run is comparable to the paper "
        f"(`{TABLE_FILE}` holds the table).\n\n" + table
    )
    entry = entry_results(found)
    if entry:
        runs = units.runs[units.runs["task"] == REGISTER_TASK]
        report.files[YAML_FILE] = block_yaml(block(entry, runs))
        text += (
            f"\n\n`{YAML_FILE}` holds the `{REGISTER_TASK}` rows as the `evaluation_report` "
            "block of the Inspect Evals Register entry (register/agentsense/eval.yaml)."
        )
    else:
        text += (
            f"\n\nNo Table 1 row of `{REGISTER_TASK}` runs alone (the Register entry's task), so "
            f"no `{YAML_FILE}`."
        )
    left = [r.label for r in found if r.task == REGISTER_TASK and r.unfinished]
    if left:
        text += f"\n\nLeft out of `{YAML_FILE}`, unfinished: " + "; ".join(left) + "."
    reasons = [f"- {r.model}: no paper value, {r.why_no_paper}." for r in found if r.why_no_paper]
    if reasons:
        text += "\n\n" + "\n".join(reasons)
    if report.draw:
        page = scores_page(found)
        if page is not None:
            report.files[VIZ_PAGE] = page
        text += "\n\n" + page_line(page is not None)
    return text
