"""The breakdown sections: *Goal categories* (Fig. 6), *Over-confidence*, the scene factors
*Scenario type* (Fig. 9), *Participants* (Fig. 11) and *Rounds (max messages)* (Fig. 10), the
*Sender × receiver* matrices (Figs. 5a, 7, 8) and *Attacker and defender* (§5.2, Fig. 5b)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import pandas as pd

from agentsense.report import tables
from agentsense.report.document import Absent, Content, Inputs, Report
from agentsense.report.frames import Units
from agentsense.report.plots import (
    DIFFERENCE_LIMITS,
    SCORE_LIMITS,
    Panel,
    bar_figure,
    heatmap_figure,
)
from agentsense.report.render import bar_panels, flat, frame_markdown, header, long_flat, wide

SCENE_FACTORS = (
    ("scenario_type", "Scenario type", "by_scenario_type", "Fig. 9"),
    ("n_characters", "Participants", "by_participants", "Fig. 11"),
    ("rounds", "Rounds (max messages)", "by_rounds", "Fig. 10"),
)


@dataclass(frozen=True)
class Breakdown:
    by: str  # column of the unit frame
    label: str  # what its levels are
    name: str  # file stem
    title: str
    metrics: Sequence[str] = tables.BREAKDOWN_METRICS
    limits: tuple[float, float] = SCORE_LIMITS


def _breakdown(frame: pd.DataFrame, spec: Breakdown, report: Report, why: str) -> Content:
    if frame.empty:
        return Absent(why)
    report.csv(long_flat(frame), spec.name)
    panels = bar_panels(frame, spec.by, spec.metrics)
    # The table shows the first metric scored (judge majority unless only MCQs were).
    primary = next(m for m in spec.metrics if (frame["metric"] == m).any())
    figure = report.figure(spec.name, partial(bar_figure, panels, spec.title, limits=spec.limits))
    table = wide(frame, spec.by, primary)
    return (
        f"## {spec.title}\n\n{header(primary)} in %, mean [95% CI] clustered by "
        f"template (n); all metrics in `{spec.name}.csv`.\n\n"
        + frame_markdown(table, spec.label)
        + figure
    )


def _goal_inputs(units: Units) -> Absent | None:
    if units.goals.empty:
        return Absent("no run with judged goals (full, goal or pairwise)")
    if not units.goals["category"].notna().any():
        return Absent(
            "no goal has a category: label them with agentsense/labelling and pass --labels"
        )
    return None


def category_section(inputs: Inputs) -> Content:
    missing = _goal_inputs(inputs.units)
    if missing:
        return missing
    spec = Breakdown(
        "category", "goal category", "by_category", "Goal completion by goal category (Fig. 6)"
    )
    frame = tables.breakdown(inputs.units.goals, "category", tables.BREAKDOWN_METRICS)
    return _breakdown(frame, spec, inputs.report, "no goal")


def overconfidence_section(inputs: Inputs) -> Content:
    missing = _goal_inputs(inputs.units)
    if missing:
        return missing
    spec = Breakdown(
        "category",
        "goal category",
        "overconfidence",
        "Over-confidence by goal category (self − judge majority)",
        ["overconfidence"],
        DIFFERENCE_LIMITS,
    )
    frame = tables.overconfidence(inputs.units)
    return _breakdown(frame, spec, inputs.report, "no goal with both a self and a judge score")


def scene_section(by: str, label: str, name: str, figure: str) -> Callable[[Inputs], Content]:
    def section(inputs: Inputs) -> Content:
        frame = tables.scene_breakdown(inputs.units, by)
        spec = Breakdown(
            by,
            label,
            name,
            f"Scores by {label.lower()} ({figure})",
            tables.SCENE_BREAKDOWN_METRICS,
        )
        why = "no scored conversation run (full, goal, info or pairwise)"
        return _breakdown(frame, spec, inputs.report, why)

    return section


# --- sender x receiver, attacker and defender --------------------------------------------------


def _matrix_block(matrix: pd.DataFrame, title: str, name: str, report: Report) -> str:
    if matrix.empty:
        return ""
    report.csv(flat(matrix, "sender"), name)
    figure = report.figure(
        name, partial(heatmap_figure, matrix, title, rows="sender", columns="receiver")
    )
    return f"### {title}\n\n" + frame_markdown(matrix, "sender \\ receiver") + figure


def pairs_section(inputs: Inputs) -> Content:
    units, report = inputs.units, inputs.report
    # The settings variants of the pairwise runs: one set of matrices each (normally just "").
    scenes = units.scenes
    variants = sorted(set(scenes.loc[scenes["kind"] == "pairwise", "variant"]))
    if not variants:
        return Absent("no agentsense/pairwise log among the inputs")
    parts = [
        "## Sender × receiver (Figs. 5a, 7, 8)\n\nJudge majority in %, mean [95% CI] clustered "
        "by template (n scenes)."
    ]
    for k, variant in enumerate(variants):
        tag = f"_{k + 1}" if len(variants) > 1 else ""
        matrices = {
            ("All characters", "pairs"): tables.scene_matrix(units, variant),
            ("Senders", "pairs_senders"): tables.role_matrix(units, "sender", variant),
            ("Receivers", "pairs_receivers"): tables.role_matrix(units, "receiver", variant),
        }
        parts += [
            _matrix_block(matrix, f"{title}{variant}", f"{name}{tag}", report)
            for (title, name), matrix in matrices.items()
        ]
    return "\n\n".join(p for p in parts if p)


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
        partial(bar_figure, [panel], "Attacker and defender (Fig. 5b)"),
    )
    return (
        "## Attacker and defender (§5.2, Fig. 5b)\n\n"
        "Attack: MCQ accuracy of the model's characters. "
        "Defence: 1 − accuracy of the MCQs about its characters' secrets (target rule in "
        "docs/analysis.md). In %, mean [95% CI] clustered by template (n questions).\n\n"
        + frame_markdown(table, "Model")
        + figure
    )
