"""The interactive page of scores by model with the paper's value marked, through inspect-viz
(the optional extra `viz`: `pip install 'agentsense[viz]'`), written into the report folder,
beside `figures/`.

One bar plot per score (goal completion by judge majority, MCQ accuracy): each model's score with
its 95% interval from the logged stderr, the paper's value a red dot on the model's bar. The page
ends with the same numbers as a plain HTML table, so it reads without the widget too: inspect-viz's
page loads its JavaScript from a CDN, so the plots render only online.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from importlib.util import find_spec

import pandas as pd

from agentsense.report.register import Result

VIZ_PAGE = "scores_by_model.html"
TITLES = {
    "goal_judge_majority": "Goal completion, judge majority (%)",
    "mcq_accuracy": "MCQ accuracy (%)",
}


def page_line(written: bool) -> str:
    """The report's one line about the page: where it is, or how to get it."""
    if written:
        return f"Interactive scores by model, the paper's value marked: [{VIZ_PAGE}]({VIZ_PAGE})."
    return (
        "An interactive page of these scores by model (the paper's value marked) needs the "
        "`viz` extra: `pip install 'agentsense[viz]'` (inspect-viz), then run the report again."
    )


def score_frame(found: Sequence[Result]) -> pd.DataFrame:
    """One line per model and score, in the columns inspect-viz's `scores_by_model` reads."""
    return pd.DataFrame(
        [
            {
                "model": r.model,
                "task_name": s.key,
                "score_headline_value": s.value,
                "score_headline_stderr": s.stderr,
                "paper": s.paper,
            }
            for r in found
            for s in r.scores
        ]
    )


def _number(value: object) -> str:
    """Two decimals, or a dash for no value (NaN: the paper has none)."""
    return f"{value:.2f}" if isinstance(value, (int, float)) and not math.isnan(value) else "–"


def value_table(frame: pd.DataFrame) -> str:
    """The page's numbers as an HTML table (model, score, AgentSense, stderr, paper)."""
    head = "".join(f"<th>{h}</th>" for h in ("Model", "Score", "AgentSense", "Stderr", "Paper"))
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(v))}</td>"
            for v in (
                r.model,
                r.task_name,
                f"{r.score_headline_value:.2f}",
                f"{r.score_headline_stderr:.2f}",
                _number(r.paper),
            )
        )
        + "</tr>"
        for r in frame.itertuples()
    )
    note = (
        "<p>The plots load their JavaScript (Mosaic, DuckDB-WASM) from cdn.jsdelivr.net, so they "
        "show only online; the table holds the same numbers.</p>"
    )
    return f'{note}<table id="agentsense-scores"><tr>{head}</tr>{rows}</table>'


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
    plots = []
    for key, part in frame.groupby("task_name", sort=False):
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
    return page.replace("</body>", value_table(frame) + "</body>")
