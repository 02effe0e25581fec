"""The analysis units of a report, one row per unit, its conversations pooled.

The unit of a row of Table 1 (a group: one model, or one sender x receiver pair, and its
settings) is the scene. Every conversation of a scene in the group's runs counts as one more
measurement of it, like an epoch: the epochs of one run, and the same scene in a `full` and a
`goal` log of the same model (or in two pieces of one run), are averaged into one scene value
per metric, each metric over the conversations that scored it. So a scene counts once in every
mean, interval and `n`, whichever logs cover it; `conversations` says how many were pooled.
Intervals are then clustered by the scene's template (docs/analysis.md, "Unit of analysis"):

- scenes: one row per (group, scene);
- goals: one row per (group, scene, character, goal);
- characters: one row per (group, scene, character), the mean over the character's goals;
- questions: one row per (group, scene, asker, MCQ).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..analysis.baselines import BASELINE_COLUMNS
from ..analysis.log_reader import Runs
from ..score_keys import GOAL_KEYS, LABEL_AGREEMENTS, scene_columns
from .settings import label_runs

RUN_COLUMNS = ["log", "group", "family", "variant", "kind", "task", "model", "sender", "receiver"]
SCENE_ATTRIBUTES = ["template_id", "scenario_type", "n_characters", "rounds"]
# Column of the scene units: how many conversations (run, epoch) were pooled into the scene.
CONVERSATIONS = "conversations"


@dataclass
class Units:
    """The averaged frames and the labelled runs they came from."""

    runs: pd.DataFrame
    scenes: pd.DataFrame
    goals: pd.DataFrame
    characters: pd.DataFrame
    questions: pd.DataFrame
    judge_columns: list[str]


def _with_runs(frame: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    return frame.merge(runs[RUN_COLUMNS], on="log", how="inner")


def _with_templates(frame: pd.DataFrame, scenes: pd.DataFrame) -> pd.DataFrame:
    """Each row's `template_id` (the cluster its interval is computed over), from its scene."""
    if "template_id" in frame.columns or "template_id" not in scenes.columns:
        return frame
    templates = scenes[["log", "id", "template_id"]].drop_duplicates(["log", "id"])
    return frame.merge(templates, on=["log", "id"], how="left")


def _average(frame: pd.DataFrame, keys: list[str], values: list[str]) -> pd.DataFrame:
    """Mean of `values` per unit `keys` (NaN-skipping; an all-NaN unit stays NaN)."""
    present = [value for value in values if value in frame.columns]
    if frame.empty:
        return pd.DataFrame(columns=[*keys, *present])
    return frame.groupby(keys, dropna=False, sort=True)[present].mean().reset_index()


def judge_columns(scenes: pd.DataFrame) -> list[str]:
    return [column for column in scenes.columns if str(column).startswith("judge: ")]


# The row (group) a unit belongs to; each unit frame adds what identifies its units.
ROW_KEYS = ["group", "family", "variant", "kind"]


def scene_units(scenes: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """One row per (group, scene); not per task: a `goal` and a `full` run of one model pool."""
    keys = [*ROW_KEYS, "model", "sender", "receiver", "id", *SCENE_ATTRIBUTES]
    units = _average(scenes, keys, metrics)
    if not units.empty:
        counts = scenes.groupby(keys, dropna=False, sort=True).size().rename(CONVERSATIONS)
        units = units.merge(counts.reset_index(), on=keys, how="left")
    return units


def goal_units(goals: pd.DataFrame) -> pd.DataFrame:
    keys = [*ROW_KEYS, "id", "template_id", "character", "goal_index", "category", "role", "player"]
    return _average(goals, keys, list(GOAL_KEYS))


def character_units(goals: pd.DataFrame) -> pd.DataFrame:
    """Per character: the mean over its goals in each epoch, then over epochs."""
    keys = [*ROW_KEYS, "sender", "receiver", "id", "template_id", "character", "role", "player"]
    per_epoch = _average(goals, [*keys, "epoch"], list(GOAL_KEYS))
    return _average(per_epoch, keys, list(GOAL_KEYS))


def question_units(mcqs: pd.DataFrame) -> pd.DataFrame:
    keys = [*ROW_KEYS, "id", "template_id", "asker", "item", "asker_model", "target"]
    keys += ["target_model", "asker_role", "target_role"]
    return _average(mcqs, keys, ["correct"])


def build_units(runs: Runs, allow_mixed: bool = False) -> Units:
    labelled = label_runs(runs.evals, allow_mixed)
    scenes = _with_runs(runs.scenes, labelled)
    judges = judge_columns(scenes)
    # Every declared scene key (`score_keys`); a run's frame lacks the ones it does not score.
    metrics = [
        c for c in (*scene_columns(judges), *LABEL_AGREEMENTS, *BASELINE_COLUMNS) if c in scenes
    ]
    goals = _with_runs(_with_templates(runs.goals, runs.scenes), labelled)
    return Units(
        runs=labelled,
        scenes=scene_units(scenes, metrics),
        goals=goal_units(goals),
        characters=character_units(goals),
        questions=question_units(_with_runs(_with_templates(runs.mcqs, runs.scenes), labelled)),
        judge_columns=judges,
    )
