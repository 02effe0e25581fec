"""The paper beside a run: each cell of Tables 1, 2, 7 (and 6) that a run's row has and the paper
publishes for the row's model (`sense/reference/paper.csv`), with the difference and whether the
paper's value lies in the run's 95% interval; the report's *Beside the paper* section and the
gate `agentsense compare --against paper`.

A row has references when its model maps to a paper model (`model_names.paper_model`, with
AGENTSENSE_MODEL_NAMES) and its runs are comparable (`analysis.official.reason`: the official
data, every scene, finished). Table 6 (judges against people) needs `agentsense annotate`'s
labels: `table_six`, in the report with `--labels SHEET.csv`.

`paper_matches(units)` is the API (also for the Register's evaluation report): a `PaperMatch`
per cell, its values in the paper's unit (percent, points or a fraction) and the difference in
percentage points.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from agentsense.analysis import official
from agentsense.analysis.logs import records
from agentsense.analysis.stats import Estimate, bounded_mean_ci
from agentsense.engine.errors import ReportError
from agentsense.report import tables
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.frames import Units
from agentsense.report.render import markdown, number
from agentsense.sense.reference.model_names import ENV, paper_model
from agentsense.sense.reference.paper import PaperCell, cell
from agentsense.sense.score_keys import (
    BLIND_MCQ_ACCURACY,
    JUDGE_MAJORITY,
    JUDGE_MEAN,
    MCQ_ACCURACY,
    OTHER,
    SCRIPT_ACCURACY,
    SELF,
)

if TYPE_CHECKING:  # imported where used: the human-label statistics pull in statsmodels
    from agentsense.analysis.log_reader import Runs
    from agentsense.report.annotate import HumanAgreement

__all__ = ["PaperMatch", "References", "gate_text", "paper_matches", "references", "table_six"]

# The report's column -> the paper's column, per table (Table 7: the mean over its epochs).
COLUMNS: dict[str, dict[str, str]] = {
    "1": {
        SELF: "Goal / Self",
        OTHER: "Goal / Other",
        JUDGE_MEAN: "Goal / Judge / Average",
        JUDGE_MAJORITY: "Goal / Judge / Majority",
        "goal_psi": "Goal / PSI",
        MCQ_ACCURACY: "Info / Acc.",
        "mcq_psi": "Info / PSI",
    },
    "2": {SCRIPT_ACCURACY: "Script Acc.", BLIND_MCQ_ACCURACY: "Blind Acc."},
    "7": {
        SELF: "Self / mean",
        OTHER: "Other / mean",
        JUDGE_MEAN: "Judge_mean / Average",
        JUDGE_MAJORITY: "Judge_mean / Majority",
        MCQ_ACCURACY: "Info / mean",
    },
}
# A judge of the paper's panel (its paper model) -> its column's name in Tables 1 and 7.
JUDGE_COLUMNS = {
    "1": {"GPT-4o": "Goal / Judge / GPT-4o", "Qwen2.5-72b": "Goal / Judge / Qwen2.5"}
    | {"Llama-3-70b": "Goal / Judge / Llama-3"},
    "7": {"GPT-4o": "Judge_mean / GPT", "Qwen2.5-72b": "Judge_mean / Qwen"}
    | {"Llama-3-70b": "Judge_mean / Llama"},
}
# The panel's columns (goal PSI is on the majority): the paper's only for the paper's panel of
# three judges (Section 4.1).
PANEL_METRICS = (JUDGE_MEAN, JUDGE_MAJORITY, "goal_psi")
PAPER_PANEL = frozenset(JUDGE_COLUMNS["1"])
# A paper unit -> the factor from the report's 0-1 scale.
SCALE = {"percent": 100.0, "percentage points": 100.0, "fraction": 1.0}
CSV_NAME = "paper_reference"
TITLE = "Beside the paper"


@dataclass(frozen=True)
class PaperMatch:
    """One cell of a run's row beside the paper's: values in the paper's unit, the difference
    (run - paper) in percentage points, and the run's 95% interval [low, high] over n units."""

    table: str
    row: str  # the report's row (model or family)
    column: str  # the paper's column, e.g. "Goal / Judge / Majority"
    metric: str  # the report's column, e.g. "judge_majority"
    model: str  # the paper's model name
    unit: str
    value: float
    paper: float
    difference: float
    in_interval: bool
    low: float
    high: float
    n: int

    def within(self, margin: float) -> bool:
        """The gate's rule: the paper's value in the interval, or within `margin` points."""
        return self.in_interval or abs(self.difference) <= margin


