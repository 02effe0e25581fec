"""The statistics of reports and comparisons (scipy, statsmodels): docs/analysis.md,
"Statistics" (intervals, PSI, few templates) and `agentsense compare` (the paired tests, the
regression test, the minimum detectable difference).

- A mean's 95% interval stays in the metric's range (scores in [0, 1], differences in [-1, 1],
  mapped onto [0, 1] first): the Wilson score interval at the Korn-Graubard effective sample size
  n* = p(1 - p) / v, v the template-clustered variance of the mean, with a Student-t critical
  value on C - 1 degrees of freedom (C templates). n* is not capped at n as in Inspect's
  `ci_wilson`: a scene score averages several answers.
- Clustered tests use the cluster-robust SE (statsmodels OLS on a constant, clustered by
  template, correction C/(C - 1)) and t on C - 1 degrees of freedom.
- Bootstraps (PSI, variance shares) resample whole templates (`template_bootstrap`).
- The variance test of App. D.6 is the chi-square test for one variance, two-sided.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy import stats as sps
from statsmodels.stats.power import TTestPower

CONFIDENCE = 0.95
# Below this many templates an interval is shown with "too few templates (k)": with C - 1 < 4
# degrees of freedom the interval rests on very few independent units.
MIN_TEMPLATES = 5
Bounds = tuple[float, float]
# A clustered variance this small is float noise of identical values.
NO_SPREAD = 1e-15
UNIT: Bounds = (0.0, 1.0)  # scores: proportions
DIFFERENCE: Bounds = (-1.0, 1.0)  # a difference of two scores
POWER = 0.8
BOOTSTRAP_RESAMPLES = 2000
Test = Literal["t", "wilcoxon"]


@dataclass(frozen=True)
class Estimate:
    """A mean with its confidence interval and the number of values behind it."""

    mean: float
    low: float
    high: float
    n: int
    clusters: int | None = None  # templates behind a clustered interval; None: scenes independent

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    @property
    def caveat(self) -> str:
        """Why the interval is missing or weak ("" when it is fine)."""
        if self.n == 0 or self.clusters is None:
            return ""
        if self.clusters < 2:
            return f"undefined ({self.clusters} template{'' if self.clusters == 1 else 's'})"
        if self.clusters < MIN_TEMPLATES:
            return f"too few templates ({self.clusters})"
        return ""


def _finite(values: Sequence[float]) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    finite: np.ndarray = array[~np.isnan(array)]
    return finite


def as_estimate(value: object) -> Estimate | None:
    """A table cell as an Estimate (None for an empty cell)."""
    return value if isinstance(value, Estimate) else None


def mean_ci(values: Sequence[float], level: float = CONFIDENCE) -> Estimate:
    """Mean and Student-t confidence interval of the non-NaN values."""
    data = _finite(values)
    n = int(data.size)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = float(data.mean())
    if n < 2:
        return Estimate(mean, math.nan, math.nan, n)
    half = float(sps.t.ppf(1 - (1 - level) / 2, n - 1)) * float(data.std(ddof=1)) / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n)


def std_ci(values: Sequence[float], level: float = CONFIDENCE) -> Estimate:
    """Sample standard deviation (ddof=1) of the non-NaN values and its chi-square confidence
    interval, sqrt((n - 1) s² / chi2 quantiles) on n - 1 degrees of freedom: the normal model
    of the variance test (`variance_test`). `mean` holds the std."""
    data = _finite(values)
    n = int(data.size)
    if n < 2:
        return Estimate(math.nan, math.nan, math.nan, n)
    std = float(data.std(ddof=1))
    tail = (1 - level) / 2
    scaled = (n - 1) * std**2
    low = math.sqrt(scaled / float(sps.chi2.ppf(1 - tail, n - 1)))
    high = math.sqrt(scaled / float(sps.chi2.ppf(tail, n - 1)))
    return Estimate(std, low, high, n)


def wilson_interval(p: float, variance: float, n: int, critical: float) -> tuple[float, float]:
    """Wilson score interval of a mean p in [0, 1] whose variance is `variance`: the score
    interval at the effective sample size n* = p(1 - p) / variance (quasi-binomial: the
    dispersion estimated from the data, so bounded non-binary scores are neither over- nor
    under-covered). With p at 0 or 1 n* cannot be estimated and n is used; with no spread
    inside the range the interval is the point."""
    if not 0.0 < p < 1.0:
        size = float(n)  # all at a bound: no spread to estimate n* from
    elif variance <= NO_SPREAD:
        return p, p  # no spread inside the range: the point, as the t interval gives
    else:
        size = p * (1.0 - p) / variance
    square = critical * critical / size
    center = (p + square / 2.0) / (1.0 + square)
    half = critical * math.sqrt(p * (1.0 - p) / size + square / (4.0 * size)) / (1.0 + square)
    return max(0.0, center - half), min(1.0, center + half)


def bounded_mean_ci(
    values: Sequence[float],
    clusters: Sequence[object] | None = None,
    bounds: Bounds = UNIT,
    level: float = CONFIDENCE,
) -> Estimate:
    """Mean of the non-NaN values and its interval inside `bounds`: the Wilson interval at the
    Korn-Graubard effective sample size, the variance clustered by `clusters` (t on C - 1 df);
    without clusters, the scene-level variance (t on n - 1 df). Fewer than 2 clusters (or
    values): no interval."""
    data = np.asarray(values, dtype=float)
    keep = ~np.isnan(data)
    groups = None if clusters is None else [c for c, k in zip(clusters, keep, strict=True) if k]
    data = data[keep]
    low, high = bounds
    unit = np.clip((data - low) / (high - low), 0.0, 1.0)  # clip: float noise only
    n = int(unit.size)
    if groups is None:
        count, variance, df = None, (float(unit.var(ddof=1)) / n if n > 1 else math.nan), n - 1
    else:
        fit = cluster_fit(list(unit), groups)
        count, variance, df = fit.clusters, fit.se**2, fit.clusters - 1
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, count)
    mean = float(data.mean())
    if df < 1 or not math.isfinite(variance):
        return Estimate(mean, math.nan, math.nan, n, count)
    critical = float(sps.t.ppf(1 - (1 - level) / 2, df))
    lower, upper = wilson_interval(float(unit.mean()), variance, n, critical)
    scale = high - low
    return Estimate(mean, min(mean, low + lower * scale), max(mean, low + upper * scale), n, count)


@dataclass(frozen=True)
class Paired:
    """NEW vs BASE on paired values: the difference, its interval and the tests."""

    n: int
    base: float
    new: float
    diff: Estimate
    p_ttest: float  # two-sided paired t-test of mean(d) = 0
    p_wilcoxon: float  # two-sided Wilcoxon signed-rank test of d
    p_regression: float  # one-sided test of mean(d) < -max_drop


def _p_or_nan(value: object) -> float:
    number = float(value)  # type: ignore[arg-type]
    return number if math.isfinite(number) else math.nan


def regression_p(diffs: np.ndarray, max_drop: float, test: Test) -> float:
    """p-value of H1: NEW is worse than BASE by more than `max_drop` (one-sided)."""
    shifted = diffs + max_drop
    if shifted.size < 2:
        return math.nan
    if np.allclose(shifted, shifted[0]):
        # No spread: the verdict is certain either way (scipy would return NaN).
        return 0.0 if shifted[0] < 0 else 1.0
    if test == "wilcoxon":
        if not np.any(shifted != 0):
            return 1.0
        return _p_or_nan(sps.wilcoxon(shifted, alternative="less").pvalue)
    return _p_or_nan(sps.ttest_1samp(shifted, 0.0, alternative="less").pvalue)


def _two_sided(diffs: np.ndarray, base: np.ndarray, new: np.ndarray) -> tuple[float, float]:
    if diffs.size < 2 or np.allclose(diffs, diffs[0]):
        same = diffs.size >= 1 and bool(np.all(diffs == 0))
        return (1.0, 1.0) if same else (math.nan, math.nan)
    p_t = _p_or_nan(sps.ttest_rel(new, base).pvalue)
    p_w = _p_or_nan(sps.wilcoxon(diffs).pvalue) if np.any(diffs != 0) else 1.0
    return p_t, p_w


def _clustered_tests(
    diffs: np.ndarray, clusters: Sequence[object], max_drop: float
) -> tuple[Estimate, float, float]:
    """Clustered interval of mean(d), two-sided p of mean(d) = 0, one-sided p of a regression."""
    fit = cluster_fit(list(diffs), clusters)
    interval = bounded_mean_ci(list(diffs), clusters, DIFFERENCE)
    if fit.clusters < 2 or not math.isfinite(fit.se):
        return interval, math.nan, math.nan
    df = fit.clusters - 1
    if fit.se == 0:  # no spread: the verdicts are certain
        return interval, (1.0 if fit.mean == 0 else 0.0), (0.0 if fit.mean + max_drop < 0 else 1.0)
    p_two = float(2 * sps.t.sf(abs(fit.mean) / fit.se, df))
    p_drop = float(sps.t.cdf((fit.mean + max_drop) / fit.se, df))
    return interval, p_two, p_drop


def paired(
    base: Sequence[float],
    new: Sequence[float],
    max_drop: float = 0.0,
    test: Test = "t",
    clusters: Sequence[object] | None = None,
) -> Paired:
    """Compare paired values (pairs with a NaN on either side are dropped). With `clusters` (the
    template of each pair), the interval and the t-tests are clustered by template; the Wilcoxon
    test stays a test of the pairs."""
    b = np.asarray(base, dtype=float)
    w = np.asarray(new, dtype=float)
    keep = ~(np.isnan(b) | np.isnan(w))
    b, w = b[keep], w[keep]
    diffs = w - b
    p_t, p_w = _two_sided(diffs, b, w)
    diff = bounded_mean_ci(list(diffs), None, DIFFERENCE)
    p_regression = regression_p(diffs, max_drop, test)
    if clusters is not None:
        kept = [c for c, k in zip(clusters, keep, strict=True) if k]
        diff, p_t, p_clustered = _clustered_tests(diffs, kept, max_drop)
        if test == "t":
            p_regression = p_clustered
    return Paired(
        n=int(diffs.size),
        base=float(b.mean()) if b.size else math.nan,
        new=float(w.mean()) if w.size else math.nan,
        diff=diff,
        p_ttest=p_t,
        p_wilcoxon=p_w,
        p_regression=p_regression,
    )


@dataclass(frozen=True)
class VarianceTest:
    n: int
    variance: float  # sample variance s² (ddof=1)
    chi2: float
    p: float  # two-sided


def variance_test(values: Sequence[float], population_variance: float) -> VarianceTest:
    """Chi-square test that the values' variance equals `population_variance` (App. D.6)."""
    data = _finite(values)
    n = int(data.size)
    if n < 2 or not population_variance > 0:
        return VarianceTest(n, math.nan, math.nan, math.nan)
    variance = float(data.var(ddof=1))
    chi2 = (n - 1) * variance / population_variance
    lower = float(sps.chi2.cdf(chi2, n - 1))
    upper = float(sps.chi2.sf(chi2, n - 1))
    return VarianceTest(n, variance, chi2, min(1.0, 2 * min(lower, upper)))


