"""Template-clustered intervals, the PSI bootstrap over templates and the minimum detectable
difference (report.stats), on hand-computed cases."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import pytest
from inspect_ai.scorer import SampleScore, Score
from scipy import stats as sps

from agentsense.analysis.stats import (
    DIFFERENCE,
    MIN_TEMPLATES,
    UNIT,
    cluster_fit,
    clustered_mean_ci,
    mean_ci,
    min_detectable_difference,
    template_bootstrap_ci,
    template_mean_bootstrap_ci,
)
from agentsense.report.render import cell
from agentsense.sense.metrics import clustered_uncertainty, profile_sensitivity

# Templates 1: [1, 0, 1], 2: [.5, .5], 3: [0, 1]. Mean 4/7; deviation sums 2/7, -1/7, -1/7;
# clustered SE = sqrt((4 + 1 + 1)/49 * 3/2) / 7 = 3/49; t interval with 2 degrees of freedom.
VALUES = [1.0, 0.0, 1.0, 0.5, 0.5, 0.0, 1.0]
TEMPLATES = ["1", "1", "1", "2", "2", "3", "3"]
T_2 = 4.302652729911275


def wilson(p: float, se: float, critical: float) -> tuple[float, float]:
    """The Wilson score interval at n* = p(1 - p) / se², written out by hand."""
    size = p * (1 - p) / se**2
    z2 = critical**2
    center = (p + z2 / (2 * size)) / (1 + z2 / size)
    half = critical * math.sqrt(p * (1 - p) / size + z2 / (4 * size**2)) / (1 + z2 / size)
    return center - half, center + half


def test_clustered_interval_hand_computed() -> None:
    fit = cluster_fit(VALUES, TEMPLATES)
    assert (fit.mean, fit.se, fit.n, fit.clusters) == pytest.approx((4 / 7, 3 / 49, 7, 3))
    estimate = clustered_mean_ci(VALUES, TEMPLATES)
    # Wilson at the Korn-Graubard effective size, t on C - 1 = 2 degrees of freedom.
    assert (estimate.low, estimate.high) == pytest.approx(wilson(4 / 7, 3 / 49, T_2))
    assert estimate.clusters == 3 and estimate.caveat == "too few templates (3)"
    # Inside the range it has the t interval's spread: its bounds are within 0.05 of mean ± t·SE.
    assert estimate.low == pytest.approx(4 / 7 - T_2 * 3 / 49, abs=0.05)
    assert estimate.high == pytest.approx(4 / 7 + T_2 * 3 / 49, abs=0.05)
    # The naive interval treats the 7 scenes as independent: t(6) * sd / sqrt(7).
    naive = mean_ci(VALUES)
    assert naive.half_width == pytest.approx(sps.t.ppf(0.975, 6) * sps.tstd(VALUES) / math.sqrt(7))
    # Here templates differ less than the scenes inside them, so clustering narrows the interval.
    assert estimate.half_width < naive.half_width


def test_report_interval_is_the_wilson_interval_of_the_logged_stderr() -> None:
    """The report's clustered SE (statsmodels) is the log's (Inspect's stderr(cluster=...)), and
    its interval is the Wilson interval at n* = p(1 - p) / SE²."""
    scores = [
        SampleScore(score=Score(value=v), sample_id=i, sample_metadata={"template_id": t})
        for i, (v, t) in enumerate(zip(VALUES, TEMPLATES, strict=True))
    ]
    [stderr_metric] = clustered_uncertainty()
    logged = cast(Callable[[list[SampleScore]], Any], stderr_metric)(scores)
    assert cluster_fit(VALUES, TEMPLATES).se == pytest.approx(logged)
    estimate = clustered_mean_ci(VALUES, TEMPLATES)
    assert (estimate.low, estimate.high) == pytest.approx(wilson(4 / 7, logged, T_2))


@pytest.mark.parametrize(
    ("values", "templates", "bounds"),
    [
        ([1.0, 1.0, 0.9, 1.0, 0.6, 1.0], ["a", "a", "b", "b", "c", "c"], UNIT),  # near 1
        ([0.0, 0.1, 0.0, 0.0], ["a", "a", "b", "b"], UNIT),  # near 0, 2 templates
        ([0.0, 0.0, 0.0, 0.0], ["a", "a", "b", "b"], UNIT),  # all at the bound
        ([-1.0, -0.9, -1.0, 0.2], ["a", "a", "b", "b"], DIFFERENCE),  # differences
        ([0.9, 1.0, 0.0, 1.0], ["a", "b", "c", "d"], UNIT),  # one scene per template
    ],
)
def test_intervals_stay_in_the_metric_range(
    values: list[float], templates: list[str], bounds: tuple[float, float]
) -> None:
    estimate = clustered_mean_ci(values, templates, bounds)
    low, high = bounds
    assert low <= estimate.low <= estimate.mean <= estimate.high <= high
    naive_t = cluster_fit(values, templates).interval()
    if naive_t.low < low or naive_t.high > high:  # where the t interval leaves the range
        assert estimate.low >= low and estimate.high <= high
    if values == [0.0] * 4:  # no spread at a bound: still an interval, not a point
        assert estimate.high > 0


def test_one_template_is_undefined_and_few_are_flagged() -> None:
    assert clustered_mean_ci([*VALUES, math.nan], [*TEMPLATES, "9"]).clusters == 3
    alone = clustered_mean_ci([0.0, 1.0], ["1", "1"])
    assert alone.mean == 0.5 and math.isnan(alone.low) and math.isnan(alone.high)
    assert alone.caveat == "undefined (1 template)"
    many = clustered_mean_ci([0.2, 0.4] * MIN_TEMPLATES, [str(i // 2) for i in range(10)])
    assert many.clusters == MIN_TEMPLATES and many.caveat == ""
    assert cell(alone) == "50.0 undefined (1 template)"
    assert cell(clustered_mean_ci(VALUES, TEMPLATES)).endswith(", too few templates (3)")


def test_psi_bootstrap_over_templates_hand_computed() -> None:
    # Templates A [0, 1] (sd √½) and B [.5, .5] (sd 0): PSI = √½ / 2. Resampling two templates
    # gives PSI 0 (B, B) with probability 1/4, √½/2 with 1/2 and √½ (A, A) with 1/4, so the
    # 2.5% and 97.5% percentiles are 0 and √½.
    groups = {"A": [0.0, 1.0], "B": [0.5, 0.5]}

    def psi(g: dict[str, list[float]]) -> float:
        return profile_sensitivity(g, "skip")

    estimate = template_bootstrap_ci(groups, psi)
    assert estimate.mean == pytest.approx(math.sqrt(0.5) / 2)
    assert estimate.low == pytest.approx(0.0)
    assert estimate.high == pytest.approx(math.sqrt(0.5))
    assert template_bootstrap_ci(groups, psi) == estimate  # seeded: reproducible


@pytest.mark.parametrize("templates", [2, 5, 12])
def test_template_bootstrap_draws_are_scipys(templates: int) -> None:
    """All draws are taken at once and evaluated together, yet they are the draws (and the
    percentiles) of `scipy.stats.bootstrap` with the same seed, one resample at a time."""
    rng = np.random.default_rng(templates)
    groups = {f"t{k}": list(rng.random(4)) for k in range(templates)}
    names = sorted(groups)

    def psi(g: dict[str, list[float]]) -> float:
        return profile_sensitivity(g, "skip")

    scipys = sps.bootstrap(
        (np.arange(templates),),
        lambda idx: psi({str(k): groups[names[int(i)]] for k, i in enumerate(idx)}),
        n_resamples=2000,
        vectorized=False,
        method="percentile",
        rng=np.random.default_rng(0),
    ).confidence_interval
    estimate = template_bootstrap_ci(groups, psi)
    assert (estimate.low, estimate.high) == (scipys.low, scipys.high)
    # The vectorised mean of per-template numbers: the same draws, to float rounding.
    stds = {name: float(np.std(values, ddof=1)) for name, values in groups.items()}
    mean = template_mean_bootstrap_ci(stds)
    assert mean.mean == pytest.approx(estimate.mean, rel=1e-12)
    assert (mean.low, mean.high) == pytest.approx((estimate.low, estimate.high), rel=1e-12)


def test_minimum_detectable_difference_has_the_stated_power() -> None:
    diffs = [0.1, -0.2, 0.0, 0.05, -0.1, 0.2, -0.05, 0.0, 0.1, -0.1]
    clusters = ["a", "a", "b", "b", "c", "c", "d", "d", "e", "e"]
    alpha = 0.05
    mde = min_detectable_difference(diffs, clusters, alpha)
    fit = cluster_fit(diffs, clusters)
    # Definition: a one-sided t-test on C - 1 = 4 df rejects with probability 0.8 when the true
    # mean is MDE, i.e. 1 - F_nct(t_crit; df, nc = MDE / SE) = 0.8.
    critical = sps.t.ppf(1 - alpha, 4)
    assert 1 - sps.nct.cdf(critical, 4, mde / fit.se) == pytest.approx(0.8, abs=1e-6)
    # Many clusters: close to the normal approximation (z_0.95 + z_0.8) x SE.
    many = [(-1.0) ** i * 0.1 for i in range(400)]
    normal = (sps.norm.ppf(0.95) + sps.norm.ppf(0.8)) * cluster_fit(many, range(400)).se
    assert min_detectable_difference(many, range(400), 0.05) == pytest.approx(normal, rel=0.01)
    assert math.isnan(min_detectable_difference([0.1, 0.2], ["a", "a"], alpha))
