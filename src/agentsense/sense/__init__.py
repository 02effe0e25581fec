"""AgentSense (Mou et al., 2024): its tasks, prompts, dataset and schema, scorers, PSI and
template metrics, leakage tests and the paper's published numbers.

This module registers AgentSense's scorers and metrics with Inspect by name, each with the
metrics it logs, so that `inspect score LOG` and a metric read back from a log find them without
loading the simulation. A scorer's body imports its implementation when the scorer is made.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric, SampleScore, Scorer, mean, metric, scorer

from agentsense.sense.metrics import (
    GOAL_AND_MCQ_METRICS,
    GOAL_METRICS,
    MCQ_METRICS,
    clustered_uncertainty,
    template_metrics,
)
from agentsense.sense.score_keys import BLIND_MCQ_ACCURACY, SCRIPT_ACCURACY


@scorer(metrics=GOAL_METRICS)
def goal_completion(repeat: int = 0) -> Scorer:
    """Goal completion judged by self, others and the judge panel (role `judge`); `repeat`:
    the judge repeat (re-judge a log with
    `inspect score LOG --scorer agentsense/goal_completion -S repeat=1`, `scorers.repeats`)."""
    from agentsense.sense.scorers.scoring import interview_scorer

    return interview_scorer(goals=True, mcq=False, repeat=repeat)


@scorer(metrics=MCQ_METRICS)
def mcq_accuracy(repeat: int = 0) -> Scorer:
    """Implicit reasoning: accuracy on the MCQs about other characters' secrets (`repeat`: as
    for `goal_completion`)."""
    from agentsense.sense.scorers.scoring import interview_scorer

    return interview_scorer(goals=False, mcq=True, repeat=repeat)


@scorer(metrics=GOAL_AND_MCQ_METRICS)
def goal_and_mcq(repeat: int = 0) -> Scorer:
    """Both evaluations of the paper on one conversation, asked in a single concurrent round
    (`repeat`: as for `goal_completion`)."""
    from agentsense.sense.scorers.scoring import interview_scorer

    return interview_scorer(goals=True, mcq=True, repeat=repeat)


@scorer(metrics={BLIND_MCQ_ACCURACY: [mean(), *clustered_uncertainty()]})
def blind_mcq() -> Scorer:
    """MCQ accuracy without interaction (official parser and aggregation)."""
    from agentsense.sense.leakage.blind_test import blind_mcq_scorer

    return blind_mcq_scorer()


@scorer(
    metrics=[
        {SCRIPT_ACCURACY: [mean(), *clustered_uncertainty()]},
        template_metrics([SCRIPT_ACCURACY], psi=False),
    ]
)
def script_title() -> Scorer:
    """1 when the reply names the scene's script (tolerant of case, articles, punctuation)."""
    from agentsense.sense.leakage.script_prediction import title_scorer

    return title_scorer()


@metric
def judge_rates() -> Metric:
    """Per judge `n`: `accuracy_n`, `false_yes_claimed_n`, `false_yes_injected_n`,
    `consistency_n` and `unreadable_n`. One metric over the whole score (not one per key): its
    keys are then printed bare, not as `agentsense/accuracy`, and fit an 80-column console."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        from agentsense.sense.judge_check import judge_rates_metric

        return judge_rates_metric()(scores)

    return compute


@scorer(metrics=[judge_rates()])
def judge_verdicts() -> Scorer:
    """Each judge's verdict read as the protocol reads it; its correctness is in the metrics."""
    from agentsense.sense.judge_check import verdict_scorer

    return verdict_scorer()
