"""Judges against human labels (paper App. D.1, Table 6): the annotation sheet, reading it back,
the human truth (the majority of a row's labels; a tie has none) and each judge's and the panel
majority's agreement with it. The rules and the numbers: docs/analysis.md, `agentsense annotate`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

import numpy as np
import pandas as pd

from agentsense.analysis.agreement import cohen, fleiss, panel_vote
from agentsense.analysis.logs import records
from agentsense.engine.conversation import Turn, visible_text
from agentsense.engine.sheets import SheetError
from agentsense.sense.dataset.schema import Scenario

DEFAULT_SCENES = 100  # as the paper (App. D.1: 100 scenes, 584 goal questions)
DEFAULT_SEED = 0
DEFAULT_ANNOTATORS = 3
PANEL = "panel majority"
# The columns `annotate` writes before the annotator columns; all but `row` are checked.
SHEET_COLUMNS = ["row", "scene", "log", "sample_id", "epoch", "character", "goal_number"]
SHEET_COLUMNS += ["question_number", "category", "goal", "question", "conversation"]
CHECKED_COLUMNS = SHEET_COLUMNS[1:]
ANNOTATOR_PREFIX = "annotator"
FREE_TEXT_PREFIXES = ("note", "comment")  # columns people add for remarks; never read
NAN = math.nan
LABELS = {"": NAN, "yes": 1.0, "y": 1.0, "no": 0.0, "n": 0.0}  # any case, padded or not
OUTCOME = "nothing computed"
HINT = (
    "Labels are yes or no (y/n, any case); fix the rows listed or write a new sheet with "
    "`agentsense annotate LOGS --out SHEET.csv`."
)

Unit = tuple[str, str, int]  # (run log, sample id, epoch)


# --- sampling and the rows of a sheet ------------------------------------------------------------


def judged_units(answers: pd.DataFrame) -> list[Unit]:
    """The scenes with judge answers, in a stable order (log, sample id, epoch)."""
    judged = answers[answers["kind"] == "judge"]
    keys = zip(judged["log"], judged["id"], judged["epoch"], strict=True)
    return sorted({(str(log), str(sample), int(epoch)) for log, sample, epoch in keys})


def sample_units(units: Sequence[Unit], scenes: int, seed: int) -> list[Unit]:
    """`scenes` units drawn without replacement with `random.Random(seed)` (all if fewer),
    returned in the stable order of `units`."""
    chosen = set(random.Random(seed).sample(list(units), min(scenes, len(units))))
    return [unit for unit in units if unit in chosen]


def unit_rows(
    number: int, log_name: str, unit: Unit, scene: Scenario, turns: Sequence[Turn]
) -> list[dict[str, Any]]:
    """The sheet rows of one sampled scene: one per judge question of every goal, with the
    conversation as the judges were shown it (one `Speaker: text` line per turn)."""
    text = "\n".join(visible_text(turn) for turn in turns)
    rows = []
    for character in scene.characters:
        for g, goal in enumerate(character.goals, start=1):
            for q, asked in enumerate(goal.eval_questions.judge, start=1):
                rows.append(
                    {
                        "scene": number,
                        "log": log_name,
                        "sample_id": unit[1],
                        "epoch": unit[2],
                        "character": character.name,
                        "goal_number": g,
                        "question_number": q,
                        "category": goal.category or "",
                        "goal": goal.goal,
                        "question": asked.question,
                        "conversation": text,
                    }
                )
    return rows


def number_rows(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=CHECKED_COLUMNS)
    frame.insert(0, "row", range(1, len(frame) + 1))
    return frame


# --- reading a filled sheet ----------------------------------------------------------------------


def _plain(text: Any) -> str:
    """A cell as compared: spreadsheets may turn line ends into CRLF or pad cells."""
    return "\n".join(line.rstrip() for line in str(text).replace("\r\n", "\n").split("\n")).strip()


def annotator_columns(columns: Sequence[str]) -> tuple[list[str], list[str]]:
    """The annotator columns, and the problems of columns that are neither the sheet's nor an
    annotator's."""
    annotators, problems = [], []
    for column in columns:
        name = column.strip().lower()
        if column in SHEET_COLUMNS or name.startswith(FREE_TEXT_PREFIXES):
            continue
        if name.startswith(ANNOTATOR_PREFIX):
            annotators.append(column)
        else:
            problems.append(
                f"column {column!r}: not a column of the sheet; name it {ANNOTATOR_PREFIX}_<name> "
                "if it holds labels, or notes if it does not"
            )
    return annotators, problems


