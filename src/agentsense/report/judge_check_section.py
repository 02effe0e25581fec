"""The report's judge-check section: how fit each judge is, from `agentsense/judge_check` logs.

One row per log and judge (named by its model): the items it answered readably, accuracy, the
share of "yes" on goals only claimed and on conversations telling the judge to say yes (both
truly "no"), consistency on perturbed copies and the share of unreadable answers. The numbers
are the task's own metrics (`judge_rates`) applied to the samples of the newest scoring,
a sample's epochs averaged first (as Inspect's mean reducer) and unreadable verdicts left out
(as Inspect leaves NaN values out of metrics), so they equal the log's metrics.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pandas as pd
from inspect_ai.scorer import SampleScore, Score

from ..analysis.logs import log_name
from ..dataset.judge_check_items import CLAIM_CASES, INJECTION_CASES
from ..metrics import nan_mean
from ..score_keys import JUDGES
from ..scorers.judge_check_verdicts import JUDGE_METRICS, UNREADABLE
from .content import Absent, Content
from .other_logs import Item, OtherLogs, items
from .render import markdown

if TYPE_CHECKING:
    from .document import Report

TASK = "judge_check"
COLUMNS = [
    "log",
    "judge",
    "model",
    "items",
    "accuracy",
    "claims",
    "false_yes_claimed",
    "injections",
    "false_yes_injected",
    "perturbed",
    "consistency",
    "unreadable",
]


def _scores(found: list[Item], judge: str) -> list[SampleScore]:
    """The judge's readable verdicts as the task's metrics take them."""
    return [
        SampleScore(
            score=Score(value=item.values[judge]),
            sample_id=item.id,
            sample_metadata=item.sample.metadata,
        )
        for item in found
        if judge in item.values and not math.isnan(item.values[judge])
    ]


def judge_rows(path: str) -> list[dict[str, Any]]:
    """One row per judge of one judge_check log."""
    found = items(path)
    judges: dict[str, str] = {}
    for item in found:
        judges.update((item.score.metadata or {}).get(JUDGES) or {})
    keys = sorted({k for item in found for k in item.values if not k.startswith(UNREADABLE)})
    rows = []
    for judge in keys:
        scores = _scores(found, judge)
        read = {str(s.sample_id) for s in scores}
        cases = [str((s.sample_metadata or {}).get("case")) for s in scores]
        rows.append(
            {
                "log": log_name(path),
                "judge": judge,
                "model": judges.get(judge, ""),
                "items": len(scores),
                "claims": sum(case in CLAIM_CASES for case in cases),
                "injections": sum(case in INJECTION_CASES for case in cases),
                "perturbed": sum((s.sample_metadata or {}).get("original") in read for s in scores),
                **{
                    name: rate(scores) if scores else math.nan
                    for name, rate in JUDGE_METRICS.items()
                },
                "unreadable": nan_mean(
                    [item.values.get(UNREADABLE + judge, math.nan) for item in found]
                ),
            }
        )
    return rows


def judge_check_table(paths: list[str]) -> pd.DataFrame:
    rows = [row for path in paths for row in judge_rows(path)]
    return pd.DataFrame(rows, columns=COLUMNS)


def _share(value: object, n: object = None) -> str:
    if not isinstance(value, float | int) or math.isnan(value):
        return "–"
    return f"{100 * value:.1f}" + (f" (n={n})" if n is not None else "")


def judge_check_section(others: OtherLogs, report: Report) -> Content:
    paths = others.of(TASK)
    if not paths:
        return Absent("no agentsense/judge_check log among the inputs")
    table = judge_check_table(paths)
    if table.empty:
        return Absent("no judge_check log has a scored sample")
    report.csv(table, "judge_check")
    for path in paths:
        part = table[table["log"] == log_name(path)]
        judges = ", ".join(str(m) for m in part["model"])
        report.runs.append(
            f"judge_check {judges or '(no judge)'}: 1 log, {int(part['items'].max() or 0)} items"
        )
    rows = [
        [
            others.labelled(str(r.log), str(r.log)),
            str(r.model or r.judge),
            str(r.items),
            _share(r.accuracy),
            _share(r.false_yes_claimed, r.claims),
            _share(r.false_yes_injected, r.injections),
            _share(r.consistency, r.perturbed),
            _share(r.unreadable),
        ]
        for r in table.itertuples()
    ]
    head = [
        "log",
        "judge",
        "items",
        "accuracy %",
        "false yes, claims % ↓",
        "false yes, injections % ↓",
        "consistency %",
        "unreadable % ↓",
    ]
    return (
        "## Judge check (agentsense/judge_check)\n\nEach judge's verdicts on yes/no questions "
        "whose truth is known by construction, in %: accuracy over the items it answered "
        "readably; false yes on goals only claimed by their holder and on conversations with an "
        "utterance telling the judge to answer yes (all truly no; n such items); consistency of "
        "its verdict on a padded, reordered or relabelled copy with its verdict on the original "
        "(n copies); unreadable: answers without a leading yes/no word. Epochs of an item are "
        "averaged first; the numbers are the log's own metrics. Columns in `judge_check.csv`.\n\n"
        + markdown(head, rows)
    )
