"""Metamorphic tests of `agentsense report` and `agentsense compare` over the task-kind matrix
(tests/agentsense_logs.py): inputs that describe the same evidence give the same Table 1 to the
last digit (the table the report renders, from `report_data`, without writing the report), one
changed score changes exactly its cells, and `compare` refuses every pair of runs that differ in
more than the model while passing every matched pair.

Every kind's log covers the same four scenes (two templates) with the same deterministic stand-in
models, so a second task's conversation of a scene is the first one's again: pooling it must not
change a cell or an `n` (no double counting), only the count of conversations."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import score
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log

from agentsense.cli import main
from agentsense.report.assemble import load_inputs, report_data
from agentsense.report.document import Report, ReportOptions
from agentsense_logs import JUDGES, KINDS, kind_task, rejudge_scorer, run_kind

MODEL_KINDS = tuple(kind for kind in KINDS if kind != "labelling")
COUNTS = ["conversations", "blind_conversations"]


def rendered(paths: list[Path], titles: set[str] | None = None) -> Report:
    """What the report on these logs renders (only the sections titled in `titles`)."""
    options = ReportOptions(Path("not-written"), figures=False)
    return report_data(load_inputs([str(p) for p in paths], options), options, titles)


def table_one(paths: list[Path]) -> pd.DataFrame:
    """The report's Table 1 (`table1.csv`) on these logs."""
    return rendered(paths, {"Table 1"}).frames["table1"].set_index("run")


_KIND_TABLES: dict[Path, pd.DataFrame] = {}


def kind_table(path: Path) -> pd.DataFrame:
    """Table 1 of one session log (read-only), computed once."""
    if path not in _KIND_TABLES:
        _KIND_TABLES[path] = table_one([path])
    return _KIND_TABLES[path]


def cells(table: pd.DataFrame) -> pd.DataFrame:
    """Every Table 1 cell (means, bounds, n), without the conversation counts."""
    return table.drop(columns=[c for c in COUNTS if c in table.columns])