def check_sheet(
    columns: list[str], sheet: list[dict[str, str]], expected: pd.DataFrame
) -> tuple[pd.DataFrame, list[str]]:
    """The labels of a filled sheet (`sheets.read_sheet`: its columns and rows) as rows x
    annotators (1/0/NaN, indexed by row number), checked against the rows `annotate` wrote
    (`expected`); raises `SheetError` listing every problem, each named by its row or column."""
    problems = [
        f"column {c!r}: missing (restore it from the sheet annotate wrote)"
        for c in SHEET_COLUMNS
        if c not in columns
    ]
    annotators, extra = annotator_columns(columns)
    problems += extra
    if not annotators:
        problems.append(f"columns: no annotator column (headers starting {ANNOTATOR_PREFIX!r})")
    if problems:
        raise SheetError(problems, OUTCOME, HINT)
    wanted = expected.set_index("row")
    labels: dict[int, dict[str, float]] = {}
    for line, record in enumerate(sheet, start=2):  # line 1: the header
        text = str(record["row"]).strip()
        row = int(text) if text.isdigit() else None
        where = f"row {record['row']!r} (line {line})"
        if row is None or row not in wanted.index:
            problems.append(f"{where}: not a row number of this sheet (1-{len(wanted)})")
        elif row in labels:
            problems.append(f"{where}: appears twice")
        else:
            problems += _edited(f"row {row}", record, records(wanted.loc[[row]])[0])
            labels[row], bad = _labels(f"row {row}", record, annotators)
            problems += bad
    missing = sorted(set(wanted.index) - set(labels))
    if missing:
        problems.append(f"rows {_ranges(missing)}: missing from the sheet")
    if problems:
        raise SheetError(problems, OUTCOME, HINT)
    matrix = pd.DataFrame.from_dict(labels, orient="index", columns=annotators).sort_index()
    return matrix, annotators


