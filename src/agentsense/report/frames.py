"""The analysis units of a report, one row per unit, and the rows they belong to
(docs/analysis.md: *Rows*, *Unit of analysis*, *Mixed settings are refused*).

A row (a group: one model, or one sender × receiver pair, and its settings) counts scenes: every
conversation of a scene in the group's runs (its epochs, the same scene in a `full` and a `goal`
log, pieces of one run) is averaged into one scene value per metric, so a scene counts once in
every mean, interval and `n`; `conversations` says how many were pooled. The frames: scenes
(group, scene), goals (group, scene, character, goal), characters (group, scene, character: the
mean over its goals) and questions (group, scene, asker, MCQ).

Runs share a table only when simulated and scored the same way (`STRICT`, and the judge panel for
runs that judge goals); with `allow_mixed` the settings that differ go into the row labels.
`max_messages` may differ (Fig. 10's rounds: rows of their own). An unfinished run gets a row of
its own whose label says how far it got.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from agentsense.analysis.baselines import BASELINE_COLUMNS
from agentsense.analysis.log_merge import shortfall
from agentsense.analysis.log_reader import JUDGED_TASKS, Runs
from agentsense.analysis.logs import records
from agentsense.analysis.official import official_file
from agentsense.engine.errors import ReportError
from agentsense.sense.dataset.samples import OFFICIAL_NAMES
from agentsense.sense.score_keys import GOAL_KEYS, LABEL_AGREEMENTS, scene_columns

# Settings that must agree across runs (the judge panel only across runs that judge goals).
STRICT = (
    "mode",
    "agent_temperature",
    "judge_temperature",
    "max_tokens",
    "option_mark",
    "dataset_family",
)
ROUNDS = "rounds"
UNCHECKED_KINDS = ("labelling", "script")


def dataset_family(run: dict[str, Any]) -> str:
    """`official` for a run on an official file (known by its hash, however it was given);
    a run that only says so is kept apart."""
    if official_file(run) is not None:
        return "official"
    dataset = str(run["dataset"])
    return f"{dataset} (unverified)" if dataset in OFFICIAL_NAMES else dataset


def _describe(evals: pd.DataFrame, column: str) -> str:
    parts = []
    for value, rows in evals.groupby(column, dropna=False, sort=True):
        names = [str(log).rsplit("/", 1)[-1] for log in rows["log"]]
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        parts.append(f"{value!r} in {shown}")
    return f"  - {column}: " + "; ".join(parts)


def varying(evals: pd.DataFrame) -> list[str]:
    """The strict settings (and judge panel) whose values differ between runs."""
    differ = [column for column in STRICT if evals[column].nunique(dropna=False) > 1]
    judged = evals[evals["task"].isin(JUDGED_TASKS)]
    if judged["judges"].nunique() > 1:
        differ.append("judges")
    return differ


def check_settings(evals: pd.DataFrame, allow_mixed: bool) -> list[str]:
    """The settings that differ; raises unless mixing is allowed."""
    differ = varying(evals)
    if differ and not allow_mixed:
        details = "\n".join(_describe(evals, column) for column in differ)
        raise ReportError(
            "These runs were not made with the same settings, so their scores are not comparable:\n"
            f"{details}\nReport them separately, or pass --allow-mixed to put them side by side "
            "(the differing settings are then added to the row labels)."
        )
    return differ


def base_label(run: dict[str, Any]) -> str:
    if run["kind"] == "pairwise":
        return f"{run['sender']} × {run['receiver']}"
    if run["kind"] == "labelling":
        return str((run.get("roles") or {}).get("labeller", run["model"]))
    return str(run["model"])


def _suffix(run: dict[str, Any], columns: list[str]) -> str:
    parts = [f"{column}={run[column]}" for column in columns]
    return f" [{', '.join(parts)}]" if parts else ""


def subset_suffix(run: dict[str, Any]) -> str:
    """A `-T per_template=K` run is a subset: a row of its own, never merged with the full run."""
    count = run.get("per_template")
    # Script prediction asks one scene per template by default: that is the test, not a subset.
    if count is None or pd.isna(count) or run["kind"] == "script":
        return ""
    return f" [per_template={int(count)}]"


def unfinished_suffix(run: dict[str, Any]) -> str:
    """An unfinished run (progress.shortfall) says so in every row it feeds, and is never pooled
    with a finished run's scenes."""
    short = shortfall(run)
    return "" if short is None else f" [{run['task']} {short}]"


def label_runs(evals: pd.DataFrame, allow_mixed: bool = False) -> pd.DataFrame:
    """Add `variant` (the differing settings), `family` (model or pair + variant) and `group`
    (family + rounds if they vary).

    Blind-test runs have no rounds; they join the rows of their family (Table 1's blind column).
    Labelling runs are left out of the settings check (they have no protocol).
    """
    labelled = evals.copy()
    labelled["dataset_family"] = [dataset_family(run) for run in records(labelled)]
    # A labelling run scores labels, not models: no protocol to agree on; nor does script
    # prediction (one question per template, no conversation).
    scored = labelled[~labelled["kind"].isin(UNCHECKED_KINDS)]
    differ = check_settings(scored, allow_mixed) if not scored.empty else []
    rounds_vary = scored.loc[scored["kind"] != "blind", ROUNDS].nunique() > 1
    families, groups, variants, whole = [], [], [], []
    for run in records(labelled):
        variant = _suffix(run, differ)
        family = base_label(run) + variant + unfinished_suffix(run)
        with_rounds = rounds_vary and run["kind"] not in ("blind", *UNCHECKED_KINDS)
        group = f"{family} [rounds={int(run[ROUNDS])}]" if with_rounds else family
        subset = subset_suffix(run)
        variants.append(variant)
        families.append(family + subset)
        groups.append(group + subset)
        whole.append(group)
    labelled["variant"] = variants
    labelled["family"] = families
    labelled["group"] = groups
    # The row of the same run on every scene: what a subset's relative change is against.
    labelled["full_group"] = whole
    return labelled


# --- the units ------------------------------------------------------------------------------------

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
