"""The report's tables, as frames of `Estimate` cells (mean, 95% CI, n).

- Table 1 (paper Table 1): one row per model or sender × receiver pair.
- Leakage (§4.3, Table 2): blind-test accuracy next to the real MCQ accuracy.
- Breakdowns (Figs. 6, 9-11): by goal category, scenario type, participants, rounds.
- Over-confidence: self minus judge majority, per goal category.
- Sender × receiver matrices (Figs. 5a, 7, 8) and attacker/defender scores (Fig. 5b).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from agentsense.analysis.stats import (
    DIFFERENCE,
    UNIT,
    Bounds,
    Estimate,
    bounded_mean_ci,
    mean_ci,
    template_mean_bootstrap_ci,
)
from agentsense.report.frames import CONVERSATIONS, Units
from agentsense.sense.metrics import template_stds
from agentsense.sense.score_keys import (
    BLIND_MCQ_ACCURACY,
    GOAL_KEYS,
    HEADLINE,
    JUDGE_AGGREGATIONS,
    LABEL_AGREEMENTS,
    MCQ_ACCURACY,
    OTHER,
    SCRIPT_ACCURACY,
    SELF,
)

GOAL_COLUMNS = (SELF, OTHER)
PANEL_COLUMNS = tuple(JUDGE_AGGREGATIONS)
PSI_METRIC = {"goal_psi": HEADLINE, "mcq_psi": MCQ_ACCURACY}
BREAKDOWN_METRICS = (SELF, OTHER, HEADLINE)
SCENE_BREAKDOWN_METRICS = (*BREAKDOWN_METRICS, MCQ_ACCURACY)
MISSING = "(none)"
# Columns that are differences of two scores (in [-1, 1]); every other column is a score in [0, 1].
DIFFERENCES = ("gain_over_blind", "overconfidence")


def bounds(column: str) -> Bounds:
    return DIFFERENCE if column in DIFFERENCES else UNIT


def estimate(frame: pd.DataFrame, column: str) -> Estimate:
    """Mean and 95% CI of a unit column inside the column's range, clustered by template when
    the units carry one (stats.bounded_mean_ci)."""
    if frame.empty or column not in frame.columns:
        return mean_ci([])
    values = list(frame[column].astype(float))
    templates = list(frame["template_id"]) if "template_id" in frame.columns else None
    return bounded_mean_ci(values, templates, bounds(column))


def template_groups(scenes: pd.DataFrame, metric: str) -> dict[str, list[float]]:
    """Each template's scored scene values of `metric`, for the templates with 2 or more (the
    ones PSI averages: a report's PSI skips short templates in both modes, `metrics`)."""
    if scenes.empty or metric not in scenes.columns:
        return {}
    scored = scenes.dropna(subset=[metric])
    return {
        str(template): list(part[metric].astype(float))
        for template, part in scored.groupby("template_id", sort=True)
        if len(part) >= 2
    }


def psi_estimate(scenes: pd.DataFrame, metric: str) -> Estimate:
    """PSI (`metrics.profile_sensitivity`) with the percentile bootstrap over templates
    (stats.template_mean_bootstrap_ci); n = templates with 2 or more scored scenes."""
    groups = template_groups(scenes, metric)
    if not groups:
        return mean_ci([])
    # PSI is the mean of the templates' stds: each std is taken once and a draw averages the
    # drawn ones, all draws as one array (the bootstrap costs draws x templates, not draws x
    # scenes, and no Python call per draw).
    stds = {name: template_stds({name: values}, "skip") for name, values in groups.items()}
    return template_mean_bootstrap_ci({name: std[0] for name, std in stds.items() if std})


# --- Table 1 -----------------------------------------------------------------------------------


def table_one_columns(units: Units) -> list[str]:
    return [
        *GOAL_COLUMNS,
        *units.judge_columns,
        *PANEL_COLUMNS,
        "goal_psi",
        MCQ_ACCURACY,
        "mcq_psi",
        BLIND_MCQ_ACCURACY,
    ]


def _row(scenes: pd.DataFrame, blind: pd.DataFrame, units: Units) -> dict[str, Estimate]:
    row = {
        column: estimate(scenes, column)
        for column in (*GOAL_COLUMNS, *units.judge_columns, *PANEL_COLUMNS, MCQ_ACCURACY)
    }
    row.update({name: psi_estimate(scenes, metric) for name, metric in PSI_METRIC.items()})
    row[BLIND_MCQ_ACCURACY] = estimate(blind, BLIND_MCQ_ACCURACY)
    return row