@dataclass
class References:
    """The matched cells, and each row without references with the reason."""

    matches: list[PaperMatch] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # cells of a matched row left out, and why


def _match(table: str, row: str, metric: str, found: PaperCell, value: Estimate) -> PaperMatch:
    scale = SCALE[found.unit]
    reference = found.value / scale  # on the report's 0-1 scale
    inside = not (math.isnan(value.low) or math.isnan(value.high))
    return PaperMatch(
        table=table,
        row=row,
        column=found.column,
        metric=metric,
        model=found.row,
        unit=found.unit,
        value=value.mean * scale,
        paper=found.value,
        difference=(value.mean - reference) * 100,
        in_interval=inside and value.low - 1e-9 <= reference <= value.high + 1e-9,
        low=value.low * scale,
        high=value.high * scale,
        n=value.n,
    )


def _row_judges(cells: Mapping[Any, object], units: Units) -> dict[str, str | None]:
    """The row's judges (a column `judge: <model>` with a scored value) -> their paper model."""
    judges: dict[str, str | None] = {}
    for judge in units.judge_columns:
        value = cells.get(judge)
        if isinstance(value, Estimate) and value.n:
            judges[judge] = paper_model(judge.removeprefix("judge: "))
    return judges


def _columns(table: str, judges: Mapping[str, str | None]) -> dict[str, str]:
    """The row's columns with a paper column: the fixed ones, the judges of the paper's panel,
    and the panel's columns only when the row's judges are that panel."""
    columns = dict(COLUMNS[table])
    if table != "2" and set(judges.values()) != PAPER_PANEL:
        columns = {m: c for m, c in columns.items() if m not in PANEL_METRICS}
    for judge, model in judges.items():
        if model in JUDGE_COLUMNS.get(table, {}):
            columns[judge] = JUDGE_COLUMNS[table][model]
    return columns


def _panel_note(row: str, judges: Mapping[str, str | None]) -> str | None:
    """Why the row's panel columns have no reference (None: the paper's panel)."""
    if not judges or set(judges.values()) == PAPER_PANEL:
        return None
    panel = ", ".join(j.removeprefix("judge: ") for j in judges)
    return (
        f"{row}: judge mean, majority and goal PSI left out: its panel ({panel}) is not "
        f"the paper's ({', '.join(sorted(PAPER_PANEL))})"
    )


def _row_matches(
    table: str, row: str, model: str, cells: Mapping[Any, object], columns: Mapping[str, str]
) -> list[PaperMatch]:
    found = []
    for metric, column in columns.items():
        value, published = cells.get(metric), cell(table, model, column)
        if isinstance(value, Estimate) and value.n and published is not None:
            found.append(_match(table, row, metric, published, value))
    return found


def _why_not(runs: pd.DataFrame, tables_asked: Sequence[str]) -> tuple[str | None, str | None]:
    """(the table the runs are comparable to, None) or (None, why they are not to any)."""
    first = None
    for table in tables_asked:
        reasons = [official.reason(run, table) for run in records(runs)]
        why = next((r for r in reasons if r is not None), None)
        if why is None:
            return table, None
        first = first or why
    return None, first


def _model(runs: pd.DataFrame) -> tuple[str | None, str]:
    """The row's paper model (None: no match) and why a row could have none."""
    if (runs["kind"] == "pairwise").any():
        return None, "a sender × receiver pair (the paper's tables are of one model)"
    served = str(runs["model"].iloc[0])
    return paper_model(served), f"no paper model matches {served} (map it in a file named by {ENV})"


