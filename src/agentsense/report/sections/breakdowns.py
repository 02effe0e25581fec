"""The breakdown sections: *Goal categories* (Fig. 6), *Over-confidence*, and the scene factors
*Scenario type* (Fig. 9), *Participants* (Fig. 11) and *Rounds (max messages)* (Fig. 10)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from agentsense.report import tables
from agentsense.report.content import Absent, Content
from agentsense.report.document import Inputs, Report
from agentsense.report.frames import Units
from agentsense.report.headers import HEADERS
from agentsense.report.plots import DIFFERENCE_LIMITS, SCORE_LIMITS, bar_figure
from agentsense.report.render import frame_markdown, long_flat, wide
from agentsense.report.sections.shared import bar_panels

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
    figure = report.figure(
        spec.name, lambda path: bar_figure(panels, spec.title, path, limits=spec.limits)
    )
    table = wide(frame, spec.by, primary)
    return (
        f"## {spec.title}\n\n{HEADERS.get(primary, primary)} in %, mean [95% CI] clustered by "
        f"template (n); all metrics in `{spec.name}.csv`.\n\n"
        + frame_markdown(table, spec.label, headers=HEADERS)
        + figure
    )


def _goal_inputs(units: Units) -> Absent | None:
    if units.goals.empty:
        return Absent("no run with judged goals (full, goal or pairwise)")
    if not tables.has_categories(units):
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
    return _breakdown(tables.category_breakdown(inputs.units), spec, inputs.report, "no goal")


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
