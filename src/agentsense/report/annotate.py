"""`agentsense annotate`: the human round trip of App. D.1 (Table 6), and its report section.

`annotate LOGS --out SHEET.csv` samples judged scenes (seeded) and writes one row per judge
question, with the conversation as the judges saw it and empty annotator columns; the sample
(seed, scenes, rows) goes to `SHEET.sample.json` beside it. `annotate LOGS --labels SHEET.csv
--out DIR` checks the filled sheet against the logs and that record, then writes each judge's
agreement with the people (`analysis.annotation`) as Markdown and CSV. `agentsense report
--labels SHEET.csv` shows the same tables as a section.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from agentsense.analysis.annotation import (
    DEFAULT_ANNOTATORS,
    SHEET_COLUMNS,
    Unit,
    annotator_agreement,
    check_sheet,
    human_truth,
    judge_readings,
    judge_table,
    judged_units,
    number_rows,
    sample_units,
    unit_rows,
)
from agentsense.analysis.log_reader import Runs, sample_conversation
from agentsense.analysis.logs import records
from agentsense.engine import sheets
from agentsense.engine.errors import ReportError
from agentsense.engine.sheets import SheetError
from agentsense.report.render import markdown

SAMPLE_SUFFIX = ".sample.json"


def sample_path(sheet: Path) -> Path:
    """Where the record of a sheet's sample lives: `SHEET.sample.json` beside `SHEET.csv`."""
    return sheet.with_name(sheet.stem + SAMPLE_SUFFIX)


# --- the sheet -----------------------------------------------------------------------------------


def _sources(runs: Runs) -> dict[Unit, str]:
    """Each scored scene of the runs -> the log file it was read from."""
    scenes = runs.scenes
    if "source_log" not in scenes.columns:
        return {}
    columns = (scenes["log"], scenes["id"], scenes["epoch"], scenes["source_log"])
    return {
        (str(log), str(sample), int(epoch)): str(source)
        for log, sample, epoch, source in zip(*columns, strict=True)
    }


def sheet_rows(runs: Runs, units: list[Unit]) -> pd.DataFrame:
    """The rows of the sheet for these scenes, numbered; column `run` keeps the run's log."""
    sources = _sources(runs)
    rows: list[dict[str, Any]] = []
    for number, unit in enumerate(units, start=1):
        scene, turns = sample_conversation(sources[unit], unit[1], unit[2])
        part = unit_rows(number, Path(unit[0]).name, unit, scene, turns)
        rows += [{**row, "run": unit[0]} for row in part]
    frame = number_rows(rows)
    frame["run"] = [row["run"] for row in rows]
    return frame


