"""`agentsense annotate`: the sheet, a hand-filled sheet's statistics computed by hand, and the
refusal of bad sheets (paper App. D.1, Table 6)."""

from __future__ import annotations

import csv
import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.log import read_eval_log

from agentsense.analysis.agreement import fleiss
from agentsense.analysis.annotation import (
    human_truth,
    judge_scores,
    sample_units,
)
from agentsense.cli import main
from agentsense.report.assemble import load_inputs, report_data
from agentsense.report.document import ReportOptions

HUMAN_LABELS = "Judges against human labels"
ANNOTATORS = ["annotator_1", "annotator_2", "annotator_3"]


# --- helpers: a sheet, filled by a rule, read back with the csv module ---------------------------


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def write_rows(
    path: Path, rows: list[dict[str, str]], columns: list[str] | None = None, delimiter: str = ","
) -> None:
    columns = columns or list(rows[0])
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, delimiter=delimiter)
        writer.writeheader()
        writer.writerows(rows)


def hand_label(row: int) -> dict[str, str]:
    """Three annotators by rule; the third leaves every fifth row blank (ties happen there)."""
    return {
        "annotator_1": "yes" if row % 2 else "no",
        "annotator_2": "Y" if row % 3 else "n",
        "annotator_3": "" if row % 5 == 0 else ("Yes" if row % 4 < 2 else "No"),
    }


def as_vote(text: str) -> int | None:
    return {"yes": 1, "y": 1, "no": 0, "n": 0}.get(text.strip().lower())


def fill(sheet: Path, out: Path, label: Callable[[int], dict[str, str]] = hand_label) -> Path:
    rows = read_rows(sheet)
    for row in rows:
        row.update(label(int(row["row"])))
    write_rows(out, rows)
    shutil.copy(
        sheet.with_name(sheet.stem + ".sample.json"), out.with_name(out.stem + ".sample.json")
    )
    return out


def logged_judges(log: Path) -> dict[tuple[str, str, int, int], dict[str, int | None]]:
    """(sample, character, goal, question) -> judge model -> reading, straight from the log."""
    votes: dict[tuple[str, str, int, int], dict[str, int | None]] = {}
    for sample in read_eval_log(str(log)).samples or []:
        for score in (sample.scores or {}).values():
            for answer in (score.metadata or {}).get("goal_answers", []):
                if str(answer["asker"]).startswith("judge_"):
                    key = (str(sample.id), answer["character"], answer["goal"], answer["item"])
                    votes.setdefault(key, {})[answer["model"]] = answer["reading"]
    return votes


def cohen(pairs: list[tuple[int, int]]) -> float:
    """Cohen's κ by its formula: (observed - chance) / (1 - chance)."""
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    a_yes = sum(a for a, _ in pairs) / n
    b_yes = sum(b for _, b in pairs) / n
    chance = a_yes * b_yes + (1 - a_yes) * (1 - b_yes)
    return (observed - chance) / (1 - chance)


def fleiss_by_hand(rows: list[list[int]]) -> float:
    """Fleiss' κ for two categories, every row rated by the same number of raters."""
    raters = len(rows[0])
    agreement = [
        (sum(r) ** 2 + (raters - sum(r)) ** 2 - raters) / (raters * (raters - 1)) for r in rows
    ]
    observed = sum(agreement) / len(rows)
    yes = sum(map(sum, rows)) / (raters * len(rows))
    chance = yes**2 + (1 - yes) ** 2
    return (observed - chance) / (1 - chance)


