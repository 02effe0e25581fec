"""The *Uncertainty* section: clustered against naive interval half-widths."""

from __future__ import annotations

from agentsense.report import tables
from agentsense.report.content import Absent, Content
from agentsense.report.document import Inputs
from agentsense.report.headers import HEADERS
from agentsense.report.render import markdown
from agentsense.report.sections.shared import number, percent


def uncertainty_section(inputs: Inputs) -> Content:
    table = tables.uncertainty(inputs.units)
    if table.empty:
        return Absent("no scored conversation run (full, goal, info or pairwise)")
    inputs.report.csv(table, "uncertainty")
    rows = [
        [
            str(r.group),
            HEADERS.get(str(r.metric), str(r.metric)),
            str(r.n),
            str(r.templates),
            percent(r.mean),
            percent(r.naive_half_width),
            percent(r.half_width),
            str(r.method),
            number(r.ratio),
        ]
        for r in table.itertuples()
    ]
    head = [
        "Run",
        "metric",
        "n",
        "templates",
        "mean %",
        "± naive",
        "± reported",
        "reported interval",
        "reported / naive",
    ]
    return (
        "## Uncertainty: clustered and naive intervals\n\nHalf-widths (in %) of the 95% "
        "interval that treats the n scenes (templates, for PSI) as independent (naive t) and of "
        "the one the report gives: clustered by template for means, a bootstrap over templates "
        "for PSI. A ratio above 1 means the naive interval is too narrow.\n\n"
        + markdown(head, rows)
    )