# --- clustered by template ---------------------------------------------------------------------


@dataclass(frozen=True)
class ClusterFit:
    """A mean with its cluster-robust standard error (over C clusters, n values)."""

    mean: float
    se: float
    n: int
    clusters: int

    def interval(self, level: float = CONFIDENCE) -> Estimate:
        if self.clusters < 2 or not math.isfinite(self.se):
            return Estimate(self.mean, math.nan, math.nan, self.n, self.clusters)
        half = float(sps.t.ppf(1 - (1 - level) / 2, self.clusters - 1)) * self.se
        return Estimate(self.mean, self.mean - half, self.mean + half, self.n, self.clusters)


def cluster_fit(values: Sequence[float], clusters: Sequence[object]) -> ClusterFit:
    """Mean and cluster-robust SE of the non-NaN values, clustered by `clusters` (statsmodels)."""
    frame = pd.DataFrame({"y": np.asarray(values, dtype=float), "g": list(clusters)})
    frame = frame[frame["y"].notna()]
    n, count = len(frame), int(frame["g"].nunique())
    if n == 0:
        return ClusterFit(math.nan, math.nan, 0, 0)
    mean = float(frame["y"].mean())
    if count < 2:
        return ClusterFit(mean, math.nan, n, count)
    groups = pd.factorize(frame["g"].astype(str))[0]
    fit = sm.OLS(frame["y"].to_numpy(), np.ones((n, 1))).fit(
        cov_type="cluster", cov_kwds={"groups": groups, "use_correction": True}, use_t=True
    )
    return ClusterFit(mean, float(fit.bse[0]), n, count)