def _edited(where: str, record: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    return [
        f"{where}: `{column}` was edited (expected {_short(wanted[column])!r})"
        for column in CHECKED_COLUMNS
        if _plain(record[column]) != _plain(wanted[column])
    ]


def _labels(
    where: str, record: Mapping[str, Any], annotators: Sequence[str]
) -> tuple[dict[str, float], list[str]]:
    """An annotated row's labels (1.0 yes, 0.0 no, NaN empty), and its problems."""
    values = {c: LABELS.get(str(record[c]).strip().lower()) for c in annotators}
    problems = [
        f"{where}, {column}: label {record[column]!r} is not yes, no or empty"
        for column, value in values.items()
        if value is None
    ]
    if not problems and all(math.isnan(v) for v in values.values() if v is not None):
        problems.append(f"{where}: no annotator labelled it (yes or no)")
    return {c: v for c, v in values.items() if v is not None}, problems


def _short(value: Any, width: int = 60) -> str:
    text = str(value).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _ranges(numbers: Sequence[int]) -> str:
    """1, 2, 3, 7 -> '1-3, 7'."""
    runs = [[n for _, n in run] for _, run in groupby(enumerate(numbers), lambda p: p[1] - p[0])]
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


# --- the human truth and the statistics ----------------------------------------------------------


def human_truth(labels: pd.DataFrame) -> pd.DataFrame:
    """Per row: yes and no votes, the majority (NaN for a tie) and whether it is tied."""
    yes = (labels == 1.0).sum(axis=1)
    no = (labels == 0.0).sum(axis=1)
    truth = pd.Series(np.where(yes > no, 1.0, np.where(no > yes, 0.0, NAN)), index=labels.index)
    return pd.DataFrame({"yes_votes": yes, "no_votes": no, "truth": truth, "tied": yes == no})


def judge_readings(
    answers: pd.DataFrame, rows: pd.DataFrame, official: Mapping[str, bool]
) -> pd.DataFrame:
    """One line per (sheet row, judge) the judge answered: its reading (NaN: unreadable). Judges
    are named by model (with the seat when a model sits twice in a panel); the run's panel
    majority is one more judge. `official`: run log -> whether it ran in official mode."""
    judged = answers[answers["kind"] == "judge"]
    seats = judged.groupby(["log", "model"])["asker"].nunique()
    doubled = {key for key, n in seats.items() if n > 1}
    keyed = judged.assign(
        judge=[
            f"{m} ({a})" if (lg, m) in doubled else str(m)
            for lg, m, a in zip(judged["log"], judged["model"], judged["asker"], strict=True)
        ],
        sample_id=judged["id"].astype(str),
        goal_number=judged["goal_index"] + 1,
        question_number=judged["item"] + 1,
    )
    on = ["log", "sample_id", "epoch", "character", "goal_number", "question_number"]
    wanted = rows.assign(log=rows["run"], sample_id=rows["sample_id"].astype(str))[["row", *on]]
    joined = wanted.merge(keyed[[*on, "asker", "judge", "reading"]], on=on, how="inner")
    # Votes in panel order (judge_1 first, judge_10 after judge_9): the official tie rule needs it.
    seat = joined["asker"].map(lambda key: int(str(key).rsplit("_", 1)[-1]))
    votes = (
        joined.assign(seat=seat)
        .groupby(["row", "log", "seat", "judge"], as_index=False)
        .agg(reading=("reading", "max"))
        .sort_values(["row", "seat"])
    )
    panel = [
        {
            "row": row,
            "judge": PANEL,
            "reading": panel_vote(list(part["reading"]), official[str(log)]),
        }
        for (row, log), part in votes.groupby(["row", "log"], sort=True)
    ]
    readings: pd.DataFrame = pd.concat(
        [votes[["row", "judge", "reading"]], pd.DataFrame(panel)], ignore_index=True
    )
    return readings


def judge_scores(truth: pd.Series, reading: pd.Series) -> dict[str, float]:
    """One judge against the human truth, over the rows with a truth (aligned series)."""
    frame = pd.DataFrame({"truth": truth, "reading": reading}).dropna(subset=["truth"])
    yes, no = frame[frame["truth"] == 1.0], frame[frame["truth"] == 0.0]
    n = len(frame)
    return {
        "rows": float(n),
        "human_yes": float(len(yes) / n) if n else NAN,
        "accuracy": float((frame["reading"] == frame["truth"]).mean()) if n else NAN,
        "false_yes": float((no["reading"] == 1.0).mean()) if len(no) else NAN,
        "false_no": float((yes["reading"] == 0.0).mean()) if len(yes) else NAN,
        "cohen_kappa": cohen(frame["truth"], frame["reading"]),
        "unreadable": float(frame["reading"].isna().mean()) if n else NAN,
    }


def judge_table(
    truth: pd.Series, readings: pd.DataFrame, categories: pd.Series | None = None
) -> pd.DataFrame:
    """Table 6: one row per judge (per goal category and judge when `categories` is given).
    `truth` and `categories` are indexed by sheet row; `readings` is `judge_readings`."""
    frame = readings.assign(truth=readings["row"].map(truth))
    keys = ["judge"]
    if categories is not None:
        frame = frame.assign(category=frame["row"].map(categories))
        keys = ["category", "judge"]
    order = {judge: i for i, judge in enumerate(_judge_order(readings))}
    rows = [
        {**dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True)), **scores}
        for key, part in frame.groupby(keys, sort=True)
        if (scores := judge_scores(part["truth"], part["reading"]))["rows"] > 0
    ]
    table = pd.DataFrame(rows, columns=[*keys, *SCORE_COLUMNS])
    if table.empty:
        return table
    table["_order"] = table["judge"].map(order)
    sort = ["category", "_order"] if categories is not None else ["_order"]
    return table.sort_values(sort).drop(columns="_order").reset_index(drop=True)


SCORE_COLUMNS = ["rows", "human_yes", "accuracy", "false_yes", "false_no", "cohen_kappa"]
SCORE_COLUMNS += ["unreadable"]


def _judge_order(readings: pd.DataFrame) -> list[str]:
    """Judges in the order they first answer, the panel majority last."""
    judges = [j for j in dict.fromkeys(readings["judge"]) if j != PANEL]
    return [*judges, PANEL]


def annotator_agreement(labels: pd.DataFrame, truth: pd.DataFrame) -> dict[str, float]:
    """Fleiss' κ over the rows every annotator labelled, full agreement there, and ties."""
    complete = labels.dropna()
    agree = complete.nunique(axis=1) == 1
    return {
        "annotators": float(labels.shape[1]),
        "rows": float(len(labels)),
        "rows_all_labelled": float(len(complete)),
        "fleiss_kappa": fleiss(labels),
        "all_agree": float(agree.mean()) if len(complete) else NAN,
        "tied_rows": float(truth["tied"].sum()),
    }
