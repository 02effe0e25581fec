"""The report's judge-reliability tables, from the answers frame (analysis.agreement).

Runs are named by their report row (`group`); judges by key and model. Columns are fractions
(the Markdown shows κ and α as numbers, shares in %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ..analysis.agreement import (
    cohen_pairs,
    judge_matrix,
    majority_agreement,
    panel_agreement,
    unreadable_shares,
)
from ..analysis.logs import records
from ..analysis.sample_rows import judge_labels
from ..score_keys import OTHER, SELF

SUMMARY_COLUMNS = [
    "run",
    "judges",
    "units",
    "fleiss_kappa",
    "krippendorff_alpha",
    "mean_cohen_kappa",
    "self_agreement",
    "other_agreement",
    "always_yes_agreement",
    "always_no_agreement",
    "self_overconfidence",
    "other_overconfidence",
]
CATEGORY_COLUMNS = [
    "run",
    "category",
    "units",
    "fleiss_kappa",
    "krippendorff_alpha",
    "mean_cohen_kappa",
    "self_agreement",
    "other_agreement",
    "always_yes_agreement",
]


@dataclass
class JudgeTables:
    summary: pd.DataFrame  # one row per run
    by_category: pd.DataFrame  # one row per run and goal category
    judges: pd.DataFrame  # one row per run and judge: model, agreement with majority, unreadable
    askers: pd.DataFrame  # unreadable share of self and other answers, per run
    pairs: dict[str, pd.DataFrame]  # run -> judges x judges (by model) of Cohen's κ (diagonal 1)


def _named(frame: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    return frame.assign(run=frame["log"].map(names).fillna(frame["log"])).drop(columns="log")


def _judge_rows(answers: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    unreadable = unreadable_shares(answers)
    rows: list[dict[str, object]] = []
    for log, part in answers.groupby("log", sort=True):
        matrix = judge_matrix(part)
        if matrix.empty:
            continue
        shares = {str(row["who"]): row for row in records(unreadable[unreadable["log"] == log])}
        for judge, agreement in majority_agreement(matrix).items():
            info = shares.get(judge, {})
            rows.append(
                {
                    "run": names.get(str(log), str(log)),
                    "judge": judge,
                    "model": info.get("model", ""),
                    "answers": info.get("answers", 0),
                    "agree_majority": agreement,
                    "unreadable": info.get("unreadable", math.nan),
                }
            )
    return pd.DataFrame(
        rows, columns=["run", "judge", "model", "answers", "agree_majority", "unreadable"]
    )


def _pair_matrix(part: pd.DataFrame) -> pd.DataFrame:
    matrix = judge_matrix(part)
    judges = [str(judge) for judge in matrix.columns]
    kappa = {
        frozenset((str(a), str(b))): float(k)
        for a, b, k in cohen_pairs(matrix)[["judge_a", "judge_b", "cohen_kappa"]].itertuples(
            index=False
        )
    }
    values = [[1.0 if a == b else kappa[frozenset((a, b))] for b in judges] for a in judges]
    return pd.DataFrame(values, index=judges, columns=judges)


def _by_model(matrix: pd.DataFrame, log: str, models: dict[tuple[str, str], str]) -> pd.DataFrame:
    """Judge keys (judge_1, ...) -> their models (numbered when a model sits twice)."""
    keys = {str(key): models.get((log, str(key))) or str(key) for key in matrix.columns}
    labels = {key: label.removeprefix("judge: ") for key, label in judge_labels(keys).items()}
    return matrix.rename(index=labels, columns=labels)


def judge_tables(answers: pd.DataFrame, names: dict[str, str]) -> JudgeTables:
    """All reliability tables of the runs in `answers`; `names` maps a log to its run's name."""
    summary = _named(panel_agreement(answers), names)
    by_category = _named(panel_agreement(answers, by_category=True), names)
    unreadable = unreadable_shares(answers)
    askers = _named(unreadable[unreadable["who"].isin([SELF, OTHER])], names)
    models = {(str(row["log"]), str(row["who"])): str(row["model"]) for row in records(unreadable)}
    pairs = {
        names.get(str(log), str(log)): _by_model(_pair_matrix(part), str(log), models)
        for log, part in answers.groupby("log", sort=True)
        if judge_matrix(part).shape[1] >= 2
    }
    return JudgeTables(
        summary=summary.reindex(columns=SUMMARY_COLUMNS),
        by_category=by_category.reindex(columns=CATEGORY_COLUMNS),
        judges=_judge_rows(answers, names),
        askers=askers.reindex(columns=["run", "who", "model", "answers", "unreadable"]),
        pairs=pairs,
    )