def write_sheet(
    runs: Runs, out: Path, scenes: int, seed: int, annotators: int = DEFAULT_ANNOTATORS
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Sample the scenes, write the sheet and its sample record; returns both."""
    units = judged_units(runs.answers)
    if not units:
        raise ReportError(
            "No judged scene in these logs: annotate needs runs of agentsense/goal, full or "
            "pairwise (the judges' answers are what the people are compared with)."
        )
    if scenes < 1 or annotators < 1:
        raise ReportError("--scenes and --annotators must be at least 1.")
    chosen = sample_units(units, scenes, seed)
    rows = sheet_rows(runs, chosen)
    record = {
        "seed": seed,
        "scenes_requested": scenes,
        "scenes_available": len(units),
        "scenes": [
            {"scene": i, "log": Path(u[0]).name, "sample_id": u[1], "epoch": u[2]}
            for i, u in enumerate(chosen, start=1)
        ],
        "rows": len(rows),
    }
    sheet = rows[SHEET_COLUMNS].assign(**{f"annotator_{i}": "" for i in range(1, annotators + 1)})
    sheets.write_sheet(out, list(sheet.columns), records(sheet))
    sample_path(out).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return sheet, record


# --- a filled sheet -> the tables ----------------------------------------------------------------


@dataclass
class HumanAgreement:
    """Everything the labels step writes (and the report section shows)."""

    sheet: Path
    rows: pd.DataFrame  # the sheet's rows as annotate wrote them (with `run`)
    labels: pd.DataFrame  # row x annotator: 1 yes, 0 no, NaN not labelled
    truth: pd.DataFrame  # per row: yes_votes, no_votes, truth, tied
    judges: pd.DataFrame  # Table 6
    by_category: pd.DataFrame
    annotators: dict[str, float]
    annotators_by_category: pd.DataFrame
    record: dict[str, Any] = field(default_factory=dict)
    readings: pd.DataFrame = field(default_factory=pd.DataFrame)  # `judge_readings`, per row


def read_record(sheet: Path, record: Path | None = None) -> dict[str, Any]:
    path = record or sample_path(sheet)
    if not path.is_file():
        raise ReportError(
            f"{path}: no such file. It is the record of the sample that `agentsense annotate "
            f"--out {sheet.name}` wrote beside the sheet; copy it next to the filled sheet under "
            "this name, or pass it with --sample FILE."
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {"scenes": list(data["scenes"]), **data}
    except (ValueError, KeyError, TypeError) as error:
        raise ReportError(
            f"{path}: not a sample record of agentsense annotate ({error})."
        ) from None


def recorded_units(runs: Runs, record: dict[str, Any], where: str) -> list[Unit]:
    """The recorded scenes as units of these runs; refuses scenes the logs do not hold."""
    by_name: dict[str, list[str]] = {}
    for log in runs.evals["log"]:
        by_name.setdefault(Path(str(log)).name, []).append(str(log))
    judged = set(judged_units(runs.answers))
    units, missing = [], []
    for scene in record["scenes"]:
        logs = by_name.get(str(scene["log"]), [])
        unit = (logs[0] if len(logs) == 1 else "", str(scene["sample_id"]), int(scene["epoch"]))
        if unit not in judged:
            missing.append(
                f"scene {scene['scene']} ({scene['log']}, sample {unit[1]}, epoch {unit[2]})"
            )
        units.append(unit)
    if missing:
        raise ReportError(
            f"{where}: {len(missing)} sampled scene(s) are not among the judged scenes of the logs "
            f"given: {'; '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}. Pass the logs "
            "the sheet was sampled from."
        )
    return units


def read_sheet(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """A filled sheet's columns and rows (`sheets.read_sheet`), or why it cannot be read."""
    if not path.is_file():
        raise ReportError(f"{path}: no such sheet.")
    try:
        return sheets.read_sheet(path)
    except (ValueError, UnicodeDecodeError, csv.Error) as error:
        raise ReportError(f"{path}: not a CSV sheet ({error}).") from None


def human_agreement(runs: Runs, sheet: Path, record_path: Path | None = None) -> HumanAgreement:
    """Check a filled sheet against the logs and its sample record, and compute the tables."""
    record = read_record(sheet, record_path)
    rows = sheet_rows(runs, recorded_units(runs, record, str(sheet)))
    try:
        labels, _ = check_sheet(*read_sheet(sheet), rows)
    except SheetError as error:
        raise ReportError(f"{sheet}: {error}") from None
    truth = human_truth(labels)
    official = {str(r["log"]): r["mode"] != "corrected" for r in records(runs.evals)}
    readings = judge_readings(runs.answers, rows, official)
    categories = rows.set_index("row")["category"].replace("", "(none)")
    by_category = [
        {"category": c, **annotator_agreement(labels.loc[part.index], truth.loc[part.index])}
        for c, part in categories.groupby(categories, sort=True)
    ]
    return HumanAgreement(
        sheet=sheet,
        rows=rows,
        labels=labels,
        truth=truth,
        judges=judge_table(truth["truth"], readings),
        by_category=judge_table(truth["truth"], readings, categories),
        annotators=annotator_agreement(labels, truth),
        annotators_by_category=pd.DataFrame(by_category),
        record=record,
        readings=readings,
    )


# --- output --------------------------------------------------------------------------------------


def _number(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "–"
    if isinstance(value, float) and value.is_integer() and digits == 0:
        return str(int(value))
    return f"{float(value):.{digits}f}"


JUDGE_HEADERS = [
    "rows",
    "human yes",
    "accuracy",
    "false yes",
    "false no",
    "Cohen's κ",
    "unreadable",
]
JUDGE_KEYS = ["rows", "human_yes", "accuracy", "false_yes", "false_no", "cohen_kappa", "unreadable"]


def _judge_rows(table: pd.DataFrame, first: list[str]) -> list[list[str]]:
    return [
        [*(str(row[k]) for k in first), _number(row["rows"], 0)]
        + [_number(row[k]) for k in JUDGE_KEYS[1:]]
        for row in table.to_dict("records")
    ]


def agreement_markdown(result: HumanAgreement, heading: str = "##") -> str:
    a, record = result.annotators, result.record
    tied = result.truth.index[result.truth["tied"]].tolist()
    lines = [
        f"{heading} Judges against human labels (App. D.1, Table 6)",
        "",
        f"{int(a['rows'])} goal questions of {len(record.get('scenes', []))} scenes (seed "
        f"{record.get('seed')}, {record.get('scenes_available')} judged scenes available), "
        f"{int(a['annotators'])} annotator(s). The truth of a row is the majority of its labels; "
        f"{len(tied)} tied row(s) have none and are left out"
        + (
            f" (rows {', '.join(map(str, tied[:20]))}{' ...' if len(tied) > 20 else ''})"
            if tied
            else ""
        )
        + ". False yes: share of the truth-no rows the judge called yes; false no: share of the "
        "truth-yes rows it called no; an unreadable answer counts as wrong in the accuracy, "
        "Cohen's κ is over its readable answers. The panel majority is the judges' majority on "
        "the row's question by the run's rule (official: a tie goes to the first judge; "
        "corrected: a tie is no decision, counted as unreadable).",
        "",
        markdown(["judge", *JUDGE_HEADERS], _judge_rows(result.judges, ["judge"])),
        "",
        f"Annotators: Fleiss' κ {_number(a['fleiss_kappa'])} over the "
        f"{int(a['rows_all_labelled'])} rows every annotator labelled; all agree on "
        f"{_number(a['all_agree'])} of them (the paper's App. A.3 reports κ 0.79 and 0.61 for "
        "its two groups of data validators).",
        "",
        f"{heading}# By goal category",
        "",
        markdown(
            ["category", "judge", *JUDGE_HEADERS],
            _judge_rows(result.by_category, ["category", "judge"]),
        ),
        "",
        markdown(
            ["category", "rows", "Fleiss' κ", "all agree", "tied rows"],
            [
                [
                    row["category"],
                    _number(row["rows"], 0),
                    _number(row["fleiss_kappa"]),
                    _number(row["all_agree"]),
                    _number(row["tied_rows"], 0),
                ]
                for row in result.annotators_by_category.to_dict("records")
            ],
        ),
    ]
    return "\n".join(lines)


def truth_frame(result: HumanAgreement) -> pd.DataFrame:
    """Per row: the sheet's keys, the labels, the votes and the majority."""
    keys = result.rows.set_index("row")[
        [
            "scene",
            "log",
            "sample_id",
            "epoch",
            "character",
            "goal_number",
            "question_number",
            "category",
        ]
    ]
    return keys.join(result.labels).join(result.truth).reset_index()


def write_agreement(result: HumanAgreement, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "judges.csv": result.judges,
        "judges_by_category.csv": result.by_category,
        "annotators.csv": pd.DataFrame([result.annotators]),
        "annotators_by_category.csv": result.annotators_by_category,
        "truth.csv": truth_frame(result),
    }
    written = []
    for name, frame in files.items():
        frame.to_csv(out / name, index=False)
        written.append(out / name)
    (out / "annotation.md").write_text(agreement_markdown(result, "#") + "\n", encoding="utf-8")
    return [out / "annotation.md", *written]
