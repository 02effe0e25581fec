"""The paper beside a run, end to end: `agentsense/full` through the stub server under a serving
name of a paper model (Llama-3-8B), on data shaped and checksummed like the official set (a
pinned file served by the local file server), then the report's *Beside the paper* section and
`agentsense compare --against paper`: pass with a wide margin, fail with none, refuse the demo
set, a --limit run and a model the paper does not have. The "official" file is known by its
content: given by path it is compared; a demo log edited to say `official` is refused.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from inspect_ai import eval
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import get_model

from agentsense.analysis import official
from agentsense.analysis.log_reader import load_runs
from agentsense.cli import main
from agentsense.engine.download import PinnedFile, git_blob_id
from agentsense.report.frames import build_units
from agentsense.report.paper import paper_matches
from agentsense.sense.dataset import official as official_data
from agentsense.sense.dataset.samples import demo_path
from agentsense.sense.leakage.titles import demo_titles_path
from agentsense.sense.reference.paper import cell
from agentsense.standin.stub import StubServer
from file_server import Reply, file_server
from fresh_process import in_fresh_process
from shared_builds import SharedBuilds

pytestmark = pytest.mark.slow

PAPER_MODEL = "vllm/meta-llama/Meta-Llama-3-8B-Instruct"  # Llama-3-8B of Tables 1 and 7
UNMAPPED = "vllm/agent"
JUDGES = ("vllm/gpt-4o", "vllm/Qwen/Qwen2.5-72B-Instruct", "vllm/meta-llama/Llama-3-70b-chat-hf")
# The "official" file: the demo set's first 4 templates (3 scenes each), pinned by its blob id.
OFFICIAL = b"".join(demo_path().read_bytes().splitlines(keepends=True)[:12])
SCENES = 12
BY_PATH = "final_data.jsonl"  # a copy of the "official" file, given by path (in the log folder)


@pytest.fixture(autouse=True)
def _pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in is the pinned official file here too: the logs are read against the pin."""
    pin(monkeypatch)


def pin(patch: pytest.MonkeyPatch) -> None:
    pinned = PinnedFile(official_data.SOURCE.files["official"].path, git_blob_id(OFFICIAL))
    patch.setitem(official_data.SOURCE.files, "official", pinned)


@dataclass(frozen=True)
class Run:
    task: str
    model: str = PAPER_MODEL
    dataset: str = "official"
    limit: int | None = None
    args: Mapping[str, object] = field(default_factory=dict)
    epochs: int = 1
    judges: tuple[str, ...] = JUDGES


TITLES = {"titles": str(demo_titles_path())}  # the stand-in "official" records name no script
RUNS = {  # log folder -> its runs
    # Tables 1 and 2: every scene, the official data, the paper's model.
    "official": [
        Run("full", args={"max_messages": 4}),
        Run("script_prediction", args=TITLES),
        Run("blind", args={"epochs": 1}),
    ],
    # Table 7: one scene per template, over epochs.
    "subset": [Run("full", args={"max_messages": 4, "per_template": 1}, epochs=2)],
    # A panel that is not the paper's: no reference for its mean and majority.
    "one_judge": [Run("full", args={"max_messages": 4}, judges=("vllm/gpt-4o",))],
    "limit": [Run("full", limit=2, args={"max_messages": 4})],
    "demo": [Run("full", dataset="demo", limit=1, args={"max_messages": 4})],
    # The official file by path: a custom name, the pinned content.
    "by_path": [Run("full", dataset=BY_PATH, args={"max_messages": 4})],
    "unmapped": [Run("full", model=UNMAPPED, limit=1, args={"max_messages": 4})],
}


