"""*Evaluation report*: Table 1's headline scores in the Inspect Evals Register's shape.

Writes `evaluation_report.md` (the section's Markdown table, to paste into a README),
`evaluation_report.csv`, `evaluation_report.yaml` (the `evaluation_report` block of
register/agentsense/eval.yaml, from the `full` runs: the entry's task) and, with the `viz` extra,
the interactive page `scores_by_model.html` (report.viz_page; in the report folder, not in
`figures/`, which holds the PNGs `figures.json` describes).
"""

from __future__ import annotations

import pandas as pd

from agentsense.report import tables
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.register import (
    REGISTER_TASK,
    Result,
    block,
    block_yaml,
    entry_results,
    results,
    table_markdown,
)
from agentsense.report.viz_page import VIZ_PAGE, page_line, scores_page

YAML_FILE = "evaluation_report.yaml"
TABLE_FILE = "evaluation_report.md"


def _frame(found: list[Result]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "model": r.model,
                "task": r.task,
                "paper_model": r.paper_model,
                "score": s.key,
                "agentsense": s.value,
                "paper": s.paper,
                "difference": s.difference,
                "samples": s.samples,
                "stderr": s.stderr,
                "time": r.time,
                "date": r.date,
            }
            for r in found
            for s in r.scores
        ]
    )


def evaluation_report_section(inputs: Inputs) -> Content:
    units, report = inputs.units, inputs.report
    if tables.scored_scenes(units).empty:
        return Absent("no scored sample of a model run (full, goal or info)")
    found = results(units)
    if not found:
        return Absent("no Table 1 row of one model (pairwise rows have no paper counterpart)")
    table = table_markdown(found)
    report.files[TABLE_FILE] = table + "\n"
    report.csv(_frame(found), "evaluation_report")
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
