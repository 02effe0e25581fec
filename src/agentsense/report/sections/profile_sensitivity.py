"""The *Profile sensitivity* section: the chi-square variance test of App. D.6 per template."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .. import tables
from ..document import Absent, Content, Inputs
from ..plots import FigureRecord, Panel, bar_figure
from ..render import header, markdown
from ..sensitivity import Sensitivity, profile_sensitivity, std_estimates


def sensitivity_section(inputs: Inputs) -> Content:
    units, options, report = inputs.units, inputs.options, inputs.report
    metric = options.sensitivity_metric
    if not tables.has_values(tables.real_scenes(units), metric):
        return Absent(f"no conversation run scored {metric} (choose --sensitivity-metric)")
    result = profile_sensitivity(units, metric, options.alpha)
    if result.templates.empty:
        # The variance test needs 2+ scored scenes in a template and a spread over the run.
        return Absent(
            f"no template could be tested on {metric} (each needs 2 or more scored scenes, "
            f"and {metric} must vary over the run's scenes)"
        )
    report.csv(result.tests, "sensitivity_tests")
    report.csv(result.templates, "abnormal_templates")
    return _sensitivity_text(result) + report.figure(
        "sensitivity", lambda path: _sensitivity_figure(result, path)
    )


def _sensitivity_text(result: Sensitivity) -> str:
    stds = result.tests.pivot(index="template_id", columns="group", values="std")
    rows = [
        [str(t), *(f"{v * 100:.1f}" if pd.notna(v) else "–" for v in row)]
        for t, row in zip(stds.index, stds.itertuples(index=False), strict=True)
    ]
    abnormal = result.templates[result.templates["abnormal"]]
    listed = ", ".join(str(t) for t in abnormal["template_id"]) or "none"
    return (
        f"## Profile sensitivity (§5.3, App. D.6)\n\nPer-template std of {result.metric} over the "
        "template's scenes (in %):\n\n"
        + markdown(["template", *map(str, stds.columns)], rows)
        + f"\n\nChi-square variance test per run and template (alpha = {result.alpha}); "
        "a template is abnormal when rejected for more than half of the runs tested on it. "
        f"**Abnormal templates: {listed}** ({len(result.templates)} templates tested; details in "
        "`sensitivity_tests.csv`, `abnormal_templates.csv`)."
    )


def _sensitivity_figure(result: Sensitivity, path: Path) -> FigureRecord:
    """The table's numbers: each template's std per run, with its 95% CI."""
    abnormal = {str(t) for t in result.templates.loc[result.templates["abnormal"], "template_id"]}
    stds = std_estimates(result.tests)
    templates = sorted({t for by_template in stds.values() for t in by_template}, key=_order)
    panel = Panel(
        f"Per-template std of {header(result.metric)}",
        [f"{t}*" if t in abnormal else t for t in templates],
        {group: [by_template.get(t) for t in templates] for group, by_template in stds.items()},
    )
    title = f"{result.metric}: per-template std (* abnormal)"
    return bar_figure([panel], title, path, ylabel="std over the template's scenes (%, 95% CI)")


def _order(template: str) -> tuple[int, float | str]:
    """Templates in the table's order: numbers by value, then names."""
    try:
        return 0, float(template)
    except ValueError:
        return 1, template