@pytest.fixture(scope="module")
def sheet(kind_logs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sheet") / "sheet.csv"
    assert main(["annotate", str(kind_logs["full"]), "--out", str(path)]) == 0
    return path


# --- the sheet -----------------------------------------------------------------------------------


def test_the_sheet_has_one_row_per_judge_question_and_no_answer(
    sheet: Path, kind_logs: dict[str, Path]
) -> None:
    rows = read_rows(sheet)
    judged = logged_judges(kind_logs["full"])
    keys = [
        (r["sample_id"], r["character"], int(r["goal_number"]), int(r["question_number"]))
        for r in rows
    ]
    assert sorted(keys) == sorted(judged)  # every judge question of the 4 scenes, once
    assert [r["row"] for r in rows] == [str(i) for i in range(1, len(rows) + 1)]
    assert all(r[a] == "" for r in rows for a in ANNOTATORS)
    log = read_eval_log(str(kind_logs["full"]))
    answers = {
        a["answer"]
        for s in log.samples or []
        for score in (s.scores or {}).values()
        for a in (score.metadata or {}).get("goal_answers", [])
    }
    text = sheet.read_text(encoding="utf-8-sig")
    assert not [answer for answer in answers if len(answer) > 12 and answer in text]
    sample = next(s for s in log.samples or [] if str(s.id) == rows[0]["sample_id"])
    turns = sample.store["Conversation:turns"]
    assert rows[0]["conversation"].splitlines()[1].startswith(f"{turns[1]['speaker']}: ")
    assert len(rows[0]["conversation"].splitlines()) == len(turns)


def test_the_sample_is_seeded_and_recorded(kind_logs: dict[str, Path], tmp_path: Path) -> None:
    runs = []
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        out = tmp_path / f"{name}.csv"
        args = ["annotate", str(kind_logs["full"]), "--out", str(out), "--scenes", "2"]
        assert main([*args, "--seed", str(seed)]) == 0
        record = json.loads((tmp_path / f"{name}.sample.json").read_text())
        assert record["seed"] == seed and record["scenes_available"] == 4
        assert record["rows"] == len(read_rows(out))
        runs.append([s["sample_id"] for s in record["scenes"]])
        assert {r["sample_id"] for r in read_rows(out)} == set(runs[-1])
    assert len(runs[0]) == 2 and runs[0] == runs[1]
    units = [("log", str(i), 1) for i in range(50)]
    assert sample_units(units, 10, 3) == sample_units(units, 10, 3)
    assert sample_units(units, 10, 3) != sample_units(units, 10, 4)
    assert sample_units(units, 80, 3) == units  # fewer scenes than asked: all of them


# --- a filled sheet: every number by hand --------------------------------------------------------


def test_a_hand_filled_sheet_gives_the_hand_computed_table(
    sheet: Path, kind_logs: dict[str, Path], tmp_path: Path
) -> None:
    filled = fill(sheet, tmp_path / "filled.csv")
    out = tmp_path / "out"
    assert (
        main(["annotate", str(kind_logs["full"]), "--labels", str(filled), "--out", str(out)]) == 0
    )
    judged = logged_judges(kind_logs["full"])
    truth: dict[int, int] = {}
    tied: list[int] = []
    complete: list[list[int]] = []
    rows = read_rows(filled)
    for row in rows:
        votes = [v for a in ANNOTATORS if (v := as_vote(row[a])) is not None]
        if len(votes) == 3:
            complete.append(votes)
        if sum(votes) * 2 == len(votes):
            tied.append(int(row["row"]))
        else:
            truth[int(row["row"])] = int(sum(votes) * 2 > len(votes))
    assert tied  # the rule makes some ties
    table = pd.read_csv(out / "judges.csv").set_index("judge")
    models = sorted({m for votes in judged.values() for m in votes})
    assert sorted(set(table.index) - {"panel majority"}) == models
    for model in models:
        pairs = []
        for row in rows:
            if int(row["row"]) in truth:
                key = (row["sample_id"], row["character"], int(row["goal_number"]))
                vote = judged[(*key, int(row["question_number"]))][model]
                pairs.append((truth[int(row["row"])], vote))
        got = table.loc[model]
        assert got["rows"] == len(pairs)
        assert got["accuracy"] == pytest.approx(sum(t == v for t, v in pairs) / len(pairs))
        no = [v for t, v in pairs if t == 0]
        yes = [v for t, v in pairs if t == 1]
        assert got["false_yes"] == pytest.approx(sum(v == 1 for v in no) / len(no))
        assert got["false_no"] == pytest.approx(sum(v == 0 for v in yes) / len(yes))
        assert got["cohen_kappa"] == pytest.approx(
            cohen([(t, v) for t, v in pairs if v is not None])
        )
    annotators = pd.read_csv(out / "annotators.csv").iloc[0]
    assert annotators["fleiss_kappa"] == pytest.approx(fleiss_by_hand(complete))
    assert annotators["rows_all_labelled"] == len(complete)
    assert annotators["tied_rows"] == len(tied)
    assert annotators["all_agree"] == pytest.approx(
        sum(len(set(r)) == 1 for r in complete) / len(complete)
    )
    report = (out / "annotation.md").read_text()
    assert f"{len(tied)} tied row(s)" in report and f"rows {', '.join(map(str, tied))}" in report
    by_category = pd.read_csv(out / "judges_by_category.csv")
    for model in models:
        part = by_category[by_category["judge"] == model]
        assert part["rows"].sum() == table.loc[model, "rows"]  # every row in one category


def test_the_statistics_of_six_rows_worked_by_hand() -> None:
    truth = pd.Series([1.0, 1.0, 0.0, 0.0, 1.0, 0.0])
    reading = pd.Series([1.0, 0.0, 0.0, 1.0, 1.0, math.nan])  # the last answer unreadable
    scores = judge_scores(truth, reading)
    # right on rows 1, 3, 5 of 6; the unreadable one is wrong
    assert scores["accuracy"] == pytest.approx(3 / 6)
    assert scores["false_yes"] == pytest.approx(1 / 3)  # truth no: rows 3, 4, 6; yes on 4
    assert scores["false_no"] == pytest.approx(1 / 3)  # truth yes: rows 1, 2, 5; no on 2
    # readable rows 1-5: observed 3/5, both say yes 3/5 of the time: chance 0.52
    assert scores["cohen_kappa"] == pytest.approx((0.6 - 0.52) / 0.48)
    assert scores["unreadable"] == pytest.approx(1 / 6)
    labels = pd.DataFrame([[1, 1, 1], [1, 1, 0], [0, 0, 0], [1, 0, 0]], dtype=float)
    # row agreement 1, 1/3, 1, 1/3 -> 2/3; yes share 1/2 -> chance 1/2; κ = (2/3 - 1/2) / (1/2)
    assert fleiss(labels) == pytest.approx(1 / 3)
    two = pd.DataFrame([[1.0, 0.0], [1.0, 1.0], [0.0, math.nan]])
    truth_two = human_truth(two)
    assert list(truth_two["tied"]) == [True, False, False]
    assert truth_two["truth"].iloc[1] == 1.0 and truth_two["truth"].iloc[2] == 0.0


def test_row_order_names_delimiter_and_empty_annotators_change_nothing(
    sheet: Path, kind_logs: dict[str, Path], tmp_path: Path
) -> None:
    log = str(kind_logs["full"])
    base = fill(sheet, tmp_path / "base.csv")
    assert main(["annotate", log, "--labels", str(base), "--out", str(tmp_path / "base")]) == 0
    rows = read_rows(base)
    renamed = [
        {("annotator_alice" if k == "annotator_1" else k): v for k, v in r.items()}
        | {"annotator_late": "", "notes": "checked"}
        for r in reversed(rows)
    ]
    other = tmp_path / "other.csv"
    write_rows(other, renamed, delimiter=";")  # as a spreadsheet in a ";" locale saves it
    shutil.copy(sheet.with_name("sheet.sample.json"), tmp_path / "other.sample.json")
    assert main(["annotate", log, "--labels", str(other), "--out", str(tmp_path / "other")]) == 0
    for name in ("judges.csv", "judges_by_category.csv"):
        pd.testing.assert_frame_equal(
            pd.read_csv(tmp_path / "base" / name), pd.read_csv(tmp_path / "other" / name)
        )
    # One changed label on a row with a clear majority flips exactly that row's truth.
    truth = pd.read_csv(tmp_path / "base" / "truth.csv").set_index("row")
    clear = int(truth.index[(truth["yes_votes"] == 3) | (truth["no_votes"] == 3)][0])
    flipped = [dict(r) for r in rows]
    target = next(r for r in flipped if int(r["row"]) == clear)
    new = "no" if truth.loc[clear, "truth"] == 1 else "yes"
    target.update({"annotator_1": new, "annotator_2": new})
    one = tmp_path / "one.csv"
    write_rows(one, flipped)
    shutil.copy(sheet.with_name("sheet.sample.json"), tmp_path / "one.sample.json")
    assert main(["annotate", log, "--labels", str(one), "--out", str(tmp_path / "one")]) == 0
    changed = pd.read_csv(tmp_path / "one" / "truth.csv").set_index("row")
    differs = truth.index[truth["truth"].fillna(-1) != changed["truth"].fillna(-1)].tolist()
    assert differs == [clear]


# --- bad sheets are refused, naming the row ------------------------------------------------------


def _bad(rows: list[dict[str, str]]) -> None:
    rows[4]["question"] = rows[4]["question"].replace("achieved", "won")
    rows[6]["annotator_2"] = "maybe"
    rows[8].update(dict.fromkeys(ANNOTATORS, ""))
    del rows[10]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            _bad,
            [
                "row 5: `question` was edited",
                "row 7, annotator_2: label 'maybe'",
                "row 9: no annotator labelled it",
                "rows 11: missing",
            ],
        ),
        (lambda rows: rows.append(dict(rows[0])), ["row '1' (line", "appears twice"]),
        (
            lambda rows: rows[2].update(conversation="Nobody: hi"),
            ["row 3: `conversation` was edited"],
        ),
        (lambda rows: rows[1].update(sample_id="999"), ["row 2: `sample_id` was edited"]),
        (lambda rows: [r.update(score="1") for r in rows], ["column 'score': not a column"]),
        (lambda rows: [r.pop("question") for r in rows], ["column 'question': missing"]),
        (lambda rows: [r.pop(a) for r in rows for a in ANNOTATORS], ["no annotator column"]),
    ],
)
def test_bad_sheets_are_refused_naming_the_row(
    sheet: Path,
    kind_logs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[list[dict[str, str]]], object],
    expected: list[str],
) -> None:
    filled = fill(sheet, tmp_path / "bad.csv")
    rows = read_rows(filled)
    edit(rows)
    columns = list(dict.fromkeys(k for r in rows for k in r))
    write_rows(filled, rows, columns)
    out = tmp_path / "out"
    assert (
        main(["annotate", str(kind_logs["full"]), "--labels", str(filled), "--out", str(out)]) == 2
    )
    error = capsys.readouterr().err
    for text in expected:
        assert text in error, error
    assert "Traceback" not in error and not out.exists()


