"""The Inspect Evals Register's `evaluation_report` block, built from a report's Table 1.

One result per Table 1 row of same-model runs: the headline goal score (judge majority) and the MCQ
accuracy in the paper's units (percent), each with the stderr Inspect logs for it (clustered by
template, computed by Inspect's own `stderr` metric over the row's scene units, so a one-log row
repeats its log's stderr), the paper's value and the difference when the run is comparable to
the paper, the samples behind it and the row's wall-clock time. The block's schema is
`inspect_evals.metadata.EvaluationReport` (register/agentsense/eval.yaml; tests/test_register.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import pandas as pd
import yaml
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.scorer import MetricProtocol, SampleScore, Score, stderr

from agentsense.analysis.logs import records
from agentsense.analysis.stats import Estimate
from agentsense.engine.version import eval_version
from agentsense.report import tables
from agentsense.report.frames import Units, unfinished_suffix
from agentsense.report.paper import References, references
from agentsense.report.render import markdown
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


@dataclass(frozen=True)
class ScoreRow:
    """One score of one row, in percent: ours, its stderr, and the paper's (None: no reference)."""

    key: str
    value: float
    stderr: float
    samples: int
    paper: float | None

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


def results(units: Units) -> list[Result]:
    """One result per homogeneous Table 1 row with a score."""
    table, found = tables.table_one(units), references(units)
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


def table_markdown(found: Sequence[Result]) -> str:
    """One line per model and score: ours, the paper's, the difference, samples, stderr, time."""
    head = [
        "Model",
        "Task",
        "Score",
        "AgentSense",
        "Paper",
        "Difference",
        "Samples",
        "Stderr",
        "Time",
    ]
    rows = [
        [
            r.label or r.model,
            r.task,
            s.key,
            f"{s.value:.2f}",
            "–" if s.paper is None else f"{s.paper:.2f}",
            "–" if s.difference is None else f"{s.difference:+.2f}",
            s.samples,
            f"{s.stderr:.2f}",
            r.time or "–",
        ]
        for r in found
        for s in r.scores
    ]
    return markdown(head, rows)