def conversations(scenes: pd.DataFrame) -> int:
    """The conversations (run, epoch) pooled into these scene units."""
    return int(scenes[CONVERSATIONS].sum()) if CONVERSATIONS in scenes.columns else 0


def table_one(units: Units) -> pd.DataFrame:
    """One row per group (index): Estimate cells and `kind`; blind runs fill their family's row."""
    scenes = units.scenes
    real = scenes[scenes["kind"].isin(["homogeneous", "pairwise"])]
    blind = scenes[scenes["kind"] == "blind"]
    rows: dict[str, dict[str, object]] = {}
    for group, frame in real.groupby("group", sort=True):
        family = str(frame["family"].iloc[0])
        own_blind = blind[blind["family"] == family]
        rows[str(group)] = {
            "kind": frame["kind"].iloc[0],
            **_row(frame, own_blind, units),
            "conversations": conversations(frame),
            "blind_conversations": conversations(own_blind),
        }
    covered = set(real["family"])
    for name, frame in blind.groupby("family", sort=True):
        if name not in covered:
            rows[str(name)] = {
                "kind": "blind",
                **_row(frame.iloc[0:0], frame, units),
                "conversations": 0,
                "blind_conversations": conversations(frame),
            }
    columns = ["kind", *table_one_columns(units), "conversations", "blind_conversations"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=columns)


# --- leakage -----------------------------------------------------------------------------------


def leakage(units: Units) -> pd.DataFrame:
    """Per group with a blind run: blind and real MCQ accuracy, real - blind on shared scenes."""
    scenes = units.scenes
    blind = scenes[scenes["kind"] == "blind"]
    rows: dict[str, dict[str, Estimate]] = {}
    real = (
        scenes[scenes["kind"].isin(["homogeneous", "pairwise"]) & scenes[MCQ_ACCURACY].notna()]
        if MCQ_ACCURACY in scenes.columns
        else scenes.iloc[0:0]
    )
    for group, frame in real.groupby("group", sort=True):
        family = str(frame["family"].iloc[0])
        baseline = blind[blind["family"] == family]
        if baseline.empty:
            continue
        shared = frame[["id", "template_id", MCQ_ACCURACY]].merge(
            baseline[["id", BLIND_MCQ_ACCURACY]], on="id", how="inner"
        )
        shared["gain_over_blind"] = shared[MCQ_ACCURACY] - shared[BLIND_MCQ_ACCURACY]
        rows[str(group)] = {
            BLIND_MCQ_ACCURACY: estimate(baseline, BLIND_MCQ_ACCURACY),
            MCQ_ACCURACY: estimate(frame, MCQ_ACCURACY),
            "gain_over_blind": estimate(shared, "gain_over_blind"),
        }
    return pd.DataFrame.from_dict(
        rows, orient="index", columns=[BLIND_MCQ_ACCURACY, MCQ_ACCURACY, "gain_over_blind"]
    )


# --- breakdowns --------------------------------------------------------------------------------


def breakdown(frame: pd.DataFrame, by: str, metrics: Sequence[str]) -> pd.DataFrame:
    """Long table: group, level of `by`, metric, Estimate."""
    columns = ["group", by, "metric", "estimate"]
    if frame.empty or by not in frame.columns:
        return pd.DataFrame(columns=columns)
    data = frame.assign(**{by: frame[by].map(_level)})
    rows = [
        {"group": group, by: level, "metric": metric, "estimate": estimate(part, metric)}
        for (group, level), part in data.groupby(["group", by], sort=True)
        for metric in metrics
        if metric in part.columns and part[metric].notna().any()
    ]
    return pd.DataFrame(rows, columns=columns)


def _level(value: object) -> object:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return MISSING
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def real_scenes(units: Units) -> pd.DataFrame:
    return units.scenes[units.scenes["kind"].isin(["homogeneous", "pairwise"])]


def scored_scenes(units: Units) -> pd.DataFrame:
    return units.scenes[units.scenes["kind"].isin(["homogeneous", "pairwise", "blind"])]


def has_values(frame: pd.DataFrame, column: str) -> bool:
    return column in frame.columns and bool(frame[column].notna().any())