# Mean and template-clustered interval inside `bounds`: `bounded_mean_ci` given the clusters.
clustered_mean_ci = bounded_mean_ci


def template_draws(
    templates: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> np.ndarray:
    """The bootstrap's draws, resamples x templates indices drawn with replacement at once: the
    very draws `scipy.stats.bootstrap` makes with `rng=np.random.default_rng(seed)` (one
    `integers(0, templates, (resamples, templates))` call), so the seed means what it meant."""
    return np.random.default_rng(seed).integers(0, templates, (resamples, templates))


def percentile_bounds(
    distribution: np.ndarray, level: float = CONFIDENCE
) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of bootstrap statistics (draws on axis 0); NaN draws (a statistic
    not estimable in that resample) are left out."""
    tail = (1 - level) / 2
    by_statistic = np.moveaxis(distribution, 0, -1)  # draws last, as scipy's bootstrap holds them
    bounds = sps.quantile(by_statistic, [tail, 1 - tail], axis=-1, nan_policy="omit")
    return bounds[..., 0], bounds[..., 1]


def template_bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray],
    templates: int,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The percentile bootstrap over templates, the one the report uses (PSI, variance shares):
    `statistic` of all draws at once (`template_draws`: a resamples x templates array of template
    indices; a template drawn twice counts twice), one number or one row of numbers per draw
    (shape (resamples,) or (resamples, k)). Evaluating the draws together rather than one by one
    (scipy's `bootstrap` with `vectorized=False`) is what makes a report's 126 bootstraps cheap;
    the draws and the percentiles are scipy's. A NaN draw is left out of the percentiles."""
    distribution = np.asarray(statistic(template_draws(templates, resamples, seed)), dtype=float)
    return percentile_bounds(distribution, level)


def template_bootstrap_ci(
    groups: dict[str, list[float]],
    statistic: Callable[[dict[str, list[float]]], float],
    level: float = CONFIDENCE,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> Estimate:
    """`statistic` of the templates' scene values, with the percentile bootstrap over templates
    (any statistic of the groups: it is called once per draw; `template_mean_bootstrap_ci` is
    the vectorised one for a mean of per-template numbers)."""
    names = sorted(groups)
    point = statistic(groups)
    if len(names) < 2 or not math.isfinite(point):
        return Estimate(point, math.nan, math.nan, len(names), len(names))

    def resampled(draws: np.ndarray) -> np.ndarray:
        # Resampled templates are renamed so a template drawn twice counts twice.
        return np.array(
            [
                statistic({f"{k}": groups[names[int(i)]] for k, i in enumerate(indices)})
                for indices in draws
            ]
        )

    low, high = template_bootstrap(resampled, len(names), resamples, level, seed)
    return Estimate(point, float(low), float(high), len(names), len(names))


def template_mean_bootstrap_ci(
    per_template: dict[str, float],
    level: float = CONFIDENCE,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> Estimate:
    """The mean over templates of one number per template (PSI: the templates' stds), with the
    percentile bootstrap over templates: `template_bootstrap_ci` of that mean, the draws' means
    taken as one array operation. The same draws; a draw's mean may differ from the generic
    one's in the last binary digit (numpy's summation, not `statistics.fmean`'s)."""
    names = sorted(per_template)
    values = np.array([per_template[name] for name in names], dtype=float)
    point = statistics.fmean(values) if len(values) else math.nan
    if len(names) < 2 or not math.isfinite(point):
        return Estimate(point, math.nan, math.nan, len(names), len(names))
    low, high = template_bootstrap(
        lambda draws: values[draws].mean(axis=1), len(names), resamples, level, seed
    )
    return Estimate(point, float(low), float(high), len(names), len(names))


def min_detectable_difference(
    diffs: Sequence[float], clusters: Sequence[object], alpha: float, power: float = POWER
) -> float:
    """Smallest true mean drop beyond `max_drop` that the one-sided test at `alpha` detects with
    `power`, given the template-clustered spread of the paired differences (score units)."""
    fit = cluster_fit(diffs, clusters)
    if fit.clusters < 2 or not math.isfinite(fit.se):
        return math.nan
    effect = TTestPower().solve_power(
        effect_size=None, nobs=fit.clusters, alpha=alpha, power=power, alternative="larger"
    )
    return float(effect) * fit.se * math.sqrt(fit.clusters)
