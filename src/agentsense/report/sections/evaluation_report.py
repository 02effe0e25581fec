"""*Evaluation report*: Table 1's headline scores in the Inspect Evals Register's shape.

Writes `evaluation_report.yaml` (the `evaluation_report` block of register/agentsense/eval.yaml)
and `evaluation_report.csv`, and, with the `viz` extra, the interactive page
`figures/scores_by_model.html` (report.viz_page).
"""

from __future__ import annotations

import pandas as pd

from agentsense.report import tables
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.register import block, block_yaml, results, table_markdown
from agentsense.report.viz_page import VIZ_PAGE, page_line, scores_page

YAML_FILE = "evaluation_report.yaml"


def evaluation_report_section(inputs: Inputs) -> Content:
    units, report = inputs.units, inputs.report
    if tables.scored_scenes(units).empty:
        return Absent("no scored sample of a model run (full, goal or info)")
    found = results(tables.table_one(units), units.scenes, units.runs)
    if not found:
        return Absent("no Table 1 row of one model (pairwise rows have no paper counterpart)")
    report.files[YAML_FILE] = block_yaml(block(found, units.runs))
    report.csv(
        pd.DataFrame(
            [
                {
                    "model": r.model,
                    "paper_model": r.paper_model,
                    "score": s.key,
                    "agentsense": s.value,
                    "paper": s.paper,
                    "difference": s.difference,
                    "samples": s.samples,
                    "stderr": s.stderr,
                    "time": r.time,
                }
                for r in found
                for s in r.scores
            ]
        ),
        "evaluation_report",
    )
    text = (
        "## Evaluation report\n\nTable 1's goal completion (judge majority) and MCQ accuracy in "
        "the paper's units (%), with the stderr Inspect logs (clustered by template), the "
        "paper's value and the difference where the run is comparable to the paper. "
        f"`{YAML_FILE}` holds the same numbers as the `evaluation_report` block of an Inspect "
        "Evals Register entry (register/agentsense/eval.yaml).\n\n" + table_markdown(found)
    )
    reasons = [f"- {r.model}: no paper value, {r.why_no_paper}." for r in found if r.why_no_paper]
    if reasons:
        text += "\n\n" + "\n".join(reasons)
    if report.draw:
        page = scores_page(found)
        if page is not None:
            report.files[f"figures/{VIZ_PAGE}"] = page
        text += "\n\n" + page_line(page is not None)
    return text
