"""The *Profile sensitivity* section (paper §3.4, §5.3, App. D.6): per-template spread and
abnormal templates (docs/analysis.md, *The chi-square test for abnormal templates*).

Per run and template, the chi-square test for one variance, chi2 = (n - 1) · s² / sigma0² on
n - 1 degrees of freedom (n the template's scored scenes, s² their variance with ddof=1, sigma0²
the variance of the run's scene scores over all scenes with ddof=0), two-sided, rejected when
p < alpha. A template is *abnormal* when rejected for more than half of the runs tested on it.
Each template's std has a 95% chi-square interval (`stats.std_ci`), shown in the figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from agentsense.analysis.logs import records
from agentsense.analysis.stats import Estimate, std_ci, variance_test
from agentsense.report import tables
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.frames import Units
from agentsense.report.plots import FigureRecord, Panel, bar_figure
from agentsense.report.render import header, markdown


@dataclass
class Sensitivity:
    metric: str
    alpha: float
    tests: pd.DataFrame  # one row per (group, template)
    templates: pd.DataFrame  # one row per template: runs tested, rejections, abnormal


def template_tests(scenes: pd.DataFrame, metric: str, alpha: float) -> pd.DataFrame:
    rows = []
    for group, run in scenes.groupby("group", sort=True):
        values = run.dropna(subset=[metric])
        population = float(np.var(values[metric].astype(float), ddof=0)) if len(values) else np.nan
        for template, part in values.groupby("template_id", sort=True):
            scores = list(part[metric].astype(float))
            test = variance_test(scores, population)
            spread = std_ci(scores)
            rows.append(
                {
                    "group": group,
                    "template_id": template,
                    "n": len(scores),
                    "mean": float(np.mean(scores)),
                    "std": spread.mean,
                    "std_low": spread.low,
                    "std_high": spread.high,
                    "population_variance": population,
                    "chi2": test.chi2,
                    "p": test.p,
                    "rejected": bool(test.p < alpha) if not np.isnan(test.p) else None,
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "group",
            "template_id",
            "n",
            "mean",
            "std",
            "std_low",
            "std_high",
            "population_variance",
            "chi2",
            "p",
            "rejected",
        ],
    )


def std_estimates(tests: pd.DataFrame) -> dict[str, dict[str, Estimate]]:
    """group -> template -> the per-template std with its 95% CI (`std_ci`), as tested."""
    return {
        str(group): {
            str(row["template_id"]): Estimate(
                float(row["std"]), float(row["std_low"]), float(row["std_high"]), int(row["n"])
            )
            for row in records(part)
        }
        for group, part in tests.groupby("group", sort=True)
    }


def abnormal_templates(tests: pd.DataFrame) -> pd.DataFrame:
    tested = tests.dropna(subset=["p"])
    rejected = tested["rejected"].astype(bool).groupby(tested["template_id"], sort=True)
    counts = pd.DataFrame({"runs_tested": rejected.size(), "rejections": rejected.sum()})
    return counts.assign(abnormal=counts["rejections"] > counts["runs_tested"] / 2).reset_index()


def profile_sensitivity(units: Units, metric: str, alpha: float) -> Sensitivity:
    scenes = units.scenes[units.scenes["kind"].isin(["homogeneous", "pairwise"])]
    if metric not in scenes.columns:
        scenes = scenes.iloc[0:0].assign(**{metric: []})
    tests = template_tests(scenes, metric, alpha)
    return Sensitivity(metric, alpha, tests, abnormal_templates(tests))


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
        "sensitivity", partial(_sensitivity_figure, result)
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