def _build(out: Path) -> Path:
    """Every run of RUNS, one log folder each, against one stub (Inspect keeps a model's client
    for the process, so a second server would not be reached). Run in a fresh process."""
    with StubServer() as stub, file_server() as served, pytest.MonkeyPatch.context() as patch:
        served.serve(Reply(OFFICIAL))
        patch.setenv("VLLM_BASE_URL", stub.base_url)
        patch.setenv("AGENTSENSE_DATA_URL", served.url)
        patch.setenv("AGENTSENSE_CACHE_DIR", str(out / "cache"))
        pin(patch)
        (out / BY_PATH).write_bytes(OFFICIAL)
        for name, planned in RUNS.items():
            for run in planned:
                dataset = str(out / BY_PATH) if run.dataset == BY_PATH else run.dataset
                (log,) = eval(
                    f"agentsense/{run.task}",
                    task_args={"dataset": dataset, **run.args},
                    model=get_model(run.model, base_url=stub.base_url),
                    model_roles={
                        "judge": [get_model(j, base_url=stub.base_url) for j in run.judges]  # type: ignore[dict-item]
                    },
                    limit=run.limit,
                    epochs=run.epochs,
                    log_dir=str(out / name),
                    display="none",
                )
                assert log.status == "success", log.error
        # Downloaded once, checked against its pin, then read from the cache.
        assert len(served.requests) == 1
    claim_official(out / "demo", out / "edited")
    return out


def claim_official(logs: Path, out: Path) -> None:
    """The demo logs with their `dataset` task argument and metadata edited to `official`."""
    out.mkdir()
    for path in logs.glob("*.eval"):
        log = read_eval_log(str(path))
        log.eval.task_args["dataset"] = "official"
        log.eval.metadata = {**(log.eval.metadata or {}), "dataset": "official"}
        write_eval_log(log, str(out / path.name))


@pytest.fixture(scope="module")
def runs(shared_build: SharedBuilds) -> Mapping[str, Path]:
    built = shared_build("paper-gate", lambda out: in_fresh_process(_build, out))
    return {name: built / name for name in [*RUNS, "edited"]}


