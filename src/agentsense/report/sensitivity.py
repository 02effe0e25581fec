"""Profile sensitivity (paper §3.4, §5.3, App. D.6): per-template spread and abnormal templates.

For each run (model) and template, the scores of the template's scenes (its character sets) are
compared with the run's scores over all scenes by the chi-square test for one variance:

    chi2 = (n - 1) · s² / sigma0²,   n - 1 degrees of freedom,

where n is the number of the template's scored scenes, s² their sample variance (ddof=1) and
sigma0² the variance of the run's scene scores over all scenes (population variance, ddof=0).
H0: the template's variance equals the overall variance; H1: it differs (two-sided,
p = 2 · min(P(X <= chi2), P(X >= chi2))); H0 is rejected when p < alpha (0.05 in the paper).

A template is *abnormal* when H0 is rejected for more than half of the runs tested on it (the
paper: "rejecting over 5 models' results" of 11). Scores are the scene scores of one metric
(default: judge majority, the paper's primary metric), epochs averaged. Each template's std has a
95% chi-square interval under the same normal model (`stats.std_ci`); the table and the figure
show that std.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..analysis.logs import records
from ..analysis.stats import Estimate, std_ci, variance_test
from ..score_keys import HEADLINE
from .frames import Units

DEFAULT_METRIC = HEADLINE
ALPHA = 0.05


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
    rows = []
    for template, part in tested.groupby("template_id", sort=True):
        rejected = int(part["rejected"].astype(bool).sum())
        rows.append(
            {
                "template_id": template,
                "runs_tested": len(part),
                "rejections": rejected,
                "abnormal": rejected > len(part) / 2,
            }
        )
    return pd.DataFrame(rows, columns=["template_id", "runs_tested", "rejections", "abnormal"])


def profile_sensitivity(
    units: Units, metric: str = DEFAULT_METRIC, alpha: float = ALPHA
) -> Sensitivity:
    scenes = units.scenes[units.scenes["kind"].isin(["homogeneous", "pairwise"])]
    if metric not in scenes.columns:
        scenes = scenes.iloc[0:0].assign(**{metric: []})
    tests = template_tests(scenes, metric, alpha)
    return Sensitivity(metric, alpha, tests, abnormal_templates(tests))
