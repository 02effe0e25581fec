"""Scenario construction from screenplays (paper section 3.2, App. A): `agentsense/construct`,
and the labelling of scenes (`agentsense/labelling`).

This module registers the two tasks' scorers and metric with Inspect by name (see
`agentsense.sense`); their bodies import the construction code when they are made.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Scorer, mean, metric, scorer

from agentsense.sense.metrics import score_values
from agentsense.sense.score_keys import LABEL_AGREEMENTS

COUNT_KEYS = ("scenes_kept", "templates", "scenarios", "mcqs", "repairs", "dropped")
AGREEMENT_KEYS = tuple(LABEL_AGREEMENTS)


@metric
def totals() -> Metric:
    """Every count summed over scripts. One metric over the whole score (not one per key): its
    keys are then printed bare, not as `agentsense/total`, and fit an 80-column console."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return {key: math.fsum(score_values(s)[key] for s in scores) for key in COUNT_KEYS}

    return compute


@scorer(metrics=[totals()])
def build_counts() -> Scorer:
    """Stage-by-stage counts of the build (summed over scripts); drops are in the metadata."""
    from agentsense.construction.construct_solver import counts_scorer

    return counts_scorer()


@scorer(metrics={key: [mean()] for key in AGREEMENT_KEYS})
def label_agreement() -> Scorer:
    """Agreement of the labels with those already in the record (NaN where there are none)."""
    from agentsense.construction.labelling import agreement_scorer

    return agreement_scorer()
