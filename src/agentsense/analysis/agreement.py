"""Judge-panel agreement (Fleiss' κ, Krippendorff's α, pairwise Cohen's κ, agreement with the
panel majority), and how far self and other answers agree with the judges, from an answers frame
(`sample_rows.ANSWER_COLUMNS`). Each statistic: docs/analysis.md, "Statistics", Judge reliability.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np
import pandas as pd
from pandas.api.typing import SeriesGroupBy
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

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
    """Cohen's κ of two raters over the rows both answered readably (NaN under 2 rows, and NaN
    when only one category is used: 0/0)."""
    both = pd.DataFrame({"a": first, "b": second}).dropna()
    if len(both) < 2:
        return NAN
    return _kappa(both["a"].to_numpy().astype(int), both["b"].to_numpy().astype(int))


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    """`sklearn.metrics.cohen_kappa_score(a, b)`, its arithmetic step for step (so the same
    number to the last digit) without its input checks, which cost a report ~30 ms a pair."""
    labels, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    n = len(labels)
    confusion = np.bincount(codes[: len(a)] * n + codes[len(a) :], minlength=n * n)
    confusion = confusion.reshape(n, n).astype(float)
    sum0, sum1 = confusion.sum(axis=0), confusion.sum(axis=1)
    expected = np.outer(sum0, sum1) / np.sum(sum0)
    weights = np.ones((n, n))
    np.fill_diagonal(weights, 0)
    denominator = np.sum(weights * expected)
    if denominator == 0:  # one category only
        return NAN
    return float(1 - np.sum(weights * confusion) / denominator)


def cohen_pairs(matrix: pd.DataFrame) -> pd.DataFrame:
    """Cohen's κ of every pair of judges, over the units both answered readably (`cohen`, on
    the matrix's arrays: aligning two Series on the units' index costs more than κ)."""
    votes = {judge: matrix[judge].to_numpy(dtype=float) for judge in matrix.columns}
    rows = []
    for a, b in combinations(matrix.columns, 2):
        both = ~(np.isnan(votes[a]) | np.isnan(votes[b]))
        units = int(both.sum())
        kappa = (
            _kappa(votes[a][both].astype(int), votes[b][both].astype(int)) if units >= 2 else NAN
        )
        rows.append({"judge_a": a, "judge_b": b, "cohen_kappa": kappa, "units": units})
    return pd.DataFrame(rows, columns=["judge_a", "judge_b", "cohen_kappa", "units"])


def panel_vote(votes: Sequence[float], official: bool = False) -> float:
    """The panel's majority on one question, by the run's rule (`scorers.goal.majority`: official
    mode, the first judge's vote on a tie; corrected, readable votes only, a tie is no decision)."""
    readable = [vote for vote in votes if not math.isnan(vote)]
    decided = majority(list(votes) if official else readable, official)
    return NAN if decided == 0.5 else decided


def panel_votes(votes: pd.DataFrame | SeriesGroupBy[Any, Any]) -> pd.Series:
    """`panel_vote` (the corrected rule) of many questions at once: of each row of a units x
    judges frame, or of each group of votes; NaN for a tie or no readable vote."""
    if isinstance(votes, pd.DataFrame):
        yes, readable = votes.sum(axis=1), votes.count(axis=1)
    else:
        yes, readable = votes.sum(), votes.count()
    # 0/1 votes: the sum is exact, so the share is `statistics.fmean`'s, as `panel_vote` takes it.
    share = yes / readable.where(readable > 0)
    return (share > 0.5).astype(float).where(share.notna() & (share != 0.5))


def majority_agreement(matrix: pd.DataFrame) -> dict[str, float]:
    """Per judge: share of its readable votes equal to the unit's panel majority."""
    panel = panel_votes(matrix).to_numpy(dtype=float)
    shares: dict[str, float] = {}
    for judge in matrix.columns:
        vote = matrix[judge].to_numpy(dtype=float)
        both = ~(np.isnan(vote) | np.isnan(panel))
        shares[str(judge)] = float((vote[both] == panel[both]).mean()) if both.any() else NAN
    return shares


def goal_majorities(answers: pd.DataFrame) -> pd.Series:
    """The judge majority of each goal (all judge votes on it); NaN for ties and no votes."""
    judged = answers[answers["kind"] == "judge"]
    if judged.empty:
        return pd.Series(dtype=float)
    return panel_votes(judged.groupby(GOAL)["reading"]).rename("reading")


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


def _answers_by(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group of `keys`: how often self and other answers agree with the judge majority of
    their goal, and how much more often they say yes (over-confidence), among answers whose goal
    has a decided majority; and the agreement of answering yes (no) to every goal. A goal's
    majority is its own judges' votes and a goal lies in one group, so every group is taken at
    once; a group without such answers has no row (or no column: NaN)."""
    judged = frame[frame["kind"] == "judge"]
    if judged.empty:
        return pd.DataFrame(columns=ANSWERED)
    goals = goal_majorities(frame).rename("majority")
    columns = list(dict.fromkeys([*GOAL, *keys]))
    decided = judged.drop_duplicates(GOAL)[columns].join(goals, on=GOAL).dropna(subset="majority")
    yes = decided.groupby(keys)["majority"].mean()
    table = pd.DataFrame({"always_yes_agreement": yes, "always_no_agreement": 1 - yes})
    asked = frame[frame["kind"].isin([SELF, OTHER])].join(goals, on=GOAL)
    asked = asked.dropna(subset=["reading", "majority"])
    if asked.empty:
        return table
    by = asked.assign(agree=asked["reading"] == asked["majority"]).groupby([*keys, "kind"])
    means = by[["agree", "reading", "majority"]].mean()
    means["over"] = means["reading"] - means["majority"]
    wide = means[["agree", "over"]].unstack("kind")
    for kind in (SELF, OTHER):
        if ("agree", kind) in wide.columns:  # aligned on the groups (those without: NaN)
            table[f"{kind}_agreement"] = wide[("agree", kind)].astype(float)
            table[f"{kind}_overconfidence"] = wide[("over", kind)]
    return table


def _by_key(table: pd.DataFrame) -> dict[tuple[Any, ...], dict[str, float]]:
    """`_answers_by`'s rows by their group's key (a tuple), as plain floats."""
    return {
        (key if isinstance(key, tuple) else (key,)): {str(k): float(v) for k, v in row.items()}
        for key, row in table.iterrows()
    }


def group_agreement(
    answers: pd.DataFrame, answered: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """The panel statistics of one group of answers (one run, or one category of a run);
    `answered`: its self/other and always-yes/no rows when taken already (`_answers_by`)."""
    matrix = judge_matrix(answers)
    pairs = cohen_pairs(matrix)
    if answered is None:  # the group alone: the one group of `_answers_by`
        answered = _by_key(_answers_by(answers.assign(_group=0), ["_group"])).get((0,), {})
    row: dict[str, Any] = {
        "judges": int(matrix.shape[1]),
        "units": len(matrix),
        "fleiss_kappa": fleiss(matrix),
        "krippendorff_alpha": kripp_alpha(matrix),
        "mean_cohen_kappa": float(pairs["cohen_kappa"].mean()) if len(pairs) else NAN,
        **{name: answered.get(name, NAN) for name in ANSWERED},
    }
    if not matrix.empty:
        for judge, share in majority_agreement(matrix).items():
            row[f"agree_majority_{judge}"] = share
    return row


ANSWERED = [
    "self_agreement",
    "other_agreement",
    "self_overconfidence",
    "other_overconfidence",
    "always_yes_agreement",
    "always_no_agreement",
]


def panel_agreement(answers: pd.DataFrame, by_category: bool = False) -> pd.DataFrame:
    """One row of panel statistics per run (`log`), or per run and goal category."""
    keys = ["log", "category"] if by_category else ["log"]
    frame = answers.assign(category=answers["category"].fillna("(none)"))
    answered = _by_key(_answers_by(frame, keys))
    rows = []
    for group, part in frame.groupby(keys, sort=True):
        key = group if isinstance(group, tuple) else (group,)
        stats = group_agreement(part, answered.get(key, {}))
        rows.append({**dict(zip(keys, key, strict=True)), **stats})
    return pd.DataFrame(rows)
