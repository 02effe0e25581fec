"""Template-level metrics: PSI (profile sensitivity index) and the mean over templates.

A template is one social situation recast with several character sets (its scenes). PSI is the
sample standard deviation (ddof=1) of a score over the scenes of one template, averaged over
templates (official `calculate_tmpl_res`). Scenes are grouped by `template_id` in sample metadata.

Templates with a single scored scene: in official mode a goal score's PSI becomes NaN (the
official code has no guard), while MCQ PSI skips them; corrected mode skips them everywhere.
The mode is read from each score's metadata, so `inspect score` re-scoring behaves the same.
`agentsense report` uses the same functions with `skip` in both modes (a report's PSI should not
be NaN because one template has a single scene) and gives the number of templates it used.
The simulation tasks log both per score key through `template_metrics`, one metric over the
whole score whose mapping Inspect logs under its own keys (`<key>_psi`, `<key>_tmean`, in one
block named after the scorer): a package's metric per key would be logged and printed as
`agentsense/psi`, too wide for an 80-column console beside three other scores
(tests/test_console_names.py).

Uncertainty: the five scenes of a template share background, goals and questions, so they are not
independent. Every scene mean carries Inspect's `stderr` clustered by `template_id` (cluster-robust
standard error with the finite-cluster correction C/(C-1), C = number of templates). No interval is
logged: Inspect's `ci` is a Student-t interval that leaves [0, 1] with few templates (and a bound
such as -0.169 widens its console cell enough to cut names at 80 columns); the report's and
`compare`'s intervals stay in range (`analysis.stats`).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import Literal

from inspect_ai.scorer import Metric, SampleScore, mean, metric, stderr

from agentsense.sense.score_keys import GOAL_KEYS, JUDGE_KEY_GLOB, MCQ_ACCURACY, PROTOCOL

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
    """Mean over templates of the per-template sample std: PSI, the log's and the report's."""
    stds = template_stds(groups, short)
    return mean_or_nan(stds)


def template_level_mean(groups: dict[str, list[float]]) -> float:
    """Mean over templates of the per-template mean (the official template-level score)."""
    return mean_or_nan([statistics.fmean(values) for values in groups.values() if values])


def _mode_of(scores: list[SampleScore]) -> str:
    for sample_score in scores:
        mode = (sample_score.score.metadata or {}).get(PROTOCOL)
        if mode:
            return str(mode)
    return "official"


def psi_of(scores: list[SampleScore], official_short: ShortTemplates) -> float:
    """PSI of the scored scenes; the mode in the scores' metadata picks the 1-scene rule."""
    if not scores:
        return math.nan
    short: ShortTemplates = official_short if _mode_of(scores) == "official" else "skip"
    return profile_sensitivity(by_template(scores), short)


def template_mean_of(scores: list[SampleScore]) -> float:
    """Mean over templates of the per-template mean of the scored scenes."""
    return template_level_mean(by_template(scores))


# The metrics below only wrap undecorated functions: mutation testing (docs/testing.md) does not
# mutate decorated functions, so the rules live outside them.
@metric
def psi(official_short: ShortTemplates = "nan") -> Metric:
    """Profile sensitivity index; `official_short` is the official handling of 1-scene templates."""

    def compute(scores: list[SampleScore]) -> float:
        return psi_of(scores, official_short)

    return compute


@metric
def template_mean() -> Metric:
    """Mean over templates of the per-template mean (the official template-level score)."""

    def compute(scores: list[SampleScore]) -> float:
        return template_mean_of(scores)

    return compute


# The names `template_metrics` logs a score key's PSI and template mean under.
PSI_SUFFIX = "_psi"
TMEAN_SUFFIX = "_tmean"


def psi_name(key: str) -> str:
    return f"{key}{PSI_SUFFIX}"


def tmean_name(key: str) -> str:
    return f"{key}{TMEAN_SUFFIX}"


