"""Judges against human labels (paper App. D.1, Table 6): the annotation sheet and its statistics.

A *sheet row* is one judge question about one goal of one sampled scene (log, sample, epoch):
people answer it yes/no from the conversation, as the judges did. From a filled sheet:

- the human truth of a row is the majority of its annotators' labels; a tie has no truth (the
  row is counted as tied and left out of the judge statistics);
- per judge (and per judge and goal category): `accuracy` (the judge's reading equals the truth;
  an unreadable answer counts as wrong), `false_yes` (share of the truth-no rows the judge called
  yes), `false_no` (share of the truth-yes rows it called no), Cohen's κ against the truth (over
  the rows it answered readably) and its `unreadable` share. The panel's majority on the question,
  by the run's own rule (`panel_vote`; a corrected-mode tie is no decision, counted as
  unreadable), is one more row;
- the annotators' own agreement: Fleiss' κ over the rows every annotator labelled (the paper's
  App. A.3 statistic) and the share of those rows on which all agree.
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score

from agentsense.analysis.agreement import fleiss
from agentsense.analysis.logs import records
from agentsense.engine.conversation import Turn, visible_text
from agentsense.engine.sheets import SheetError
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.scorers.goal import majority

DEFAULT_SCENES = 100  # as the paper (App. D.1: 100 scenes, 584 goal questions)
DEFAULT_SEED = 0
DEFAULT_ANNOTATORS = 3
PANEL = "panel majority"
# The columns `annotate` writes before the annotator columns; all but `row` are checked.
KEY_COLUMNS = ["row", "scene", "log", "sample_id", "epoch", "character", "goal_number"]
SHEET_COLUMNS = [*KEY_COLUMNS, "question_number", "category", "goal", "question", "conversation"]
CHECKED_COLUMNS = [c for c in SHEET_COLUMNS if c != "row"]
ANNOTATOR_PREFIX = "annotator"
FREE_TEXT_PREFIXES = ("note", "comment")  # columns people add for remarks; never read
YES_LABELS = ("yes", "y")
NO_LABELS = ("no", "n")
NAN = math.nan
OUTCOME = "nothing computed"
HINT = (
    "Labels are yes or no (y/n, any case); fix the rows listed or write a new sheet with "
    "`agentsense annotate LOGS --out SHEET.csv`."
)

Unit = tuple[str, str, int]  # (run log, sample id, epoch)


@dataclass(frozen=True)
class SheetProblem:
    """One thing wrong with a filled sheet, named by its row (or column)."""

    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


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


def conversation_text(turns: Sequence[Turn]) -> str:
    """The conversation as the judges were shown it: one `Speaker: text` line per turn."""
    return "\n".join(visible_text(turn) for turn in turns)


def unit_rows(
    number: int, log_name: str, unit: Unit, scene: Scenario, turns: Sequence[Turn]
) -> list[dict[str, Any]]:
    """The sheet rows of one sampled scene: one per judge question of every goal."""
    text = conversation_text(turns)
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
    frame = pd.DataFrame(list(rows), columns=SHEET_COLUMNS[1:])
    frame.insert(0, "row", range(1, len(frame) + 1))
    return frame


# --- reading a filled sheet ----------------------------------------------------------------------


def _plain(text: Any) -> str:
    """A cell as compared: spreadsheets may turn line ends into CRLF or pad cells."""
    return "\n".join(line.rstrip() for line in str(text).replace("\r\n", "\n").split("\n")).strip()


def label_value(cell: str) -> float | None:
    """1.0 yes, 0.0 no, NaN for an empty cell; None for anything else (refused)."""
    text = cell.strip().lower()
    if not text:
        return NAN
    if text in YES_LABELS:
        return 1.0
    if text in NO_LABELS:
        return 0.0
    return None


def annotator_columns(columns: Sequence[str]) -> tuple[list[str], list[SheetProblem]]:
    """The annotator columns, and columns that are neither the sheet's nor an annotator's."""
    annotators, problems = [], []
    for column in columns:
        name = column.strip().lower()
        if column in SHEET_COLUMNS or name.startswith(FREE_TEXT_PREFIXES):
            continue
        if name.startswith(ANNOTATOR_PREFIX):
            annotators.append(column)
        else:
            problems.append(
                SheetProblem(
                    f"column {column!r}",
                    f"not a column of the sheet; name it {ANNOTATOR_PREFIX}_<name> if it holds "
                    "labels, or notes if it does not",
                )
            )
    return annotators, problems


def check_sheet(
    columns: list[str], sheet: list[dict[str, str]], expected: pd.DataFrame
) -> tuple[pd.DataFrame, list[str]]:
    """The labels of a filled sheet (`sheets.read_sheet`: its columns and rows) as rows x
    annotators (1/0/NaN, indexed by row number), checked against the rows `annotate` wrote
    (`expected`); raises `SheetError` listing every problem."""
    problems = [
        SheetProblem(f"column {c!r}", "missing (restore it from the sheet annotate wrote)")
        for c in SHEET_COLUMNS
        if c not in columns
    ]
    annotators, extra = annotator_columns(columns)
    problems += extra
    if not annotators:
        problems.append(
            SheetProblem("columns", f"no annotator column (headers starting {ANNOTATOR_PREFIX!r})")
        )
    if problems:
        raise SheetError(problems, OUTCOME, HINT)
    wanted = expected.set_index("row")
    seen: set[int] = set()
    labels: dict[int, dict[str, float]] = {}
    for line, record in enumerate(sheet, start=2):  # line 1: the header
        row = _row_number(record["row"])
        where = f"row {record['row']!r} (line {line})"
        if row is None or row not in wanted.index:
            problems.append(
                SheetProblem(where, f"not a row number of this sheet (1-{len(wanted)})")
            )
            continue
        if row in seen:
            problems.append(SheetProblem(where, "appears twice"))
            continue
        seen.add(row)
        problems += _edited(f"row {row}", record, records(wanted.loc[[row]])[0])
        values, bad = _labels(f"row {row}", record, annotators)
        problems += bad
        labels[row] = values
    missing = sorted(set(wanted.index) - seen)
    if missing:
        problems.append(SheetProblem(f"rows {_ranges(missing)}", "missing from the sheet"))
    if problems:
        raise SheetError(problems, OUTCOME, HINT)
    matrix = pd.DataFrame.from_dict(labels, orient="index", columns=annotators).sort_index()
    return matrix, annotators


def _row_number(value: Any) -> int | None:
    text = str(value).strip()
    return int(text) if text.isdigit() else None


def _edited(where: str, record: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[SheetProblem]:
    return [
        SheetProblem(where, f"`{column}` was edited (expected {_short(wanted[column])!r})")
        for column in CHECKED_COLUMNS
        if _plain(record[column]) != _plain(wanted[column])
    ]


def _labels(
    where: str, record: Mapping[str, Any], annotators: Sequence[str]
) -> tuple[dict[str, float], list[SheetProblem]]:
    values: dict[str, float] = {}
    problems = []
    for column in annotators:
        value = label_value(str(record[column]))
        if value is None:
            problems.append(
                SheetProblem(
                    f"{where}, {column}", f"label {record[column]!r} is not yes, no or empty"
                )
            )
        else:
            values[column] = value
    if not problems and all(math.isnan(v) for v in values.values()):
        problems.append(SheetProblem(where, "no annotator labelled it (yes or no)"))
    return values, problems


def _short(value: Any, width: int = 60) -> str:
    text = str(value).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _ranges(numbers: Sequence[int]) -> str:
    """1, 2, 3, 7 -> '1-3, 7'."""
    parts: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ", ".join(parts)


# --- the human truth and the statistics ----------------------------------------------------------


def human_truth(labels: pd.DataFrame) -> pd.DataFrame:
    """Per row: yes and no votes, the majority (NaN for a tie) and whether it is tied."""
    yes = (labels == 1.0).sum(axis=1)
    no = (labels == 0.0).sum(axis=1)
    truth = pd.Series(np.where(yes > no, 1.0, np.where(no > yes, 0.0, NAN)), index=labels.index)
    return pd.DataFrame({"yes_votes": yes, "no_votes": no, "truth": truth, "tied": yes == no})


def panel_vote(votes: Sequence[float], official: bool) -> float:
    """The panel's majority on one question, by the run's rule (`scorers.goal.majority`: official
    mode, the first judge's vote on a tie; corrected, readable votes only, a tie is no decision)."""
    readable = [vote for vote in votes if not math.isnan(vote)]
    decided = majority(list(votes) if official else readable, official)
    return NAN if decided == 0.5 else decided


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


def _kappa(truth: pd.Series, reading: pd.Series) -> float:
    both = pd.DataFrame({"truth": truth, "reading": reading}).dropna()
    if len(both) < 2:
        return NAN
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        return float(cohen_kappa_score(both["truth"].astype(int), both["reading"].astype(int)))


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
        "cohen_kappa": _kappa(frame["truth"], frame["reading"]),
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


SCORE_COLUMNS = [
    "rows",
    "human_yes",
    "accuracy",
    "false_yes",
    "false_no",
    "cohen_kappa",
    "unreadable",
]


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