def _table_one(units: Units, table_one: pd.DataFrame, found: References) -> None:
    """Table 1's rows (Table 7's for a -T per_template=1 row) beside the paper."""
    for row, cells in table_one.to_dict("index").items():
        runs = units.runs[units.runs["group"] == row]
        model, unmatched = _model(runs)
        table, why = _why_not(runs, ["1", "7"])
        if model is None:
            found.missing[str(row)] = unmatched
        elif table is None:
            found.missing[str(row)] = str(why)
        else:
            judges = _row_judges(cells, units)
            columns = _columns(table, judges)
            found.matches += _row_matches(table, str(row), model, cells, columns)
            note = _panel_note(str(row), judges)
            found.notes += [] if note is None else [note]


def _table_two(units: Units, found: References) -> None:
    """Table 2's rows: the script-prediction runs, and the blind runs of the same family for
    the blind column (each side comparable on its own)."""
    for values in records(tables.table_two(units)):
        family = str(values["model"])
        of_family = units.runs[units.runs["family"] == family]
        script = of_family[of_family["kind"] == "script"]
        model, unmatched = _model(script)
        table, why = _why_not(script, ["2"])
        if model is None or table is None:
            found.missing.setdefault(family, unmatched if model is None else str(why))
            continue
        columns = dict(COLUMNS["2"])
        blind = of_family[of_family["kind"] == "blind"]
        if not blind.empty:
            _, blind_why = _why_not(blind, ["2"])
            if blind_why is not None:
                del columns[BLIND_MCQ_ACCURACY]
                found.notes.append(f"{family}: blind accuracy left out: {blind_why}")
        found.matches += _row_matches("2", family, model, values, columns)


def references(units: Units, table_one: pd.DataFrame) -> References:
    """The paper's cells beside Table 1 (`table_one`, or Table 7 for a -T per_template=1 row) and
    Table 2."""
    found = References()
    _table_one(units, table_one, found)
    _table_two(units, found)
    return found


# --- Table 6: the judges against people, from `agentsense annotate`'s labels ----------------------

TABLE_SIX = "Table 6 (judges against human labels)"


def _judge_correct(agreement: HumanAgreement, judge: str) -> tuple[list[float], list[object]]:
    """Per sheet row with a human truth: 1 if the judge read it as the truth (unreadable: 0),
    and the row's scene (the cluster: a scene's questions share one conversation)."""
    readings = agreement.readings[agreement.readings["judge"] == judge]
    truth = readings["row"].map(agreement.truth["truth"])
    scenes = agreement.rows.set_index("row")
    keep = truth.notna()
    correct = (readings["reading"][keep] == truth[keep]).astype(float)
    rows = readings["row"][keep]
    clusters: list[object] = list(
        zip(rows.map(scenes["run"]), rows.map(scenes["scene"]), strict=True)
    )
    return list(correct), clusters


def table_six(runs: Runs, agreement: HumanAgreement) -> References:
    """Each judge of the sheet that maps to a judge of Table 6 beside its accuracy there; the
    sheet's runs must be on the official data (a sample of their scenes is what the paper
    labelled, so every scene is not needed)."""
    from agentsense.analysis.annotation import PANEL

    found = References()
    logs = set(agreement.rows["run"].astype(str))
    sampled = runs.evals[runs.evals["log"].astype(str).isin(logs)]
    why = next(
        (r for r in map(official.data_reason, records(sampled)) if r is not None),
        None,
    )
    if why is not None:
        found.missing[TABLE_SIX] = why
        return found
    for judge in agreement.judges["judge"].astype(str):
        model = paper_model(judge)
        published = None if model is None else cell("6", model, "Acc.")
        if published is None:
            if judge != PANEL:
                found.notes.append(f"{TABLE_SIX}: {judge} is not a judge of Table 6")
            continue
        estimate = bounded_mean_ci(*_judge_correct(agreement, judge))
        if estimate.n:
            found.matches.append(_match("6", judge, "accuracy", published, estimate))
    return found


def paper_matches(units: Units) -> list[PaperMatch]:
    """Every cell of the units' rows that the paper publishes, beside the paper's value."""
    return references(units, tables.table_one(units)).matches


def matches_frame(matches: Sequence[PaperMatch]) -> pd.DataFrame:
    columns = list(PaperMatch.__dataclass_fields__)
    return pd.DataFrame([asdict(m) for m in matches], columns=columns)


