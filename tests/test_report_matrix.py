"""`agentsense report` on every set of logs a user can have: each non-empty subset of the six task
kinds, each kind re-judged, a split run, overlapping and conflicting pieces, no AgentSense log.

Most tests check what the report renders (`report_data`: its sections, tables, Markdown, run
lines and notes) without writing it; the logs that are not model runs, the figures and the
console go through `agentsense report` end to end."""

from __future__ import annotations

import copy
import functools
import itertools
import json
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from agentsense.analysis.log_merge import LogData, merge_logs, signature
from agentsense.cli import main
from agentsense.engine.errors import ReportError
from agentsense.report import assemble, tables
from agentsense.report.assemble import SECTIONS, load_inputs, report_data, write_report
from agentsense.report.document import Report, ReportOptions
from agentsense.report.sections import judges as judge_sections
from agentsense.report.sections import variance_components
from agentsense_logs import AGENT, JUDGES, KINDS, OTHER_KINDS, REJUDGE, rejudge, run_kind

SUBSETS = [
    frozenset(combo)
    for size in range(1, len(KINDS) + 1)
    for combo in itertools.combinations(KINDS, size)
]
CONVERSATION = {"full", "goal", "info", "pairwise"}
JUDGED = {"full", "goal", "pairwise"}
WITH_MCQ = {"full", "info", "pairwise"}


def expected_sections(kinds: frozenset[str]) -> set[str]:
    """The sections whose inputs these kinds provide (all runs share model and scenes)."""
    scored = bool(kinds & set(KINDS) - {"labelling"})
    present = {
        "Runs": bool(kinds & set(KINDS)),
        "Table 1": scored,
        # issue #34: a Table 1 row of one model with goal or MCQ scores (not blind alone)
        "Evaluation report": bool(kinds & {"full", "goal", "info"}),
        "Leakage baseline": "blind" in kinds and bool(kinds & {"full", "info"}),
        "Goal categories": bool(kinds & JUDGED),
        "Over-confidence": bool(kinds & JUDGED),
        "Scenario type": bool(kinds & CONVERSATION),
        "Participants": bool(kinds & CONVERSATION),
        "Rounds (max messages)": bool(kinds & CONVERSATION),
        "Sender × receiver": "pairwise" in kinds,
        "Attacker and defender": bool(kinds & WITH_MCQ),
        "Profile sensitivity": bool(kinds & JUDGED),
        "Labelling": "labelling" in kinds,
        # issue #13
        "Judge reliability": bool(kinds & JUDGED),
        "Trivial baselines": bool(kinds & CONVERSATION),
        "Uncertainty": bool(kinds & CONVERSATION),
        # issue #25
        "Variance components": bool(kinds & CONVERSATION),
        "Cost and tokens": bool(kinds & set(KINDS)),  # the calls of model runs
        "Statistics": scored,
        # issue #34: the paper beside each Table 1 row (here: no reference, demo data)
        "Beside the paper": scored,
        # issue #23: no kind log is a script-prediction run or has several epochs
        # (tests/test_report_repeated.py reports on those)
        "Table 2": False,
        "Repeated runs": False,
        # issue #20: the logs that are not model runs
        "Judge check": "judge_check" in kinds,
        "Construction": "construct" in kinds,
        "GCA": "gca" in kinds,
        # issue #35: Sotopia, and the profile across two or more benchmarks
        "Sotopia": "sotopia" in kinds,
        "Social-intelligence profile": sum(
            (bool(kinds & {"full", "goal", "info"}), "sotopia" in kinds, "gca" in kinds)
        )
        >= 2,
    }
    return {title for title, shown in present.items() if shown}


def report_on(paths: list[Path], out: Path, figures: bool = False, **options: object):  # type: ignore[no-untyped-def]
    return write_report([str(p) for p in paths], ReportOptions(out, figures=figures, **options))  # type: ignore[arg-type]


def rendered(paths: list[Path], titles: set[str] | None = None, **options: Any) -> Report:
    """What the report on these logs renders (only the sections titled in `titles`)."""
    chosen = ReportOptions(Path("not-written"), figures=False, **options)
    return report_data(load_inputs([str(p) for p in paths], chosen), chosen, titles)


