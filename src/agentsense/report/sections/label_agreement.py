"""The *Labelling* section: a labelling run's agreement with the dataset's own labels."""

from __future__ import annotations

from agentsense.report import tables
from agentsense.report.content import Absent, Content
from agentsense.report.document import Inputs
from agentsense.report.headers import HEADERS
from agentsense.report.render import flat, frame_markdown


def labelling_section(inputs: Inputs) -> Content:
    table = tables.label_agreement(inputs.units)
    if table.empty:
        return Absent("no agentsense/labelling log among the inputs")
    inputs.report.csv(flat(table, "labeller"), "label_agreement")
    return (
        "## Labelling: agreement with the dataset's labels\n\nShare of scenario types, goal "
        "categories and sender/receiver roles the labeller gave as the records have them, in %, "
        "mean [95% CI] (n scenes with that label). Export the labels with `agentsense labels LOG "
        "--out labels.json` and pass `--labels labels.json`.\n\n"
        + frame_markdown(table, "Labeller", headers=HEADERS)
    )