def scene_breakdown(units: Units, by: str) -> pd.DataFrame:
    return breakdown(real_scenes(units), by, SCENE_BREAKDOWN_METRICS)


def overconfidence(units: Units) -> pd.DataFrame:
    """Self minus judge majority per goal, by goal category (positive: over-confident)."""
    goals = (
        units.goals.assign(overconfidence=units.goals[SELF] - units.goals[HEADLINE])
        if not units.goals.empty
        else units.goals.assign(overconfidence=[])
    )
    return breakdown(goals, "category", ["overconfidence"])


def label_agreement(units: Units) -> pd.DataFrame:
    """Per labelling run: agreement of its labels with the records' own, per kind of label."""
    scenes = units.scenes[units.scenes["kind"] == "labelling"]
    rows = {
        str(group): {name: estimate(frame, name) for name in LABEL_AGREEMENTS}
        for group, frame in scenes.groupby("group", sort=True)
    }
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(LABEL_AGREEMENTS))


# --- sender x receiver -------------------------------------------------------------------------


def pair_matrix(frame: pd.DataFrame, value: Callable[[pd.DataFrame], Estimate]) -> pd.DataFrame:
    """Senders (rows) x receivers (columns) of Estimate cells; an untested pair is missing."""
    cells: dict[str, dict[str, Estimate]] = {}
    for (sender, receiver), part in frame.groupby(["sender", "receiver"], sort=True):
        cells.setdefault(str(sender), {})[str(receiver)] = value(part)
    matrix = pd.DataFrame.from_dict(cells, orient="index")
    return matrix.reindex(sorted(matrix.index), axis=0).reindex(sorted(matrix.columns), axis=1)


def scene_matrix(units: Units, variant: str = "", metric: str = HEADLINE) -> pd.DataFrame:
    """Fig. 5a: the scene score of each sender x receiver pair."""
    scenes = units.scenes
    chosen = scenes[(scenes["kind"] == "pairwise") & (scenes["variant"] == variant)]
    return pair_matrix(chosen, lambda part: estimate(part, metric))


def role_matrix(units: Units, role: str, variant: str = "", metric: str = HEADLINE) -> pd.DataFrame:
    """Figs. 7-8: the goal completion of the characters playing `role`, per scene, per pair."""
    characters = units.characters
    chosen = characters[
        (characters["kind"] == "pairwise")
        & (characters["role"] == role)
        & (characters["variant"] == variant)
    ]
    per_scene = (
        chosen.groupby(["sender", "receiver", "id", "template_id"], sort=True)[metric]
        .mean()
        .reset_index()
    )
    return pair_matrix(per_scene, lambda part: estimate(part, metric))


# --- attacker / defender -----------------------------------------------------------------------


def attack_defence(units: Units) -> pd.DataFrame:
    """Per model: attack = its characters' MCQ accuracy; defence = 1 - accuracy of the MCQs
    about its characters' secrets (paper §5.2). Real (not blind) runs; unit: questions."""
    questions = units.questions[units.questions["kind"].isin(["homogeneous", "pairwise"])]
    rows: dict[str, dict[str, Estimate]] = {}
    for variant, part in questions.groupby("variant", sort=True):
        models = sorted(set(part["asker_model"].dropna()) | set(part["target_model"].dropna()))
        for model in models:
            attacked = part[part["asker_model"] == model]
            defended = part[part["target_model"] == model]
            rows[f"{model}{variant}"] = {
                "attack": estimate(attacked, "correct"),
                "defence": _complement(estimate(defended, "correct")),
            }
    return pd.DataFrame.from_dict(rows, orient="index", columns=["attack", "defence"])


def _complement(value: Estimate) -> Estimate:
    return Estimate(1 - value.mean, 1 - value.high, 1 - value.low, value.n, value.clusters)


# --- uncertainty -------------------------------------------------------------------------------

UNCERTAINTY_METRICS = (*GOAL_KEYS, MCQ_ACCURACY)


