"""The judge sections: *Judge reliability* (the panel's agreement, `analysis.agreement`) and
*Judges against human labels* (a filled `agentsense annotate` sheet).

Runs are named by their report row (`group`); judges by key and model. Columns are fractions
(the Markdown shows κ and α as numbers, shares in %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import pandas as pd

from agentsense.analysis.agreement import (
    cohen_pairs,
    judge_matrix,
    majority_agreement,
    panel_agreement,
    unreadable_shares,
)
from agentsense.analysis.logs import records
from agentsense.analysis.sample_rows import judge_labels
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.frames import Units
from agentsense.report.plots import agreement_heatmaps
from agentsense.report.render import markdown, number, percent
from agentsense.sense.score_keys import OTHER, SELF

# The agreement columns of a run, and of a goal category of a run.
AGREEMENT_COLUMNS = [
    "units",
    "fleiss_kappa",
    "krippendorff_alpha",
    "mean_cohen_kappa",
    "self_agreement",
    "other_agreement",
    "always_yes_agreement",
]
SUMMARY_COLUMNS = ["run", "judges", *AGREEMENT_COLUMNS, "always_no_agreement"]
SUMMARY_COLUMNS += ["self_overconfidence", "other_overconfidence"]
CATEGORY_COLUMNS = ["run", "category", *AGREEMENT_COLUMNS]


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


def _run_names(units: Units) -> dict[str, str]:
    return {str(run["log"]): str(run["group"]) for run in records(units.runs)}


def _reliability_text(tables: JudgeTables) -> str:
    summary = markdown(
        [
            "Run",
            "judges",
            "questions",
            "Fleiss' κ",
            "Krippendorff's α",
            "mean Cohen's κ",
            "self = majority %",
            "other = majority %",
            "always-yes = majority %",
            "self − majority yes rate (pp)",
        ],
        [
            [
                str(r.run),
                str(r.judges),
                str(r.units),
                number(r.fleiss_kappa),
                number(r.krippendorff_alpha),
                number(r.mean_cohen_kappa),
                percent(r.self_agreement),
                percent(r.other_agreement),
                percent(r.always_yes_agreement),
                percent(r.self_overconfidence),
            ]
            for r in tables.summary.itertuples()
        ],
    )
    judges = markdown(
        ["Run", "judge", "model", "answers", "= panel majority %", "unreadable %"],
        [
            [
                *map(str, (r.run, r.judge, r.model, r.answers)),
                percent(r.agree_majority),
                percent(r.unreadable),
            ]
            for r in tables.judges.itertuples()
        ]
        + [
            [*map(str, (r.run, r.who, r.model, r.answers)), "", percent(r.unreadable)]
            for r in tables.askers.itertuples()
        ],
    )
    categories = markdown(
        ["Run", "goal category", "questions", "Fleiss' κ", "Krippendorff's α", "self = majority %"],
        [
            [
                str(r.run),
                str(r.category),
                str(r.units),
                number(r.fleiss_kappa),
                number(r.krippendorff_alpha),
                percent(r.self_agreement),
            ]
            for r in tables.by_category.itertuples()
        ],
    )
    return (
        "## Judge reliability\n\nAgreement of the judge panel on each judge question (a unit: "
        "one question about one goal of one scene and epoch). Fleiss' κ over the questions every "
        "judge answered readably (statsmodels); Krippendorff's α, nominal, keeping questions with "
        "an unreadable vote (krippendorff); Cohen's κ per pair (as scikit-learn computes it). "
        "Panel majority: "
        "more than half of the readable votes (ties left out). Self / other = majority: share of "
        "readable self / other answers equal to the judge majority of the goal; an asker saying "
        "yes to everything would reach the always-yes column. Self − majority: yes rate of self "
        "answers minus that of the judge majority on the same goals (over-confidence). "
        "Unreadable: no leading yes/no word (the official reading counts these as no). Columns "
        "in `judge_agreement*.csv`, `judge_pairs.csv`, `unreadable.csv`.\n\n"
        + summary
        + "\n\n### Each judge and asker\n\n"
        + judges
        + "\n\n### By goal category\n\n"
        + categories
    )


def reliability_section(inputs: Inputs) -> Content:
    answers = inputs.runs.answers
    if answers.empty or not (answers["kind"] == "judge").any():
        return Absent("no judged goal answers (full, goal or pairwise)")
    report = inputs.report
    tables = judge_tables(answers, _run_names(inputs.units))
    report.csv(tables.summary, "judge_agreement")
    report.csv(tables.by_category, "judge_agreement_by_category")
    report.csv(pd.concat([tables.judges, tables.askers], ignore_index=True), "unreadable")
    pair_rows = [
        frame.rename_axis("judge_a").reset_index().assign(run=run)
        for run, frame in tables.pairs.items()
    ]
    if pair_rows:
        report.csv(pd.concat(pair_rows, ignore_index=True), "judge_pairs")
    text = _reliability_text(tables)
    if tables.pairs:
        text += report.figure(
            "judge_agreement",
            partial(agreement_heatmaps, tables.pairs, "Pairwise judge agreement (Cohen's κ)"),
        )
    return text


def human_labels_section(inputs: Inputs) -> Content:
    if inputs.options.annotations is None:
        return Absent("no annotation sheet: pass --labels SHEET.csv (from `agentsense annotate`)")
    from agentsense.report.annotate import agreement_markdown, human_agreement

    result = human_agreement(inputs.runs, inputs.options.annotations)
    inputs.report.csv(result.judges, "human_judges")
    inputs.report.csv(result.by_category, "human_judges_by_category")
    return agreement_markdown(result)
