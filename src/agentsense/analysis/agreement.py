"""Judge-panel agreement (Fleiss' κ, Krippendorff's α, pairwise Cohen's κ, agreement with the
panel majority), and how far self and other answers agree with the judges, from an answers frame
(`sample_rows.ANSWER_COLUMNS`). Each statistic: docs/analysis.md, "Statistics", Judge reliability.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np
import pandas as pd
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa, to_table

from agentsense.sense.score_keys import OTHER, SELF
from agentsense.sense.scorers.goal import majority

SAMPLE = ["log", "id", "epoch"]
GOAL = [*SAMPLE, "character", "goal_index"]
UNIT = [*GOAL, "item"]
NAN = math.nan


def judge_matrix(answers: pd.DataFrame) -> pd.DataFrame:
    """Units x judges of readings (NaN: unreadable or not asked), judges as columns."""
    judged = answers[answers["kind"] == "judge"]
    if judged.empty:
        return pd.DataFrame()
    # One answer per (unit, judge); `max` keeps NaN when that answer was unreadable.
    matrix = judged.groupby([*UNIT, "asker"], sort=True)["reading"].max().unstack("asker")
    return matrix.reindex(columns=sorted(matrix.columns, key=_judge_order))


def _judge_order(key: str) -> tuple[int, str]:
    number = key.rsplit("_", 1)[-1]
    return (int(number), key) if number.isdigit() else (10**6, key)


def fleiss(matrix: pd.DataFrame) -> float:
    """Fleiss' κ over the units every judge answered readably (NaN with < 2 judges or units)."""
    complete = matrix.dropna()
    if matrix.shape[1] < 2 or len(complete) < 2:
        return NAN
    table, _ = aggregate_raters(complete.to_numpy(dtype=int))
    # A degenerate table (one category only) gives 0/0: the resulting NaN is the answer.
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        return float(fleiss_kappa(table, method="fleiss"))


def kripp_alpha(matrix: pd.DataFrame) -> float:
    """Krippendorff's α (nominal); NaN when fewer than two judges or a single value overall."""
    if matrix.shape[1] < 2:
        return NAN
    data = matrix.to_numpy(dtype=float).T  # raters x units
    if len(np.unique(data[~np.isnan(data)])) < 2:
        return NAN  # one value only: agreement is not estimable (the package raises)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def cohen(first: pd.Series, second: pd.Series) -> float:
    """Cohen's κ of two raters over the rows both answered readably (NaN under 2 rows)."""
    both = pd.DataFrame({"a": first, "b": second}).dropna()
    if len(both) < 2:
        return NAN
    # One category only gives 0/0: the resulting NaN is the answer.
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        return cohen_kappa(both["a"].to_numpy(dtype=int), both["b"].to_numpy(dtype=int))


def cohen_kappa(first: np.ndarray, second: np.ndarray) -> float:
    """Unweighted Cohen's κ of two raters' labels, 1 - observed / chance disagreement, in the
    order of operations of scikit-learn's `cohen_kappa_score` (which this replaced), so that
    every value is the same to the last digit (tests/test_agreement.py); statsmodels'
    `cohens_kappa`, (p_o - p_e) / (1 - p_e), differs in the last digits. One category only: NaN.
    """
    table, _ = to_table(np.column_stack([first, second]))  # rows: first; columns: second
    expected = np.outer(table.sum(axis=0), table.sum(axis=1)) / table.sum()
    disagreement = 1.0 - np.eye(len(table))
    return float(1 - np.sum(disagreement * table) / np.sum(disagreement * expected))


def cohen_pairs(matrix: pd.DataFrame) -> pd.DataFrame:
    """Cohen's κ of every pair of judges, over the units both answered readably."""
    rows = [
        {
            "judge_a": a,
            "judge_b": b,
            "cohen_kappa": cohen(matrix[a], matrix[b]),
            "units": len(matrix[[a, b]].dropna()),
        }
        for a, b in combinations(matrix.columns, 2)
    ]
    return pd.DataFrame(rows, columns=["judge_a", "judge_b", "cohen_kappa", "units"])