def _shown(match: PaperMatch) -> list[str]:
    digits = 3 if match.unit == "fraction" else 2
    interval = f"[{number(match.low, digits)}, {number(match.high, digits)}]"
    return [
        f"Table {match.table}",
        match.row,
        match.column,
        f"{number(match.value, digits)} {interval}",
        number(match.paper, digits),
        f"{match.difference:+.2f}",
        "yes" if match.in_interval else "no",
    ]


HEAD = ["Table", "Row", "Paper column", "Run [95% CI]", "Paper", "Difference (points)"]
HEAD += ["Paper in CI"]


def matches_markdown(found: References) -> str:
    lines = [f"- {row}: no reference: {why}." for row, why in found.missing.items()]
    lines += [f"- {note}." for note in found.notes]
    table = markdown(HEAD, [_shown(m) for m in found.matches]) if found.matches else ""
    return "\n\n".join(part for part in (table, "\n".join(lines)) if part)


def paper_section(inputs: Inputs) -> Content:
    found = references(inputs.units, inputs.table_one)
    if inputs.options.annotations is not None:
        from agentsense.report.annotate import human_agreement

        six = table_six(inputs.runs, human_agreement(inputs.runs, inputs.options.annotations))
        found.matches += six.matches
        found.missing.update(six.missing)
        found.notes += six.notes
    if not found.matches and not found.missing:
        return Absent("no row of Table 1 or Table 2")
    if found.matches:  # else the section's lines say why there is none
        inputs.report.csv(matches_frame(found.matches), CSV_NAME)
    return (
        f"## {TITLE}\n\nThe published value (Mou et al., 2024) of each cell of Tables 1, 2 "
        "and 7 that a row has, in the paper's unit (Tables 1 and 7 in %, PSI in points, Table 2 "
        "as a fraction), the difference run - paper in percentage points, and whether the "
        "paper's value lies in the run's 95% interval. A row has references when its model maps "
        "to a paper model and its runs are on the official data, every scene, finished (Table "
        "7: `-T per_template=1`); the judge mean, majority and goal PSI also need the paper's "
        "panel (GPT-4o, Qwen2.5-72b, Llama-3-70b). With `--labels SHEET.csv`, Table 6: each "
        "judge's accuracy against the people, on official data, its interval clustered by "
        "scene; docs/reference.md.\n\n" + matches_markdown(found)
    )


# --- the gate: agentsense compare --against paper ----------------------------------------------


def gate_text(found: References, margin: float) -> tuple[str, bool]:
    """The gate's verdict (text, passed); refuses (ReportError) what cannot be compared."""
    if found.missing:
        raise ReportError(
            "These rows cannot be compared with the paper:\n"
            + "\n".join(f"  - {row}: {why}" for row, why in found.missing.items())
        )
    if not found.matches:
        raise ReportError("No cell of these logs has a published value in the paper.")
    outside = [m for m in found.matches if not m.within(margin)]
    text = markdown(HEAD, [_shown(m) for m in found.matches])
    text += "".join(f"\n\nNot compared: {note}." for note in found.notes)
    if outside:
        listed = "; ".join(
            f"Table {m.table} {m.row} {m.column}: {m.difference:+.2f} points" for m in outside
        )
        return f"{text}\n\nOUTSIDE: {len(outside)} of {len(found.matches)} cells ({listed}).", False
    return (
        f"{text}\n\nAll {len(found.matches)} cells reproduce the paper (its value in the run's "
        f"95% interval, or within {margin:g} points).",
        True,
    )


def gate(
    logs: Sequence[str], margin: float, scorer: str | None = None, prefer_newest: bool = False
) -> tuple[str, bool]:
    """`agentsense compare --against paper LOGS`: the verdict on the logs' runs."""
    from agentsense.analysis.log_reader import load_runs
    from agentsense.report.frames import build_units

    if not logs:
        raise ReportError("give the logs (or folders) of the runs to compare with the paper.")
    if margin < 0 or math.isnan(margin):
        raise ReportError(f"--margin must be 0 or more points; got {margin:g}.")
    units = build_units(load_runs(logs, scorer, prefer_newest))
    return gate_text(references(units, tables.table_one(units)), margin)