def once(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` computed once per distinct input (its pickled arguments), a deep copy of the
    result returned each time: for pure, seeded computations only."""
    results: dict[bytes, Any] = {}

    @functools.wraps(function)
    def cached(*args: Any) -> Any:
        key = pickle.dumps(args)
        if key not in results:
            results[key] = function(*args)
        return copy.deepcopy(results[key])

    return cached


# The subsets share the same scenes, so many reports here bootstrap the same variance components,
# PSI and judge agreement: each distinct input is computed once per worker (these functions are
# deterministic, seeded); every report still runs every section.
ONCE = {
    (variance_components, "with_intervals"): once(variance_components.with_intervals),
    (tables, "psi_estimate"): once(tables.psi_estimate),
    (judge_sections, "judge_tables"): once(judge_sections.judge_tables),
}


@pytest.fixture(autouse=True)
def shared_computations(monkeypatch: pytest.MonkeyPatch) -> None:
    for (module, name), cached in ONCE.items():
        monkeypatch.setattr(module, name, cached)


def test_the_matrix_covers_every_subset() -> None:
    assert len(SUBSETS) == 63 and len(set(SUBSETS)) == 63


# Subsets of 1, 2 and all 6 kinds run in the fast suite; the 41 of 3 to 5 kinds are marked slow
# (CI runs them all).
PARAMS = [
    pytest.param(kinds, marks=[pytest.mark.slow] if 3 <= len(kinds) <= 5 else [])
    for kinds in SUBSETS
]


@pytest.mark.parametrize("kinds", PARAMS, ids=lambda kinds: "+".join(sorted(kinds)))
def test_report_on_every_subset_of_kinds(kinds: frozenset[str], kind_logs: dict[str, Path]) -> None:
    report = rendered([kind_logs[k] for k in sorted(kinds)])
    titles = {title for title, _ in SECTIONS}
    shown = set(report.sections) - {"Notes"}
    assert shown == expected_sections(kinds)
    assert set(report.absent) - {"Notes"} == titles - shown - {"Notes"}
    for title, why in report.absent.items():
        if title != "Notes":
            assert f"- {title}: {why}." in report.markdown  # one line saying why
    assert len(report.runs) == len(kinds)  # one run per log
    if "Table 1" in shown:
        table = report.frames["table1"]
        assert set(table["run"]) >= {AGENT} if kinds & {"full", "goal", "info", "blind"} else True


# The logs that are not model runs: each alone, all three, each beside one model run, beside all.
WITH_OTHERS = [
    *(frozenset({kind}) for kind in OTHER_KINDS),
    frozenset(OTHER_KINDS),
    *(frozenset({kind, run}) for kind in OTHER_KINDS for run in ("full", "labelling")),
    frozenset(KINDS + OTHER_KINDS),
]


def written_by(monkeypatch: pytest.MonkeyPatch) -> list[Report]:
    """The reports `agentsense report` (`main`) writes, as `write_report` returns them."""
    reports: list[Report] = []

    def spied(inputs: list[str], options: ReportOptions) -> Report:
        reports.append(write_report(inputs, options))
        return reports[-1]

    monkeypatch.setattr(assemble, "write_report", spied)
    return reports


@pytest.mark.parametrize("kinds", WITH_OTHERS, ids=lambda kinds: "+".join(sorted(kinds)))
def test_report_with_the_logs_that_are_not_model_runs(
    kinds: frozenset[str],
    kind_logs: dict[str, Path],
    other_logs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    logs = {**kind_logs, **other_logs}
    out = tmp_path / "out"
    reports = written_by(monkeypatch)
    assert main(["report", *(str(logs[k]) for k in sorted(kinds)), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    (report,) = reports
    shown = set(report.sections) - {"Notes"}
    assert shown == expected_sections(kinds)
    titles = {title for title, _ in SECTIONS}
    assert set(report.absent) - {"Notes"} == titles - shown - {"Notes"}
    assert len(report.runs) == len(kinds)  # one line per log, on the console too
    assert printed.count("Run: ") == len(kinds) and "Traceback" not in printed
    assert not any("Left out, not logs" in note for note in report.notes)
    files = {
        "Judge check": "judge_check.csv",
        "Construction": "construction.csv",
        "GCA": "gca.csv",
        "Sotopia": "sotopia.csv",
        "Social-intelligence profile": "profile.csv",
    }
    for title, csv in files.items():
        assert (title in shown) == (out / csv).exists(), title
        assert (title in shown) == (f"Left out: {title}:" not in printed)
    # With no model run, its sections are left out in one line, not one each.
    assert printed.count("no model run among the inputs") == (0 if kinds & set(KINDS) else 1)


def test_a_foreign_log_beside_a_judge_check_log_is_noted(
    other_logs: dict[str, Path], tmp_path: Path
) -> None:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample

    (foreign,) = eval(
        Task(dataset=[Sample(input="hi", target="hi")], name="someone_elses"),
        model="mockllm/model",
        log_dir=str(tmp_path / "foreign"),
        display="none",
    )
    report = report_on([other_logs["judge_check"], Path(foreign.location)], tmp_path / "out")
    assert report.sections == ["Judge check"]
    (note,) = report.notes
    assert note.startswith("Left out, not logs of an AgentSense task") and "someone" in note


@pytest.mark.parametrize(
    "kinds",
    [frozenset(KINDS), frozenset({"info"}), frozenset({"blind"}), frozenset({"pairwise"})],
    ids=lambda kinds: "+".join(sorted(kinds)),
)
def test_figures_follow_the_sections(
    kinds: frozenset[str], kind_logs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    report = report_on([kind_logs[k] for k in sorted(kinds)], out, figures=True)
    records = json.loads((out / "figures.json").read_text(encoding="utf-8"))
    files = {record["file"] for record in records}
    assert files == {f.name for f in (out / "figures").iterdir()}
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert all(f"figures/{name}" in markdown for name in files)
    expected = {"overall.png"} if "Table 1" in report.sections else set()
    if "Sender × receiver" in report.sections:
        expected |= {"pairs.png", "pairs_senders.png", "pairs_receivers.png"}
    if "Attacker and defender" in report.sections:
        expected.add("attack_defence.png")
    if "Scenario type" in report.sections:
        expected |= {"by_scenario_type.png", "by_participants.png", "by_rounds.png"}
    assert expected <= files


@pytest.mark.parametrize("kind", KINDS)
def test_report_on_a_rejudged_log(
    kind: str,
    rejudged_logs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "out"
    reports = written_by(monkeypatch)
    assert main(["report", str(rejudged_logs[kind]), "--out", str(out), "--no-figures"]) == 0
    printed = capsys.readouterr().out
    names = list(read_eval_log(str(rejudged_logs[kind]), header_only=False).samples[0].scores)  # type: ignore[index]
    assert len(names) == 2
    # The report says which scoring it used and how to choose another.
    assert f"scoring {names[1]} (newest), then {names[0]}" in printed and "--scorer" in printed
    # Read newest first with the older scoring filling in, it shows what the original log shows.
    (report,) = reports
    assert set(report.sections) - {"Notes"} == expected_sections(frozenset({kind}))
    # `--scorer` reaches the report (the refused name below), whose run line names the scoring
    # (`agentsense report` prints each run line, above).
    for name in names:
        (line,) = rendered([rejudged_logs[kind]], {"Runs"}, scorer=name).runs
        assert line.endswith(f"scoring {name}")
    assert main(["report", str(rejudged_logs[kind]), "--out", str(out), "--scorer", "nope"]) == 2
    error = capsys.readouterr().err
    assert "No log has a scoring named 'nope'" in error and names[0] in error


@pytest.mark.parametrize("kind", ["full", "goal", "pairwise"])
def test_the_chosen_scoring_names_its_judges(kind: str, rejudged_logs: dict[str, Path]) -> None:
    path = rejudged_logs[kind]
    original = next(iter(read_eval_log(str(path)).samples[0].scores))  # type: ignore[index]
    for scorer, judges in ((None, REJUDGE), (original, JUDGES)):
        table = rendered([path], {"Table 1"}, scorer=scorer).frames["table1"]
        shown = {
            c.removeprefix("judge: ").removesuffix("_mean")
            for c in table.columns
            if c.startswith("judge: ") and c.endswith("_mean")
        }
        assert shown == set(judges)


def test_an_original_and_its_rejudged_copy_are_one_run(
    kind_logs: dict[str, Path], rejudged_logs: dict[str, Path]
) -> None:
    report = rendered([kind_logs["full"], rejudged_logs["full"]], {"Runs"})
    assert len(report.runs) == 1 and "scoring goal_completion (newest)" in report.runs[0]
    assert any("older version" in note for note in report.notes)


# --- split runs ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def split_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    root = tmp_path_factory.mktemp("split")
    return {
        "whole": [run_kind("full", root / "whole", limit=4)],
        "halves": [
            run_kind("full", root / "halves", limit=(0, 2)),
            run_kind("full", root / "halves", limit=(2, 4)),
        ],
        "overlap": [
            run_kind("full", root / "overlap", limit=(0, 3)),
            run_kind("full", root / "overlap", limit=(2, 4)),
        ],
    }


def test_a_split_run_gives_the_unsplit_table_one(split_logs: dict[str, list[Path]]) -> None:
    tables = {}
    for name, paths in split_logs.items():
        report = rendered(paths, {"Table 1"})
        tables[name] = report.frames["table1"]
        assert len(report.runs) == 1 and "4 scenes" in report.runs[0]
        if len(paths) > 1:
            (note,) = [n for n in report.notes if "merged into one run" in n]
            assert note.startswith("2 logs of one run configuration") and "4 scenes" in note
    # to the last digit
    pd.testing.assert_frame_equal(tables["halves"], tables["whole"], check_exact=True)
    pd.testing.assert_frame_equal(tables["overlap"], tables["whole"], check_exact=True)
    (overlap,) = [n for n in report.notes if "merged" in n]
    assert "1 identical duplicate sample(s) kept once" in overlap


def test_a_rejudged_piece_is_not_merged_with_an_unjudged_one(
    split_logs: dict[str, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = split_logs["halves"]
    rejudged = rejudge(first, "full", tmp_path / "first-rejudged.eval")
    out = str(tmp_path / "o")
    assert main(["report", str(rejudged), str(second), "--out", out, "--no-figures"]) == 2
    assert "judges:" in capsys.readouterr().err
    # Read with the scoring both pieces have, they are one run again.
    report = rendered([rejudged, second], {"Runs"}, scorer="goal_and_mcq")
    assert len(report.runs) == 1 and "4 scenes" in report.runs[0]


def _conflicting_copy(path: Path, out: Path) -> Path:
    """Another log of the same run whose sample 101 got a different judge majority."""
    log = read_eval_log(str(path))
    log.eval.eval_id = "another-piece"
    for sample in log.samples or []:
        sample.uuid = f"{sample.uuid}-b"
        if sample.id == 101:
            value = sample.scores["goal_and_mcq"].value  # type: ignore[index]
            value["judge_majority"] = 0.0 if value["judge_majority"] else 1.0  # type: ignore[index]
    log.eval.created = "2099-01-01T00:00:00+00:00"
    write_eval_log(log, str(out))
    return out


def test_conflicting_duplicates_are_refused_unless_newest(
    kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(kind_logs["full"], folder / "a.eval")
    _conflicting_copy(kind_logs["full"], folder / "b.eval")
    assert main(["report", str(folder), "--out", str(tmp_path / "o"), "--no-figures"]) == 2
    error = capsys.readouterr().err
    assert "sample 101 epoch 1 in b.eval and a.eval" in error and "--prefer-newest" in error
    assert "sample 102" not in error and "Traceback" not in error
    assert (
        main(
            ["report", str(folder), "--out", str(tmp_path / "o"), "--no-figures", "--prefer-newest"]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "1 conflicting duplicate(s): the newest log's scores kept" in printed


# --- no input ------------------------------------------------------------------------------------


def test_no_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["report", str(empty), "--out", str(tmp_path / "o")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "no Inspect log" in error


# --- merge rules on hand-made logs ---------------------------------------------------------------


def piece(name: str, status: str, created: str, samples: dict[str, float]) -> LogData:
    rows = [{"log": name, "id": i, "epoch": 1, "self": v} for i, v in samples.items()]
    return LogData(
        {
            "log": name,
            "eval_id": name,
            "created": created,
            "status": status,
            "config": "c",
            "task": "full",
            "model": "m",
        },
        ["goal_and_mcq"],
        {(i, 1): signature({"self": v}) for i, v in samples.items()},
        {"scenes": rows},
    )


def test_a_retried_unfinished_piece_does_not_mark_the_run_unfinished() -> None:
    failed = piece("a.eval", "error", "2026-01-01", {"1": 0.5})
    retried = piece("b.eval", "success", "2026-01-02", {"1": 0.5, "2": 1.0})
    (run,) = merge_logs([failed, retried]).runs
    assert run["status"] == "success" and run["samples"] == 2 and run["log"] == "b.eval"
    (run,) = merge_logs([failed]).runs
    assert run["status"] == "error"
    contributes = piece("c.eval", "error", "2026-01-01", {"3": 0.0})
    (run,) = merge_logs([contributes, retried]).runs
    assert run["status"] == "error" and run["samples"] == 3
    conflicting = piece("d.eval", "success", "2026-01-03", {"2": 0.0})
    with pytest.raises(ReportError, match=r"sample 2 epoch 1 in d\.eval and b\.eval"):
        merge_logs([retried, conflicting])
    merged = merge_logs([retried, conflicting], prefer_newest=True)
    assert {row["self"] for row in merged.rows["scenes"] if row["id"] == "2"} == {0.0}
