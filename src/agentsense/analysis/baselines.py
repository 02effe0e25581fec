"""Trivial baselines of a scene, computed with the scorers' own aggregation rules.

- Always-yes / always-no reading: the goal scores the scene would get if every answer (self,
  other and every judge) were "Yes" / "No" (`scorers.goal.score_goals` on those answers). A model
  whose score cannot be told apart from them says nothing the trivial reading would not.
- MCQ chance: 1 / number of options of each question, averaged per character and then over
  characters by the MCQ scorer's own rule (`scorers.mcq.scene_accuracy`, the official gate
  included).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from inspect_ai.model import Model

from agentsense.engine.roles import Judge
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.metrics import mean_or_nan
from agentsense.sense.protocol import Protocol
from agentsense.sense.score_keys import JUDGE_MAJORITY, MCQ_ACCURACY, OTHER, SELF
from agentsense.sense.scorers.goal import GoalScores, goal_questions, score_goals
from agentsense.sense.scorers.mcq import scene_accuracy

READINGS = {"always_yes": "Yes", "always_no": "No"}


def trivial_goal_scores(
    scene: Scenario, judge_keys: Sequence[str], protocol: Protocol, answer: str
) -> GoalScores:
    """The scene's goal scores if every goal question were answered `answer`."""
    # Scoring only needs the judges' keys: no model is called.
    judges = [Judge(key, cast(Model, None)) for key in judge_keys]
    questions = goal_questions(scene, judges)
    scores, _ = score_goals(scene, dict.fromkeys(questions, answer), judges, protocol)
    return scores


def mcq_chance(scene: Scenario, protocol: Protocol) -> float:
    """Expected MCQ accuracy of uniform guessing, aggregated as the MCQ scorer aggregates."""
    per_character = [
        mean_or_nan(
            [1 / len(q.options) if q.options else math.nan for q in c.info_reason_questions]
        )
        for c in scene.characters
    ]
    return scene_accuracy(per_character, protocol.official)


GOAL_BASELINE_METRICS = (SELF, OTHER, JUDGE_MAJORITY)
CHANCE_MCQ = f"chance_{MCQ_ACCURACY}"
BASELINE_COLUMNS = (
    *(f"{name}_{metric}" for name in READINGS for metric in GOAL_BASELINE_METRICS),
    CHANCE_MCQ,
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
    if not math.isnan(scored.get(MCQ_ACCURACY, math.nan)):
        row[CHANCE_MCQ] = mcq_chance(scene, protocol)
    return row