def test_a_sheet_without_its_sample_record_is_refused(
    sheet: Path, kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filled = fill(sheet, tmp_path / "alone.csv")
    (tmp_path / "alone.sample.json").unlink()
    args = [
        "annotate",
        str(kind_logs["full"]),
        "--labels",
        str(filled),
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(args) == 2
    assert "alone.sample.json: no such file" in capsys.readouterr().err
    assert main([*args, "--sample", str(sheet.with_name("sheet.sample.json"))]) == 0


def test_logs_without_judges_are_refused(
    kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["annotate", str(kind_logs["info"]), "--out", str(tmp_path / "s.csv")]) == 2
    assert "No judged scene" in capsys.readouterr().err


# --- the CLI end to end and the report section ---------------------------------------------------


@pytest.mark.slow
def test_the_round_trip_through_the_cli_and_the_report(
    kind_logs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = str(kind_logs["full"])
    sheet = tmp_path / "sheet.csv"

    def run(*args: str) -> str:
        assert main(list(args)) == 0
        return capsys.readouterr().out

    made = run("annotate", log, "--out", str(sheet), "--scenes", "3", "--seed", "7")
    assert "of 3 scenes (seed 7; 4 judged scenes available)" in made
    filled = fill(sheet, tmp_path / "filled.csv")
    labelled = run("annotate", log, "--labels", str(filled), "--out", str(tmp_path / "out"))
    assert "| judge | rows | human yes | accuracy |" in labelled
    run("report", log, "--labels", str(filled), "--out", str(tmp_path / "rep"), "--no-figures")
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "## Judges against human labels (App. D.1, Table 6)" in text
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "rep" / "human_judges.csv"),
        pd.read_csv(tmp_path / "out" / "judges.csv"),
    )
    # Without a sheet the section is left out (`agentsense report` prints each such line).
    options = ReportOptions(tmp_path / "rep2", figures=False)
    without = report_data(load_inputs([log], options), options, {HUMAN_LABELS})
    assert f"{HUMAN_LABELS}: no annotation sheet" in "\n".join(without.left_out())


def test_report_takes_a_labels_file_and_a_sheet_together(
    sheet: Path, kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = str(kind_logs["full"])
    filled = fill(sheet, tmp_path / "filled.csv")
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"scenario_types": {"101": "large society"}}))
    out = tmp_path / "rep"
    args = ["report", log, "--out", str(out), "--no-figures"]
    assert main([*args, "--labels", str(labels), "--labels", str(filled)]) == 0
    text = (out / "report.md").read_text()
    assert "## Judges against human labels" in text
    assert main([*args, "--labels", str(filled), "--labels", str(filled)]) == 2
    assert "at most one labels file (JSON) and one sheet (CSV)" in capsys.readouterr().err


