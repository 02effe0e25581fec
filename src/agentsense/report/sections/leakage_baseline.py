"""The *Leakage baseline* section: MCQ accuracy blind and after the interaction (§4.3)."""

from __future__ import annotations

from agentsense.report import tables
from agentsense.report.content import Absent, Content
from agentsense.report.document import Inputs
from agentsense.report.headers import HEADERS
from agentsense.report.render import flat, frame_markdown
from agentsense.report.sections.shared import has_values
from agentsense.sense.score_keys import MCQ_ACCURACY


def leakage_section(inputs: Inputs) -> Content:
    scenes = inputs.units.scenes
    if not (scenes["kind"] == "blind").any():
        return Absent("no agentsense/blind log among the inputs")
    if not has_values(tables.real_scenes(inputs.units), MCQ_ACCURACY):
        return Absent("no run with MCQs after a conversation (full, info or pairwise) to compare")
    table = tables.leakage(inputs.units)
    if table.empty:
        return Absent("no blind run has the model (or pair) of a run with MCQs")
    inputs.report.csv(flat(table, "run"), "leakage")
    return (
        "## Leakage baseline (blind test, §4.3)\n\nMCQ accuracy answered from the scenario "
        "alone (blind) and after the interaction; the gain is paired over the scenes in both.\n\n"
        + frame_markdown(table, "Model / sender × receiver", headers=HEADERS)
    )
