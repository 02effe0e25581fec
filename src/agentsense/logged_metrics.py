"""What each task logs: every score and its metrics, declared once.

`LOGGED_METRICS` maps a task name to its scores in the order the log (and the console: one block
per score) holds them. A score is a score key with Inspect's metrics, or the scorer's name for
one metric over the whole score (PSI and template means, the judge check's rates, the
construction counts), whose mapping Inspect logs under its own keys. `*` stands for a judge's
number (`judge_*`, `judge_*_psi`, `accuracy_*`): one per judge of the panel.

The guide's table is rendered from it (`python scripts/generated_sections.py`, checked by
tests/test_logged_metrics.py), and tests/test_logged_metrics.py reads a real log of every task
against it, so no layout change drops a metric unnoticed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from agentsense.construction import AGREEMENT_KEYS, COUNT_KEYS, build_counts
from agentsense.coser import SCORE_KEYS as GCA_KEYS
from agentsense.sense import (
    goal_and_mcq,
    goal_completion,
    judge_verdicts,
    mcq_accuracy,
    script_title,
)
from agentsense.sense.judge_check import JUDGE_METRICS, UNREADABLE
from agentsense.sense.leakage.blind_test import BLIND_KEY
from agentsense.sense.leakage.script_prediction import SCRIPT_KEY
from agentsense.sense.metrics import GOAL_METRIC_KEYS, psi_name, tmean_name
from agentsense.sense.score_keys import MCQ_ACCURACY
from agentsense.sotopia import SCORE_KEYS as SOTOPIA_KEYS

SCENE = ("mean", "stderr")  # Inspect's mean and stderr (clustered by template, or book for gca)


@dataclass(frozen=True)
class LoggedScore:
    """One score of a log: its name (a score key or the scorer's name) and its metric names."""

    name: str
    metrics: tuple[str, ...]


TaskMetrics = tuple[LoggedScore, ...]


def keys_with(keys: Sequence[str], metrics: tuple[str, ...]) -> TaskMetrics:
    return tuple(LoggedScore(key, metrics) for key in keys)


def template_block(scorer: str, keys: Sequence[str], psi: bool = True) -> LoggedScore:
    """The block of `metrics.template_metrics`: the PSI of every key, then its template mean."""
    return LoggedScore(
        scorer, (*(psi_name(key) for key in keys if psi), *(tmean_name(key) for key in keys))
    )


def simulation(scorer: str, keys: Sequence[str]) -> TaskMetrics:
    """A conversation scorer's scores: its template block first (Inspect puts a metric over the
    whole score before the per-key scores), then mean and stderr per key."""
    return (template_block(scorer, keys), *keys_with(keys, SCENE))


GOAL_KEYS = list(GOAL_METRIC_KEYS)
FULL_KEYS = [*GOAL_METRIC_KEYS, MCQ_ACCURACY]
JUDGE_RATES = (*(f"{name}_*" for name in JUDGE_METRICS), f"{UNREADABLE}*")

# A scorer's block is named by the scorer (its function's name, as Inspect names it in the log).
LOGGED_METRICS: dict[str, TaskMetrics] = {
    "goal": simulation(goal_completion.__name__, GOAL_KEYS),
    "info": simulation(mcq_accuracy.__name__, [MCQ_ACCURACY]),
    "full": simulation(goal_and_mcq.__name__, FULL_KEYS),
    "pairwise": simulation(goal_and_mcq.__name__, FULL_KEYS),
    "blind": keys_with([BLIND_KEY], SCENE),
    "script_prediction": (
        template_block(script_title.__name__, [SCRIPT_KEY], psi=False),
        *keys_with([SCRIPT_KEY], SCENE),
    ),
    "labelling": keys_with(AGREEMENT_KEYS, ("mean",)),
    "judge_check": (LoggedScore(judge_verdicts.__name__, JUDGE_RATES),),
    "construct": (LoggedScore(build_counts.__name__, COUNT_KEYS),),
    "gca": keys_with(GCA_KEYS, SCENE),
    "sotopia": keys_with(SOTOPIA_KEYS, SCENE),
}


def pattern(name: str) -> re.Pattern[str]:
    """A declared name as a pattern: `*` is a judge's number."""
    return re.compile("[0-9]+".join(re.escape(part) for part in name.split("*")))


def matches(declared: str, logged: str) -> bool:
    return pattern(declared).fullmatch(logged) is not None


def differences(task: str, logged: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """How a log's scores (each its name and metric names, in log order) differ from the task's
    declaration: a declared metric not logged, a logged one not declared, the order of scores."""
    declared = LOGGED_METRICS[task]
    wanted = [(score.name, metric) for score in declared for metric in score.metrics]
    found = [(name, metric) for name, metrics in logged for metric in metrics]
    problems = [
        f"{task}: {name} {metric} is declared but not logged"
        for name, metric in wanted
        if not any(matches(name, n) and matches(metric, m) for n, m in found)
    ]
    problems += [
        f"{task}: {name} {metric} is logged but not declared"
        for name, metric in found
        if not any(matches(n, name) and matches(m, metric) for n, m in wanted)
    ]
    order = declared_order([name for name, _ in logged], declared)
    if order != [score.name for score in declared]:
        problems.append(f"{task}: scores logged in the order {order}")
    return problems


def declared_order(names: list[str], declared: TaskMetrics) -> list[str]:
    """Logged score names as the declared names they match (one run per judge pattern)."""
    order: list[str] = []
    for name in names:
        as_declared = next((s.name for s in declared if matches(s.name, name)), name)
        if not (order and order[-1] == as_declared and "*" in as_declared):
            order.append(as_declared)
    return order


# --- the guide's table --------------------------------------------------------------------------

BEGIN = "<!-- Logged metrics: generated by `python scripts/generated_sections.py` -->"
END = "<!-- /Logged metrics -->"


def _shown(name: str) -> str:
    return f"`{name.replace('*', 'N')}`"


def table() -> list[str]:
    """One row per run of scores with the same metrics, the task named on its first row."""
    lines = ["| task | scores | metrics of each |", "|---|---|---|"]
    for task, scores in LOGGED_METRICS.items():
        for i, (metrics, run) in enumerate(groupby(scores, key=lambda score: score.metrics)):
            names = ", ".join(_shown(score.name) for score in run)
            shown = ", ".join(_shown(metric) for metric in metrics)
            lines.append(f"| {f'`{task}`' if i == 0 else ''} | {names} | {shown} |")
    return lines


def section() -> str:
    return "\n".join([BEGIN, *table(), END])
