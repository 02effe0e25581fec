"""Template-level metrics: PSI (profile sensitivity index) and the mean over templates.

A template is one social situation recast with several character sets (its scenes). PSI is the
sample standard deviation (ddof=1) of a score over the scenes of one template, averaged over
templates (official `calculate_tmpl_res`). Scenes are grouped by `template_id` in sample metadata.

Templates with a single scored scene: in official mode a goal score's PSI becomes NaN (the
official code has no guard), while MCQ PSI skips them; corrected mode skips them everywhere.
The mode is read from each score's metadata, so `inspect score` re-scoring behaves the same.
`agentsense report` uses the same functions with `skip` in both modes (a report's PSI should not
be NaN because one template has a single scene) and gives the number of templates it used.
The tasks do not log `psi` and `template_mean` per score key: a package's metric is printed as
`agentsense/<name>`, too wide for an 80-column console beside three other scores
(tests/test_console_names.py); they are the report's (and the parity tests') numbers.

Uncertainty: the five scenes of a template share background, goals and questions, so they are not
independent. Every scene mean carries Inspect's `stderr` clustered by `template_id` (cluster-robust
standard error with the finite-cluster correction C/(C-1), C = number of templates). No interval is
logged: Inspect's `ci` is a Student-t interval that leaves [0, 1] with few templates (and a bound
such as -0.169 widens its console cell enough to cut names at 80 columns); the report's and
`compare`'s intervals stay in range (`report.stats`).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Literal

from inspect_ai.scorer import Metric, SampleScore, metric, stderr

from .score_keys import PROTOCOL

ShortTemplates = Literal["nan", "skip"]

# Sample metadata key of the unit scenes are clustered by (see `dataset.samples.scene_metadata`).
CLUSTER = "template_id"


def mean_or_nan(values: Sequence[float]) -> float:
    """The plain mean; a NaN among the values makes it NaN, and no values give NaN (numpy's mean
    of an empty list, as in the official code)."""
    return statistics.fmean(values) if values else math.nan


def nan_mean(values: Sequence[float]) -> float:
    """The mean of the non-NaN values (NaN when there is none), as Inspect leaves NaN scores out."""
    return mean_or_nan([value for value in values if not math.isnan(value)])


def clustered_uncertainty() -> list[Metric]:
    """The standard error of the scene mean, clustered by template (no interval: see above)."""
    return [stderr(cluster=CLUSTER)]


def score_values(sample_score: SampleScore) -> dict[str, float]:
    """The keys of a dict-valued score as floats (for a metric over the whole score)."""
    value = sample_score.score.value
    if not isinstance(value, dict):
        raise TypeError(f"sample {sample_score.sample_id}: expected a dict score, got {value!r}")
    return {str(key): float(v) if v is not None else math.nan for key, v in value.items()}


def by_template(scores: list[SampleScore]) -> dict[str, list[float]]:
    """Scored values grouped by template (NaN means unscored and is left out)."""
    groups: dict[str, list[float]] = defaultdict(list)
    for sample_score in scores:
        value = sample_score.score.as_float()
        if math.isnan(value):
            continue
        template = (sample_score.sample_metadata or {}).get("template_id")
        groups[str(template)].append(value)
    return dict(groups)


def template_std(values: list[float], short: ShortTemplates) -> float | None:
    """Sample std of one template's scenes; None when the template is skipped."""
    if len(values) >= 2:
        return statistics.stdev(values)
    return math.nan if short == "nan" else None


def template_stds(groups: dict[str, list[float]], short: ShortTemplates) -> list[float]:
    """The per-template sample stds PSI averages (the report's CI is taken over them too)."""
    return [std for values in groups.values() if (std := template_std(values, short)) is not None]


def profile_sensitivity(groups: dict[str, list[float]], short: ShortTemplates) -> float:
    """Mean over templates of the per-template sample std."""
    stds = template_stds(groups, short)
    return mean_or_nan(stds)


def _mode_of(scores: list[SampleScore]) -> str:
    for sample_score in scores:
        mode = (sample_score.score.metadata or {}).get(PROTOCOL)
        if mode:
            return str(mode)
    return "official"


@metric
def psi(official_short: ShortTemplates = "nan") -> Metric:
    """Profile sensitivity index; `official_short` is the official handling of 1-scene templates."""

    def compute(scores: list[SampleScore]) -> float:
        if not scores:
            return math.nan
        short: ShortTemplates = official_short if _mode_of(scores) == "official" else "skip"
        return profile_sensitivity(by_template(scores), short)

    return compute


@metric
def template_mean() -> Metric:
    """Mean over templates of the per-template mean (the official template-level score)."""

    def compute(scores: list[SampleScore]) -> float:
        means = [statistics.fmean(values) for values in by_template(scores).values()]
        return mean_or_nan(means)

    return compute