def gate(capsys: pytest.CaptureFixture[str], logs: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["compare", "--against", "paper", str(logs), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def report_rows(logs: Path, out: Path, *extra: str) -> tuple[str, list[dict[str, str]]]:
    """The report's Markdown and its paper_reference.csv rows, each checked against paper.csv."""
    assert main(["report", str(logs), "--out", str(out), "--no-figures", *extra]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "## Beside the paper" in text
    with (out / "paper_reference.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        published = cell(row["table"], row["model"], row["column"])
        assert published is not None and float(row["paper"]) == published.value
        scale = 1 if published.unit == "fraction" else 100
        difference = (float(row["value"]) - published.value) * 100 / scale
        assert float(row["difference"]) == pytest.approx(difference)
        inside = float(row["low"]) <= published.value <= float(row["high"])
        assert (row["in_interval"] == "True") == inside
        assert int(row["n"]) > 0
        # The Markdown shows each cell's paper value and difference.
        assert f"| {row['column']} |" in text and f"{float(row['difference']):+.2f}" in text
    return text, rows


def test_report_shows_the_paper_beside_each_cell(runs: Mapping[str, Path], tmp_path: Path) -> None:
    text, rows = report_rows(runs["official"], tmp_path / "report")
    columns = {(row["table"], row["model"], row["column"]) for row in rows}
    # Every Table 1 quantity the run has, the judges of the paper's panel included...
    one = {"Goal / Self", "Goal / Other", "Goal / Judge / Average", "Goal / Judge / Majority"}
    one |= {"Goal / Judge / GPT-4o", "Goal / Judge / Qwen2.5", "Goal / Judge / Llama-3"}
    one |= {"Goal / PSI ↓", "Info / Acc.", "Info / PSI ↓"}
    assert {("1", "Llama-3-8B", column) for column in one} == columns - {*columns_of(rows, "2")}
    # ...and Table 2's, from the script-prediction and blind runs of the same model.
    assert columns_of(rows, "2") == {
        ("2", "Llama-3-8b", "Script Acc."),
        ("2", "Llama-3-8b", "Blind Acc."),
    }
    assert "80.71" in text  # Llama-3-8B's judge majority in Table 1


@pytest.mark.parametrize("name", ["official", "one_judge"])
def test_the_evaluation_report_takes_its_paper_values_from_the_same_rule(
    runs: Mapping[str, Path], tmp_path: Path, name: str
) -> None:
    """The Register block's paper column is the *Beside the paper* cell, never a second rule:
    with a panel that is not the paper's, the judge majority has no reference in either."""
    _, rows = report_rows(runs[name], tmp_path / "report")
    beside = {r["metric"]: float(r["paper"]) for r in rows if r["table"] == "1"}
    with (tmp_path / "report" / "evaluation_report.csv").open(encoding="utf-8") as handle:
        block = {r["score"]: r for r in csv.DictReader(handle)}
    keys = {"goal_judge_majority": "judge_majority", "mcq_accuracy": "mcq_accuracy"}
    for score, metric in keys.items():
        shown = block[score]["paper"]
        assert (float(shown) if shown else None) == beside.get(metric), (name, score)
    assert ("judge_majority" in beside) == (name == "official")
    assert "mcq_accuracy" in beside


def columns_of(rows: list[dict[str, str]], table: str) -> set[tuple[str, str, str]]:
    return {(r["table"], r["model"], r["column"]) for r in rows if r["table"] == table}


def test_a_per_template_run_is_set_beside_table_7(runs: Mapping[str, Path], tmp_path: Path) -> None:
    _, rows = report_rows(runs["subset"], tmp_path / "report")
    assert {r["table"] for r in rows} == {"7"}
    assert {"Self / mean", "Judge_mean / Majority", "Judge_mean / GPT", "Info / mean"} <= {
        r["column"] for r in rows
    }


def test_the_panels_columns_need_the_papers_panel(runs: Mapping[str, Path], tmp_path: Path) -> None:
    text, rows = report_rows(runs["one_judge"], tmp_path / "report")
    columns = {r["column"] for r in rows}
    assert "Goal / Judge / GPT-4o" in columns and "Goal / Self" in columns
    assert not columns & {"Goal / Judge / Average", "Goal / Judge / Majority", "Goal / PSI ↓"}
    assert "judge mean, majority and goal PSI left out: its panel (vllm/gpt-4o)" in text


def filled_sheet(logs: Path, folder: Path) -> Path:
    """`agentsense annotate`'s sheet of the logs, three people answering by a rule of the row."""
    sheet = folder / "sheet.csv"
    assert main(["annotate", str(logs), "--out", str(sheet)]) == 0
    with sheet.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        label = "yes" if int(row["row"]) % 3 else "no"
        row.update({f"annotator_{k}": label for k in (1, 2, 3)})
    with sheet.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return sheet


def test_human_labels_set_the_judges_beside_table_6(
    runs: Mapping[str, Path], tmp_path: Path
) -> None:
    sheet = filled_sheet(runs["official"], tmp_path)
    out = tmp_path / "report"
    _, rows = report_rows(runs["official"], out, "--labels", str(sheet))
    six = {r["row"]: r for r in rows if r["table"] == "6"}
    assert {r["model"] for r in six.values()} == {"GPT-4o", "Qwen2.5-72b", "Llama-3-70b"}
    assert set(six) == set(JUDGES)  # the panel majority has no row in Table 6
    with (out / "human_judges.csv").open(encoding="utf-8") as handle:
        accuracy = {r["judge"]: float(r["accuracy"]) for r in csv.DictReader(handle)}
    for judge, row in six.items():
        assert float(row["value"]) == pytest.approx(accuracy[judge])
        assert float(row["low"]) <= float(row["value"]) <= float(row["high"])


def test_human_labels_on_the_demo_set_have_no_reference(
    runs: Mapping[str, Path], tmp_path: Path
) -> None:
    sheet = filled_sheet(runs["demo"], tmp_path)
    out = tmp_path / "report"
    assert (
        main(
            ["report", str(runs["demo"]), "--out", str(out), "--no-figures", "--labels", str(sheet)]
        )
        == 0
    )
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "- Table 6 (judges against human labels): no reference: demo data" in text


def test_gate_passes_with_a_wide_margin_and_fails_with_none(
    runs: Mapping[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = gate(capsys, runs["official"], "--margin", "100")
    assert code == 0, out
    assert "reproduce the paper" in out
    code, out, _ = gate(capsys, runs["official"])
    # The stub's canned replies are not Llama-3-8B's: some cells lie far from the paper's.
    assert code == 1, out
    assert "OUTSIDE:" in out and "Goal / " in out


def test_the_margin_passes_exactly_the_cells_within_it(
    runs: Mapping[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The cells the gate lists are those of `paper_matches` (the Register's API) whose paper
    value is outside the interval by more than the margin."""
    matches = paper_matches(build_units(load_runs([str(runs["official"])])))
    assert {m.table for m in matches} == {"1", "2"}
    outside = sorted(abs(m.difference) for m in matches if not m.in_interval)
    assert len(outside) > 1 and outside[-2] < outside[-1] - 0.01
    code, out, _ = gate(capsys, runs["official"])
    assert code == 1 and f"OUTSIDE: {len(outside)} of {len(matches)} cells" in out
    # A margin just below the farthest cell leaves that one cell outside; at it, none.
    code, out, _ = gate(capsys, runs["official"], "--margin", str(outside[-1] - 0.01))
    assert code == 1 and f"OUTSIDE: 1 of {len(matches)} cells" in out
    code, out, _ = gate(capsys, runs["official"], "--margin", str(outside[-1] + 1e-6))
    assert code == 0, out


def test_the_official_file_given_by_path_is_compared(
    runs: Mapping[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Known by its hash, not its name: the pinned file given by path has the paper's cells,
    in the gate, the report and the evaluation report, as `-T dataset=official` has."""
    code, out, _ = gate(capsys, runs["by_path"], "--margin", "100")
    assert code == 0 and "reproduce the paper" in out, out
    _, rows = report_rows(runs["by_path"], tmp_path / "report")
    assert {r["table"] for r in rows} == {"1"}
    block = yaml.safe_load((tmp_path / "report" / "evaluation_report.yaml").read_text("utf-8"))
    (result,) = block["evaluation_report"]["results"]
    assert "goal_judge_majority_paper" in {m["key"] for m in result["metrics"]}


EDITED = "says -T dataset=official, but its data file has git blob id"


def test_a_log_edited_to_say_official_is_refused_with_the_reason(
    runs: Mapping[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A demo log whose `dataset` argument and metadata say `official` has the demo's hash."""
    code, out, err = gate(capsys, runs["edited"], "--margin", "100")
    assert code == 2 and out == ""
    assert "cannot be compared with the paper" in err and EDITED in err
    assert f"pinned official file (official: blob id {git_blob_id(OFFICIAL)[:12]}" in err
    out_folder = tmp_path / "report"
    assert main(["report", str(runs["edited"]), "--out", str(out_folder), "--no-figures"]) == 0
    text = (out_folder / "report.md").read_text(encoding="utf-8")
    section = text.split("## Beside the paper", 1)[1].split("\n## ", 1)[0]
    assert EDITED in section and "| Table " not in section
    block = yaml.safe_load((out_folder / "evaluation_report.yaml").read_text(encoding="utf-8"))
    (result,) = block["evaluation_report"]["results"]
    assert not [m for m in result["metrics"] if m["key"].endswith("_paper")]
    assert any(EDITED in note for note in block["evaluation_report"]["notes"])


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("demo", "demo data"),
        ("limit", f"a --limit run: 2 of {SCENES} scenes"),
        ("unmapped", "no paper model matches vllm/agent"),
    ],
)
def test_gate_refuses_what_cannot_be_compared(
    runs: Mapping[str, Path], capsys: pytest.CaptureFixture[str], name: str, why: str
) -> None:
    code, out, err = gate(capsys, runs[name], "--margin", "100")
    assert code == 2 and out == ""
    assert "cannot be compared with the paper" in err and why in err
    assert "Traceback" not in err


def table_one_of(text: str) -> str:
    return text.split("## Table 1", 1)[1].split("\n## ", 1)[0]


def test_table_one_sets_the_paper_beside_its_cells(
    runs: Mapping[str, Path], tmp_path: Path
) -> None:
    """Table 1 itself shows the published value beside each cell the paper has for the row,
    the judges' columns named by their models."""
    text, rows = report_rows(runs["official"], tmp_path / "report")
    section = table_one_of(text)
    table_one = [row for row in rows if row["table"] == "1"]
    assert table_one
    for row in table_one:
        assert f"· paper {float(row['paper']):.2f}" in section, row["column"]
    assert section.count("· paper ") == len(table_one)
    for judge in JUDGES:
        assert f"judge: {judge}" in section
    assert "No paper value beside" not in section


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("demo", "demo data (-T dataset=demo), not the official set"),
        ("limit", "a --limit run"),
    ],
)
def test_table_one_says_why_no_paper_value_is_beside_it(
    runs: Mapping[str, Path], tmp_path: Path, name: str, why: str
) -> None:
    out = tmp_path / "report"
    assert main(["report", str(runs[name]), "--out", str(out), "--no-figures"]) == 0
    section = table_one_of((out / "report.md").read_text(encoding="utf-8"))
    assert "· paper " not in section
    assert "- No paper value beside" in section and why in section


def test_report_says_in_one_line_why_there_is_no_reference(
    runs: Mapping[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "report"
    assert main(["report", str(runs["demo"]), "--out", str(out), "--no-figures"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    section = text.split("## Beside the paper", 1)[1].split("\n## ", 1)[0]
    assert "no reference: demo data" in section and "| Table " not in section
    assert not (out / "paper_reference.csv").exists()


@pytest.mark.parametrize(
    ("run", "table", "why"),
    [
        ({"dataset": "demo", "data_git_blob_id": "c0ffee"}, "1", "demo data"),
        ({"dataset": "my.jsonl", "data_git_blob_id": "c0ffee"}, "1", "a custom dataset (my.jsonl)"),
        # The name proves nothing: without the pinned hash, `official` is refused...
        ({"data_git_blob_id": "c0ffee"}, "1", "says -T dataset=official, but its data file"),
        ({"data_git_blob_id": None}, "1", "records no hash of its data file"),
        # ...and with it, any name is the official set.
        ({"dataset": "/data/final_data.jsonl"}, "1", None),
        ({"status": "cancelled", "planned_scenes": 9, "planned_samples": 9}, "1", "cancelled"),
        ({"shards": ["1/4", "3/4"]}, "1", "2 of 4 shards"),
        ({"planned_scenes": 2, "planned_samples": 2}, "1", "a --limit run: 2 of 1,225 scenes"),
        ({"per_template": 1}, "1", "a -T per_template=1 run"),
        ({}, "7", "Table 7 is a -T per_template=1 run"),
        ({"shards": ["1/2", "2/2"]}, "1", None),
        ({"per_template": 1}, "7", None),
        ({}, "1", None),
    ],
)
def test_official_reason(run: dict[str, object], table: str, why: str | None) -> None:
    complete = {
        "dataset": "official",
        "data_git_blob_id": git_blob_id(OFFICIAL),
        "kind": "homogeneous",
        "status": "success",
        "scenes": 1225,
        "samples": 1225,
        "planned_scenes": 1225,
        "planned_samples": 1225,
        "dataset_scenes": 1225,
        "shards": [],
        "per_template": None,
    }
    found = official.reason({**complete, **run}, table)
    assert (found is None) if why is None else (found is not None and why in found)


@pytest.fixture(autouse=True)
def _no_user_names(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("AGENTSENSE_MODEL_NAMES", raising=False)
    yield


def test_a_user_names_file_maps_a_model(
    runs: Mapping[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The unmapped run, refused above, has a reference once a user's file maps its model
    (its --limit then remains the reason)."""
    names = tmp_path / "names.csv"
    names.write_text("serving_name,paper_model\nagent,Llama-3-8b\n", encoding="utf-8")
    monkeypatch.setenv("AGENTSENSE_MODEL_NAMES", str(names))
    code, _, err = gate(capsys, runs["unmapped"])
    assert code == 2 and f"a --limit run: 1 of {SCENES} scenes" in err
