"""The *Sender × receiver* section: pairwise runs as matrices (Figs. 5a, 7, 8)."""

from __future__ import annotations

import pandas as pd

from agentsense.report import tables
from agentsense.report.content import Absent, Content
from agentsense.report.document import Inputs, Report
from agentsense.report.plots import heatmap_figure
from agentsense.report.render import flat, frame_markdown


def _matrix_block(matrix: pd.DataFrame, title: str, name: str, report: Report) -> str:
    if matrix.empty:
        return ""
    report.csv(flat(matrix, "sender"), name)
    figure = report.figure(
        name, lambda path: heatmap_figure(matrix, title, path, "sender", "receiver")
    )
    return f"### {title}\n\n" + frame_markdown(matrix, "sender \\ receiver") + figure


def pairs_section(inputs: Inputs) -> Content:
    units, report = inputs.units, inputs.report
    variants = tables.pairwise_variants(units)
    if not variants:
        return Absent("no agentsense/pairwise log among the inputs")
    parts = [
        "## Sender × receiver (Figs. 5a, 7, 8)\n\nJudge majority in %, mean [95% CI] clustered "
        "by template (n scenes)."
    ]
    for k, variant in enumerate(variants):
        tag = f"_{k + 1}" if len(variants) > 1 else ""
        parts += [
            _matrix_block(
                tables.scene_matrix(units, variant),
                f"All characters{variant}",
                f"pairs{tag}",
                report,
            ),
            _matrix_block(
                tables.role_matrix(units, "sender", variant),
                f"Senders{variant}",
                f"pairs_senders{tag}",
                report,
            ),
            _matrix_block(
                tables.role_matrix(units, "receiver", variant),
                f"Receivers{variant}",
                f"pairs_receivers{tag}",
                report,
            ),
        ]
    return "\n\n".join(p for p in parts if p)
