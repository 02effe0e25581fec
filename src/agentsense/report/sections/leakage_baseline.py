"""The *Leakage baseline* section: MCQ accuracy blind and after the interaction (§4.3)."""

from __future__ import annotations

from ...score_keys import MCQ_ACCURACY
from .. import tables
from ..content import Absent, Content
from ..document import Inputs
from ..headers import HEADERS
from ..render import flat, frame_markdown
from .shared import has_values


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