def same_cells(left: pd.DataFrame, right: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(cells(left), cells(right), check_exact=True)


def write(log: EvalLog, path: Path) -> Path:
    write_eval_log(log, str(path))
    return path


def split(path: Path, out: Path) -> list[Path]:
    """The log as two pieces of one run (as `--limit 1-2` and `--limit 3-4` would give)."""
    pieces = []
    for k, part in enumerate((slice(0, 2), slice(2, None))):
        log = read_eval_log(str(path))
        log.eval.eval_id = f"{log.eval.eval_id}-piece{k}"
        log.samples = (log.samples or [])[part]
        pieces.append(write(log, out / f"piece{k}.eval"))
    return pieces


def rejudge_same(path: Path, kind: str, out: Path) -> Path:
    """A copy re-scored by the same panel (`inspect score --action append`, same judges)."""
    scorer, roles = rejudge_scorer(kind)
    if "judge" in roles:
        roles = {"judge": JUDGES}
    scored = score(
        read_eval_log(str(path)), scorer, model_roles=roles or None, action="append", display="none"
    )
    return write(scored, out)


# --- report: the same evidence, the same Table 1 -------------------------------------------------


@pytest.mark.parametrize("kind", MODEL_KINDS)
def test_the_same_log_twice_split_or_rejudged_by_the_same_panel_changes_nothing(
    kind: str, kind_logs: dict[str, Path], tmp_path: Path
) -> None:
    path = kind_logs[kind]
    alone = kind_table(path)
    copy = Path(shutil.copy(path, tmp_path / "copy.eval"))
    for name, inputs in (
        ("twice", [path, path]),
        ("copy", [path, copy]),
        ("split", split(path, tmp_path)),
        ("rejudged", [rejudge_same(path, kind, tmp_path / "same-panel.eval")]),
    ):
        table = table_one(inputs)
        same_cells(table, alone)
        assert table[COUNTS].equals(alone[COUNTS]), name  # nothing counted twice


ORDERED = [frozenset(c) for size in (2, 3) for c in itertools.combinations(MODEL_KINDS, size)]


@pytest.mark.parametrize(
    "kinds",
    [pytest.param(k, marks=[pytest.mark.slow] if len(k) == 3 else []) for k in ORDERED],
    ids=lambda kinds: "+".join(sorted(kinds)),
)
def test_the_order_of_the_logs_does_not_matter(
    kinds: frozenset[str], kind_logs: dict[str, Path]
) -> None:
    paths = [kind_logs[k] for k in sorted(kinds)]
    forward = table_one(paths)
    backward = table_one(list(reversed(paths)))
    pd.testing.assert_frame_equal(forward, backward, check_exact=True)


@pytest.mark.parametrize(
    ("first", "second"),
    [("full", "goal"), ("full", "info"), ("goal", "full"), ("info", "full")],
)
def test_a_second_tasks_log_of_the_same_scenes_pools_into_them(
    first: str, second: str, kind_logs: dict[str, Path]
) -> None:
    alone = kind_table(kind_logs[first])
    pooled = table_one([kind_logs[first], kind_logs[second]])
    # The second task scores a subset (or the same set) of the first one's metrics, or adds
    # the other half: compare the cells both tables have a value for, and every n.
    present = [c[: -len("_n")] for c in alone.columns if c.endswith("_n") and alone[c].iloc[0]]
    shared = [f"{c}{part}" for c in present for part in ("_mean", "_ci_low", "_ci_high", "_n")]
    pd.testing.assert_frame_equal(alone[shared], pooled[shared], check_exact=True)
    n_columns = [c for c in pooled.columns if c.endswith("_n")]
    scenes = 4  # every kind's log covers the same four scenes, of two templates
    for column in n_columns:
        units = 2 if "psi" in column else scenes  # PSI counts templates
        assert pooled[column].iloc[0] in (0, units), column
    assert pooled["conversations"].iloc[0] == 2 * scenes  # two conversations of each scene


def test_full_plus_goal_plus_blind_counts_each_scene_once(kind_logs: dict[str, Path]) -> None:
    """The issue's case: n was scenes + overlapping scenes, the blind pairing doubled."""
    report = rendered(
        [kind_logs[k] for k in ("full", "goal", "blind")], {"Table 1", "Leakage baseline"}
    )
    table = report.frames["table1"].set_index("run")
    assert table["judge_majority_n"].iloc[0] == 4 and table["conversations"].iloc[0] == 8
    leakage = report.frames["leakage"].set_index("run")
    assert leakage["gain_over_blind_n"].iloc[0] == 4 == leakage["blind_mcq_accuracy_n"].iloc[0]


# --- report: one changed score changes exactly its cells -----------------------------------------

# Score key -> the Table 1 columns it feeds (PSI may or may not move with one scene's value).
FEEDS = {
    "self": {"self"},
    "other": {"other"},
    "judge_1": {f"judge: {JUDGES[0]}"},
    "judge_mean": {"judge_mean"},
    "judge_majority": {"judge_majority", "goal_psi"},
    "mcq_accuracy": {"mcq_accuracy", "mcq_psi"},
    "blind_mcq_accuracy": {"blind_mcq_accuracy"},
}


def flipped(path: Path, key: str, out: Path) -> Path:
    """A copy of the log whose first sample's `key` score is flipped (x -> 1 - x)."""
    log = read_eval_log(str(path))
    first = (log.samples or [])[0]
    for scored in (first.scores or {}).values():
        value = scored.value
        if isinstance(value, dict) and key in value:
            old = float(value[key])  # type: ignore[arg-type]
            value[key] = 1.0 - old if old != 0.5 else 0.0
    return write(log, out)


def changed_cells(before: pd.DataFrame, after: pd.DataFrame) -> set[str]:
    columns = {c.rsplit("_", 1)[0] for c in cells(before).columns if c.endswith("_mean")}
    return {
        column
        for column in columns
        for part in ("_mean", "_ci_low", "_ci_high", "_n")
        if not before[column + part].equals(after[column + part])
    }


@pytest.mark.parametrize(
    ("kind", "key"),
    [
        (kind, key)
        for kind in MODEL_KINDS
        for key in FEEDS
        if not (kind == "blind") ^ (key == "blind_mcq_accuracy")
        and not (kind == "goal" and key == "mcq_accuracy")
        and not (kind == "info" and key not in ("mcq_accuracy",))
    ],
)
def test_one_changed_score_changes_exactly_its_cells(
    kind: str, key: str, kind_logs: dict[str, Path], tmp_path: Path
) -> None:
    before = kind_table(kind_logs[kind])
    after = table_one([flipped(kind_logs[kind], key, tmp_path / "flipped.eval")])
    changed = changed_cells(before, after)
    primary = sorted(FEEDS[key])[0] if key != "judge_1" else f"judge: {JUDGES[0]}"
    assert primary in changed and changed <= FEEDS[key], changed
    assert before[[c for c in before.columns if c.endswith("_n")]].equals(
        after[[c for c in after.columns if c.endswith("_n")]]
    )


# --- compare: refuses what is not comparable, passes what is ------------------------------------


def compare_rc(base: Path, new: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["compare", str(base), str(new)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("kind", MODEL_KINDS)
def test_compare_passes_every_matched_pair(
    kind: str, kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = kind_logs[kind]
    same_panel = rejudge_same(path, kind, tmp_path / "same-panel.eval")
    for new in (path, same_panel):
        code, printed = compare_rc(path, new, capsys)
        assert code == 0, printed
        assert "No significant regression" in printed and "nan" not in printed


@pytest.mark.parametrize(
    ("base", "new"), list(itertools.permutations(KINDS, 2)), ids=lambda kind: kind
)
def test_compare_refuses_every_mismatched_pair_of_kinds(
    base: str, new: str, kind_logs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, printed = compare_rc(kind_logs[base], kind_logs[new], capsys)
    assert code == 2 and "Traceback" not in printed
    if "labelling" in (base, new):
        assert "only labelling logs" in printed
    elif "share no metric" not in printed:
        assert f"task: BASE {base}; NEW {new} (override with --allow-task-change)" in printed


@pytest.mark.parametrize("kind", ["full", "goal", "pairwise"])
def test_compare_refuses_another_judge_panel_read_from_the_scoring(
    kind: str,
    kind_logs: dict[str, Path],
    rejudged_logs: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, printed = compare_rc(kind_logs[kind], rejudged_logs[kind], capsys)
    assert code == 2
    (line,) = [line for line in printed.splitlines() if "judge panel" in line]
    assert ", ".join(JUDGES) in line and "standin/persona/judge-c" in line
    assert "--allow-mixed" in line


def edited_metadata(path: Path, out: Path, key: str, character: int, value: str) -> Path:
    """A copy whose score metadata `key` (cast or roles) names another value for one character."""
    log = read_eval_log(str(path))
    for sample in log.samples or []:
        for scored in (sample.scores or {}).values():
            mapping = (scored.metadata or {}).get(key)
            if isinstance(mapping, dict):
                name = sorted(mapping)[character]
                mapping[name] = value
    return write(log, out)


def test_compare_refuses_another_cast_or_pairing(
    kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = kind_logs["pairwise"]
    partner = edited_metadata(path, tmp_path / "partner.eval", "cast", 1, "standin/persona/x")
    code, printed = compare_rc(path, partner, capsys)
    assert code == 2 and "cast (model per character) (4 of 4 paired samples" in printed
    swapped = edited_metadata(path, tmp_path / "swapped.eval", "roles", 0, "receiver")
    code, printed = compare_rc(path, swapped, capsys)
    assert code == 2 and "pairing (roles)" in printed and "--allow-mixed" in printed
    assert main(["compare", str(path), str(swapped), "--allow-mixed"]) == 0
    assert "compared although they differ: pairing" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("kind", MODEL_KINDS)
def test_compare_refuses_another_seed(
    kind: str, kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task, roles = kind_task(kind, seed=1)
    from inspect_ai import eval

    (log,) = eval(
        task,
        model="standin/persona/agent",
        model_roles=roles,
        sample_id=[101, 102, 301, 302],
        log_dir=str(tmp_path),
        display="none",
    )
    code, printed = compare_rc(kind_logs[kind], Path(log.location), capsys)
    assert code == 2 and "seed: BASE 0; NEW 1 (override with --allow-mixed)" in printed


def test_compare_with_one_template_says_undefined_and_fails_closed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = run_kind("full", tmp_path, sample_id=[101, 102])  # template 1 only
    code, printed = compare_rc(path, path, capsys)
    assert code == 2 and "nan" not in printed
    assert "+0.000 undefined (1 template)" in printed and "UNTESTED" in printed
    assert main(["compare", str(path), str(path), "--allow-incomplete"]) == 0
    report = rendered([path], {"Table 1"})
    assert "undefined (1 template)" in report.markdown
    assert report.frames["table1"]["judge_majority_ci_low"].isna().all()


def test_no_interval_leaves_the_metric_range(
    kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two templates: the clustered t interval would leave [0, 1]; nothing printed does."""
    report = rendered([kind_logs[k] for k in MODEL_KINDS])  # every section, every table
    assert report.frames
    for name, frame in report.frames.items():
        for column in [c for c in frame.columns if c.endswith(("ci_low", "ci_high"))]:
            values = frame[column].dropna().astype(float)
            differences = "gain" in column or name == "overconfidence"
            # the Register's evaluation report gives scores x100, as the paper prints them
            scale = 100.0 if name == "evaluation_report" else 1.0
            low = -scale if differences else 0.0
            assert ((values >= low) & (values <= scale)).all(), (name, column)
    assert "too few templates (2)" in report.markdown
    csv = tmp_path / "compare.csv"
    assert main(["compare", str(kind_logs["full"]), str(kind_logs["full"]), "--csv", str(csv)]) == 0
    printed = capsys.readouterr().out
    assert "too few templates (2)" in printed
    for row in json.loads(pd.read_csv(csv).to_json(orient="records")):
        assert -1.0 <= row["diff_ci_low"] <= row["diff_ci_high"] <= 1.0
