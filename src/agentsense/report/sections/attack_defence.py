"""The *Attacker and defender* section (§5.2, Fig. 5b)."""

from __future__ import annotations

from agentsense.report import tables
from agentsense.report.content import Absent, Content
from agentsense.report.document import Inputs
from agentsense.report.headers import HEADERS
from agentsense.report.plots import Panel, bar_figure
from agentsense.report.render import flat, frame_markdown


def attack_section(inputs: Inputs) -> Content:
    table = tables.attack_defence(inputs.units)
    if table.empty:
        return Absent("no MCQ answered after a conversation (full, info or pairwise)")
    inputs.report.csv(flat(table, "model"), "attack_defence")
    panel = Panel(
        "Attacker / defender",
        list(table.index),
        {"attack": list(table["attack"]), "defence": list(table["defence"])},
    )
    figure = inputs.report.figure(
        "attack_defence",
        lambda path: bar_figure([panel], "Attacker and defender (Fig. 5b)", path),
    )
    return (
        "## Attacker and defender (§5.2, Fig. 5b)\n\n"
        "Attack: MCQ accuracy of the model's characters. "
        "Defence: 1 − accuracy of the MCQs about its characters' secrets (target rule in "
        "docs/analysis.md). In %, mean [95% CI] clustered by template (n questions).\n\n"
        + frame_markdown(table, "Model", headers=HEADERS)
        + figure
    )
