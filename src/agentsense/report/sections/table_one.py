"""The *Table 1* section: overall performance per run (paper Table 1), with its bar figure."""

from __future__ import annotations

import pandas as pd

from ...analysis.stats import MIN_TEMPLATES, Estimate
from ...score_keys import BLIND_MCQ_ACCURACY, HEADLINE, MCQ_ACCURACY
from .. import tables
from ..content import Absent, Content
from ..document import Inputs
from ..headers import HEADERS
from ..plots import Panel, bar_figure
from ..render import flat, frame_markdown
from ..usage import calls_of, run_usage, table_one_notes
from .shared import scored_scenes


def table_one_section(inputs: Inputs) -> Content:
    units, report = inputs.units, inputs.report
    if scored_scenes(units).empty:
        return Absent("no scored sample of a model run (full, goal, info, pairwise or blind)")
    table = tables.table_one(units)
    report.csv(flat(table, "run"), "table1")
    counts = pd.DataFrame(
        {
            "n scenes": [_n(r, HEADLINE) for r in table.itertuples()],
            "n MCQ scenes": [_n(r, MCQ_ACCURACY) for r in table.itertuples()],
            "n templates (goal PSI)": [_n(r, "goal_psi") for r in table.itertuples()],
            "n blind scenes": [_n(r, BLIND_MCQ_ACCURACY) for r in table.itertuples()],
            "n conversations": list(table["conversations"]),
            "n blind conversations": list(table["blind_conversations"]),
        },
        index=table.index,
    )
    shown = pd.concat(
        [table.drop(columns=["conversations", "blind_conversations"]), counts], axis=1
    )
    # Columns no run has a value for (e.g. MCQ columns of a goal-only report) are not shown.
    shown = shown[[c for c in shown.columns if c == "kind" or _filled(shown[c])]]
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
        + frame_markdown(shown, "Model / sender × receiver", with_n=False, headers=HEADERS)
    )
    panels = [
        Panel(HEADERS[m], list(table.index), {"mean": list(table[m])})
        for m in (HEADLINE, MCQ_ACCURACY, BLIND_MCQ_ACCURACY)
        if any(isinstance(v, Estimate) and v.n for v in table[m])
    ]
    if panels:
        text += report.figure(
            "overall", lambda path: bar_figure(panels, "Overall performance", path)
        )
    return text + _bill_notes(inputs)


def _bill_notes(inputs: Inputs) -> str:
    calls = calls_of(inputs.units.runs, inputs.runs.calls)
    lines = table_one_notes(run_usage(calls)) if not calls.empty else []
    return "".join(f"\n\n- Tokens: {line} (see *Cost and tokens*)." for line in lines)


def _filled(column: pd.Series) -> bool:
    return any((v.n > 0) if isinstance(v, Estimate) else bool(v) and not pd.isna(v) for v in column)


def _n(row: object, column: str) -> int:
    value = getattr(row, column)
    return value.n if isinstance(value, Estimate) else 0
