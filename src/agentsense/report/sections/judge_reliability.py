"""The *Judge reliability* section: agreement of the judge panel (`analysis.agreement`)."""

from __future__ import annotations

import pandas as pd

from ...analysis.logs import records
from ..content import Absent, Content
from ..document import Inputs
from ..frames import Units
from ..judging import JudgeTables, judge_tables
from ..plots import agreement_heatmaps
from ..render import markdown
from .shared import number, percent


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
        "an unreadable vote (krippendorff); Cohen's κ per pair (scikit-learn). Panel majority: "
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
            lambda path: agreement_heatmaps(
                tables.pairs, "Pairwise judge agreement (Cohen's κ)", path
            ),
        )
    return text