def uncertainty(units: Units) -> pd.DataFrame:
    """Per run and metric: the naive 95% half-width (scenes independent) beside the one clustered
    by template (and, for PSI, the t interval over template stds beside the bootstrap)."""
    rows = []
    for group, frame in real_scenes(units).groupby("group", sort=True):
        for metric in UNCERTAINTY_METRICS:
            if metric not in frame.columns or not frame[metric].notna().any():
                continue
            naive, clustered = mean_ci(list(frame[metric].astype(float))), estimate(frame, metric)
            rows.append(_width_row(str(group), metric, naive, clustered, "t, clustered"))
        for name, metric in PSI_METRIC.items():
            if metric in frame.columns and frame[metric].notna().any():
                naive = mean_ci(template_stds(template_groups(frame, metric), "skip"))
                rows.append(
                    _width_row(str(group), name, naive, psi_estimate(frame, metric), "bootstrap")
                )
    return pd.DataFrame(rows)  # empty: the section is left out


def _width_row(
    group: str, metric: str, naive: Estimate, clustered: Estimate, method: str
) -> dict[str, object]:
    return {
        "group": group,
        "metric": metric,
        "n": naive.n,
        "templates": clustered.clusters,
        "mean": clustered.mean,
        "naive_half_width": naive.half_width,
        "half_width": clustered.half_width,
        "method": method,
        "ratio": clustered.half_width / naive.half_width if naive.half_width else np.nan,
    }


# --- baselines ---------------------------------------------------------------------------------

BASELINE_METRICS = (SELF, OTHER, HEADLINE, MCQ_ACCURACY)


def _scene_mean(frame: pd.DataFrame, column: str) -> float:
    if column not in frame.columns or not frame[column].notna().any():
        return np.nan
    return float(frame[column].mean())


def _flags(score: Estimate, row: dict[str, object]) -> list[str]:
    """Which baselines the score's 95% CI does not clear (a missing CI clears none)."""
    flags = []
    for key, text, above in (
        ("always_no", "≤ always-no", True),
        ("chance", "≤ chance", True),
        ("blind", "≤ blind", True),
        ("always_yes", "≥ always-yes", False),
    ):
        value = row.get(key)
        if not isinstance(value, float) or np.isnan(value):
            continue
        clears = score.low > value if above else score.high < value  # False for a NaN bound
        if not clears:
            flags.append(text)
    return flags


def baselines(units: Units) -> pd.DataFrame:
    """Per run and metric: the score with its CI beside the trivial baselines of the same scenes
    (always-yes / always-no readings, MCQ chance, the blind run of the same model), and the
    baselines the score does not beat."""
    scenes = units.scenes
    blind = scenes[scenes["kind"] == "blind"]
    rows = []
    for group, frame in real_scenes(units).groupby("group", sort=True):
        family = str(frame["family"].iloc[0])
        for metric in BASELINE_METRICS:
            if metric not in frame.columns or not frame[metric].notna().any():
                continue
            scored = frame[frame[metric].notna()]
            row: dict[str, object] = {"group": str(group), "metric": metric}
            row["score"] = estimate(scored, metric)
            for baseline in ("always_yes", "always_no", "chance"):
                row[baseline] = _scene_mean(scored, f"{baseline}_{metric}")
            own = blind[(blind["family"] == family) & blind["id"].isin(scored["id"])]
            row["blind"] = (
                _scene_mean(own, BLIND_MCQ_ACCURACY) if metric == MCQ_ACCURACY else np.nan
            )
            row["flags"] = ", ".join(_flags(row["score"], row))  # type: ignore[arg-type]
            rows.append(row)
    return pd.DataFrame(rows)  # empty: the section is left out


TABLE_TWO = (SCRIPT_ACCURACY, BLIND_MCQ_ACCURACY)


def table_two(units: Units) -> pd.DataFrame:
    """Table 2: one row per model (family) with a script-prediction run, both accuracies and
    their n (here, not in its section: `report.paper` sets it beside the paper too)."""
    scenes = units.scenes
    blind = scenes[scenes["kind"] == "blind"]
    rows = [
        {
            "model": str(family),
            SCRIPT_ACCURACY: estimate(frame, SCRIPT_ACCURACY),
            "templates": int(frame["template_id"].nunique()),
            BLIND_MCQ_ACCURACY: estimate(blind[blind["family"] == family], BLIND_MCQ_ACCURACY),
        }
        for family, frame in scenes[scenes["kind"] == "script"].groupby("family", sort=True)
    ]
    return pd.DataFrame(rows, columns=["model", SCRIPT_ACCURACY, "templates", BLIND_MCQ_ACCURACY])
