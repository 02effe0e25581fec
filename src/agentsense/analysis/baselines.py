"""Trivial baselines of a scene, computed with the scorers' own aggregation rules.

- Always-yes / always-no reading: the goal scores the scene would get if every answer (self,
  other and every judge) were "Yes" / "No" (`scorers.goal.score_goals` on those answers). A model
  whose score cannot be told apart from them says nothing the trivial reading would not.
- MCQ chance: 1 / number of options of each question, averaged per character and then over
  characters as `scorers.mcq.score_mcq` averages accuracy (the official gate included).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from inspect_ai.model import Model

from ..dataset.schema import Scenario
from ..metrics import mean_or_nan, nan_mean
from ..protocol import Protocol
from ..scenario.judge_panel import Judge
from ..scorers.goal import GoalScores, goal_questions, score_goals

READINGS = {"always_yes": "Yes", "always_no": "No"}


def _panel(keys: Sequence[str]) -> list[Judge]:
    # Scoring only needs the judges' keys: no model is called.
    return [Judge(key, cast(Model, None)) for key in keys]


def trivial_goal_scores(
    scene: Scenario, judge_keys: Sequence[str], protocol: Protocol, answer: str
) -> GoalScores:
    """The scene's goal scores if every goal question were answered `answer`."""
    judges = _panel(judge_keys)
    questions = goal_questions(scene, judges)
    scores, _ = score_goals(scene, dict.fromkeys(questions, answer), judges, protocol)
    return scores


def mcq_chance(scene: Scenario, protocol: Protocol) -> float:
    """Expected MCQ accuracy of uniform guessing, aggregated as the MCQ scorer aggregates."""
    per_character = {
        character.name: mean_or_nan(
            [1 / len(q.options) if q.options else math.nan for q in character.info_reason_questions]
        )
        for character in scene.characters
    }
    if protocol.official:
        first = scene.characters[0]
        if not first.info_reason_questions:
            return math.nan
        return mean_or_nan(list(per_character.values()))
    return nan_mean(list(per_character.values()))


GOAL_BASELINE_METRICS = ("self", "other", "judge_majority")
BASELINE_COLUMNS = (
    *(f"{name}_{metric}" for name in READINGS for metric in GOAL_BASELINE_METRICS),
    "chance_mcq_accuracy",
)


def scene_baselines(
    scene: Scenario, judge_keys: Sequence[str], protocol: Protocol, scored: dict[str, float]
) -> dict[str, float]:
    """The baseline columns of one scored scene: NaN where the scene's own metric is unscored."""
    row: dict[str, float] = {}
    if judge_keys and any(metric in scored for metric in GOAL_BASELINE_METRICS):
        for name, answer in READINGS.items():
            scores = trivial_goal_scores(scene, judge_keys, protocol, answer)
            for metric in GOAL_BASELINE_METRICS:
                own = scored.get(metric, math.nan)
                row[f"{name}_{metric}"] = math.nan if math.isnan(own) else scores[metric]
    if not math.isnan(scored.get("mcq_accuracy", math.nan)):
        row["chance_mcq_accuracy"] = mcq_chance(scene, protocol)
    return row
