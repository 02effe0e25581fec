"""The *Judges against human labels* section: a filled `agentsense annotate` sheet."""

from __future__ import annotations

from agentsense.report.content import Absent, Content
from agentsense.report.document import Inputs


def human_labels_section(inputs: Inputs) -> Content:
    if inputs.options.annotations is None:
        return Absent("no annotation sheet: pass --labels SHEET.csv (from `agentsense annotate`)")
    from agentsense.report.annotate import agreement_markdown, human_agreement

    result = human_agreement(inputs.runs, inputs.options.annotations)
    inputs.report.csv(result.judges, "human_judges")
    inputs.report.csv(result.by_category, "human_judges_by_category")
    return agreement_markdown(result)