def panel_vote(votes: Sequence[float], official: bool = False) -> float:
    """The panel's majority on one question, by the run's rule (`scorers.goal.majority`: official
    mode, the first judge's vote on a tie; corrected, readable votes only, a tie is no decision)."""
    readable = [vote for vote in votes if not math.isnan(vote)]
    decided = majority(list(votes) if official else readable, official)
    return NAN if decided == 0.5 else decided


def majority_agreement(matrix: pd.DataFrame) -> dict[str, float]:
    """Per judge: share of its readable votes equal to the unit's panel majority."""
    panel = matrix.apply(lambda row: panel_vote(list(row)), axis=1)
    shares: dict[str, float] = {}
    for judge in matrix.columns:
        both = pd.DataFrame({"vote": matrix[judge], "majority": panel}).dropna()
        shares[str(judge)] = float((both["vote"] == both["majority"]).mean()) if len(both) else NAN
    return shares


def goal_majorities(answers: pd.DataFrame) -> pd.Series:
    """The judge majority of each goal (all judge votes on it); NaN for ties and no votes."""
    judged = answers[answers["kind"] == "judge"]
    if judged.empty:
        return pd.Series(dtype=float)
    return judged.groupby(GOAL)["reading"].agg(lambda votes: panel_vote(list(votes)))


def asker_agreement(answers: pd.DataFrame, kind: str) -> dict[str, float]:
    """Agreement of `kind` answers (self / other) with the judge majority of their goal."""
    majorities = goal_majorities(answers).rename("majority")
    asked = answers[answers["kind"] == kind]
    if asked.empty or majorities.empty:
        return {"agreement": NAN, "overconfidence": NAN}
    # No answer with a decided majority: both means are NaN.
    joined = asked.join(majorities, on=GOAL).dropna(subset=["reading", "majority"])
    return {
        "agreement": float((joined["reading"] == joined["majority"]).mean()),
        "overconfidence": float(joined["reading"].mean() - joined["majority"].mean()),
    }


def unreadable_shares(answers: pd.DataFrame) -> pd.DataFrame:
    """Share of answers with no leading yes/no word, per asker kind and per judge."""
    if answers.empty:
        return pd.DataFrame(columns=["log", "who", "model", "answers", "unreadable"])
    who = answers["kind"].where(answers["kind"] != "judge", answers["asker"])
    frame = answers.assign(who=who, model=answers["model"].fillna(""))
    table = frame.groupby(["log", "who"], sort=False).agg(
        model=("model", lambda m: ", ".join(sorted(set(m) - {""}))),
        answers=("unreadable", "size"),
        unreadable=("unreadable", "mean"),
    )
    return table.reset_index()


def group_agreement(answers: pd.DataFrame) -> dict[str, Any]:
    """The panel statistics of one group of answers (one run, or one category of a run)."""
    matrix = judge_matrix(answers)
    pairs = cohen_pairs(matrix)
    self_ = asker_agreement(answers, SELF)
    other = asker_agreement(answers, OTHER)
    majorities = goal_majorities(answers).dropna()
    yes = float(majorities.mean()) if len(majorities) else NAN
    row: dict[str, Any] = {
        "judges": int(matrix.shape[1]),
        "units": len(matrix),
        "fleiss_kappa": fleiss(matrix),
        "krippendorff_alpha": kripp_alpha(matrix),
        "mean_cohen_kappa": float(pairs["cohen_kappa"].mean()) if len(pairs) else NAN,
        "self_agreement": self_["agreement"],
        "other_agreement": other["agreement"],
        "self_overconfidence": self_["overconfidence"],
        "other_overconfidence": other["overconfidence"],
        "always_yes_agreement": yes,
        "always_no_agreement": 1 - yes,
    }
    if not matrix.empty:
        for judge, share in majority_agreement(matrix).items():
            row[f"agree_majority_{judge}"] = share
    return row


def panel_agreement(answers: pd.DataFrame, by_category: bool = False) -> pd.DataFrame:
    """One row of panel statistics per run (`log`), or per run and goal category."""
    keys = ["log", "category"] if by_category else ["log"]
    frame = answers.assign(category=answers["category"].fillna("(none)"))
    rows = [
        {**dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True)), **stats}
        for group, part in frame.groupby(keys, sort=True)
        if (stats := group_agreement(part))
    ]
    return pd.DataFrame(rows)