def test_people_who_answer_as_a_judge_make_it_perfect(
    sheet: Path, kind_logs: dict[str, Path], tmp_path: Path
) -> None:
    """Annotators copying one judge's logged answers: that judge scores accuracy 1 and κ 1."""
    judged = logged_judges(kind_logs["full"])
    model = sorted({m for votes in judged.values() for m in votes})[0]
    rows = read_rows(sheet)
    for row in rows:
        key = (row["sample_id"], row["character"], int(row["goal_number"]))
        vote = judged[(*key, int(row["question_number"]))][model]
        row.update(dict.fromkeys(ANNOTATORS, "yes" if vote else "no"))
    copied = tmp_path / "copied.csv"
    write_rows(copied, rows)
    shutil.copy(sheet.with_name("sheet.sample.json"), tmp_path / "copied.sample.json")
    out = tmp_path / "out"
    assert (
        main(["annotate", str(kind_logs["full"]), "--labels", str(copied), "--out", str(out)]) == 0
    )
    table = pd.read_csv(out / "judges.csv").set_index("judge")
    assert table.loc[model, ["accuracy", "cohen_kappa"]].tolist() == [1.0, 1.0]
    assert table.loc[model, ["false_yes", "false_no", "unreadable"]].tolist() == [0.0, 0.0, 0.0]
    annotators = pd.read_csv(out / "annotators.csv").iloc[0]
    assert annotators["all_agree"] == 1.0 and annotators["fleiss_kappa"] == pytest.approx(1.0)