def key_scores(scores: list[SampleScore], key: str) -> list[SampleScore]:
    """One key of every dict score as its own score; missing or NaN (unscored) values left out,
    as Inspect leaves them out of a key's metrics."""
    picked: list[SampleScore] = []
    for sample_score in scores:
        value = sample_score.score.value
        scalar = value.get(key) if isinstance(value, dict) else None
        if scalar is None or (isinstance(scalar, float) and math.isnan(scalar)):
            continue
        score = sample_score.score.model_copy(update={"value": scalar})
        picked.append(sample_score.model_copy(update={"score": score}))
    return picked


def expand_keys(patterns: Sequence[str], scores: list[SampleScore]) -> list[str]:
    """The keys of the first dict score that match `patterns` (globs such as `judge_*`), in the
    order Inspect expands a metric dict: pattern by pattern, each in the score's key order. With
    no score yet, the patterns without a glob (so an empty run still logs whole names)."""
    first = next((s.score.value for s in scores if isinstance(s.score.value, dict)), None)
    if first is None:
        return [pattern for pattern in patterns if "*" not in pattern]
    keys: list[str] = []
    for pattern in patterns:
        keys += [str(k) for k in first if fnmatchcase(str(k), pattern) and str(k) not in keys]
    return keys


def template_values(
    scores: list[SampleScore], keys: Sequence[str], nan_patterns: Sequence[str], psi: bool
) -> dict[str, float]:
    """`template_metrics`' values: `<key>_psi` (if `psi`) then `<key>_tmean` of every key, each
    the `psi` / `template_mean` metric of the key's scores alone."""
    alone = {key: key_scores(scores, key) for key in expand_keys(keys, scores)}
    values: dict[str, float] = {}
    if psi:
        for key, picked in alone.items():
            nan = any(fnmatchcase(key, pattern) for pattern in nan_patterns)
            values[psi_name(key)] = psi_of(picked, "nan" if nan else "skip")
    for key, picked in alone.items():
        values[tmean_name(key)] = template_mean_of(picked)
    return values


@metric
def template_metrics(
    keys: list[str], official_nan: list[str] | None = None, psi: bool = True
) -> Metric:
    """PSI and template mean of each key of a dict score (`keys`: score keys or globs), as
    `<key>_psi` then `<key>_tmean`; `official_nan`: the keys (globs) whose official-mode PSI is
    NaN when a template has one scored scene (the goal scores: the official code has no guard;
    every other key, and every key in corrected mode, skips such templates); `psi=False` logs
    the template means only (a task with one scene per template)."""
    nan_patterns = official_nan or []

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return template_values(scores, keys, nan_patterns, psi)

    return compute


# `judge_*` covers the panel's keys (as many as judges are bound); the aggregations are named
# too, so the headline `judge_majority` resolves even before any sample is scored (Inspect's
# first, empty progress update cannot expand a glob and would warn that the headline is missing).
GOAL_METRIC_KEYS = (*GOAL_KEYS[:2], JUDGE_KEY_GLOB, *GOAL_KEYS[2:])


def _scene_metrics() -> list[Metric]:
    """Inspect's metrics per score key, so every name prints whole on an 80-column console (a
    package's metric per key would print as `agentsense/<name>`)."""
    return [mean(), *clustered_uncertainty()]


def scorer_metrics(
    keys: tuple[str, ...], goal_keys: tuple[str, ...] = ()
) -> list[Metric | dict[str, list[Metric]]]:
    """Per score key its mean and stderr (a block named after the key), and the PSI and
    template mean of every key in one block named after the scorer (`metrics.template_metrics`:
    `goal_keys` get the official code's NaN PSI for one-scene templates)."""
    scene_blocks = {key: _scene_metrics() for key in keys}
    return [scene_blocks, template_metrics(list(keys), official_nan=list(goal_keys))]


GOAL_METRICS = scorer_metrics(GOAL_METRIC_KEYS, GOAL_METRIC_KEYS)
MCQ_METRICS = scorer_metrics((MCQ_ACCURACY,))
GOAL_AND_MCQ_METRICS = scorer_metrics((*GOAL_METRIC_KEYS, MCQ_ACCURACY), GOAL_METRIC_KEYS)
