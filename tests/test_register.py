"""The Inspect Evals Register entry (register/agentsense/eval.yaml) and the report's
`evaluation_report` block, checked with the Register's own code from the inspect-evals wheel
(`pip download --no-deps`, which reaches the package registry): the schema, `ExternalEvalMetadata`
of inspect_evals/metadata.py, and the submission engine's @task resolver,
register_tooling/task_resolver.py, each loaded alone; and the Register's lint service
(`inspect_evals_lint.lint_task_files`) on the entry's task_path. The two files import only
pydantic, yaml, typing_extensions and the standard library, so they load without installing
inspect-evals (whose entry point would make every `inspect` run warn); the test fails, rather
than skip, if that ever changes.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import importlib.util
import logging
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd
import pytest
import yaml
from inspect_ai.log import read_eval_log
from inspect_evals_lint import lint_task_files
from inspect_evals_lint.registry import get_rule, rule_names
from pydantic import ValidationError

from agentsense.engine.version import eval_metadata
from agentsense.report import register, tables
from agentsense.report.assemble import load_inputs, report_data, write_report
from agentsense.report.document import ReportOptions
from agentsense.report.register import (
    PAGE_HEAD,
    PAGE_TITLE,
    TABLE_FILE,
    VIZ_PAGE,
    YAML_FILE,
    Result,
    block,
    entry_results,
    results,
)
from agentsense.sense.reference.paper import cell
from agentsense.tasks import TASKS
from prerequisites import prerequisite_missing
from shared_builds import SharedBuilds

ROOT = Path(__file__).resolve().parents[1]
ENTRY = ROOT / "register" / "agentsense" / "eval.yaml"
SCHEMA_VERSION = "0.28.0"  # the inspect-evals release whose schema the entry was written for
# The Register's files the tests load, by their path in the wheel.
SCHEMA_FILE = "inspect_evals/metadata.py"
RESOLVER_FILE = "register_tooling/task_resolver.py"
REPORT = "Evaluation report"


def download_register(folder: Path) -> Path:
    command = ["pip", "download", f"inspect-evals=={SCHEMA_VERSION}", "--no-deps", "--quiet"]
    subprocess.run([sys.executable, "-m", *command, "-d", str(folder)], check=True)
    (wheel,) = folder.glob("inspect_evals-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        for name in (SCHEMA_FILE, RESOLVER_FILE):
            (folder / Path(name).name).write_bytes(archive.read(name))
    return folder / Path(SCHEMA_FILE).name


def load_alone(path: Path, name: str) -> ModuleType:
    """One file of the wheel as a module of its own; it must not import the rest of the wheel."""
    imports = [
        line for line in path.read_text().splitlines() if line.startswith(("import", "from"))
    ]
    assert not [i for i in imports if "inspect_evals" in i or "register_tooling" in i], imports
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic and dataclasses resolve annotations in the module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def schema(shared_build: SharedBuilds) -> ModuleType:
    return load_alone(shared_build("inspect-evals-register", download_register), "register_schema")


@pytest.fixture(scope="module")
def resolver(shared_build: SharedBuilds) -> ModuleType:
    folder = shared_build("inspect-evals-register", download_register).parent
    return load_alone(folder / Path(RESOLVER_FILE).name, "register_task_resolver")


def entry() -> dict[str, Any]:
    """The draft as the Register loads it: its folder's name is its id."""
    data: dict[str, Any] = yaml.safe_load(ENTRY.read_text(encoding="utf-8"))
    data["id"] = ENTRY.parent.name
    return data


@pytest.fixture(scope="module")
def report_folder(kind_logs: Mapping[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of the stand-in `full` run on the demo set (the shared log)."""
    out = tmp_path_factory.mktemp("register") / "report"
    write_report([str(kind_logs["full"])], ReportOptions(out=out))
    return out


def report_block(folder: Path) -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load((folder / YAML_FILE).read_text(encoding="utf-8"))
    return found["evaluation_report"]


def test_draft_passes_the_register_schema(
    schema: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        meta = schema.ExternalEvalMetadata(**entry())
    assert not caplog.records, "the Register asks for one task per entry"
    assert meta.id == "agentsense" and meta.arxiv is not None
    assert "2410.19346" in str(meta.arxiv)
    assert meta.source.repository_commit.startswith("FILL-IN"), "the upstream commit is to fill in"


def task_line(source: str, name: str) -> int:
    """The line of the @task decorator of function `name`: the source URL's #L anchor."""
    (function,) = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef) and node.name == name
    ]
    return min(decorator.lineno for decorator in function.decorator_list)


def test_the_register_resolves_the_draft_task(resolver: ModuleType) -> None:
    """The submission engine names the task by the @task it finds at the source URL's anchor."""
    (task,) = entry()["tasks"]
    source = (ROOT / task["task_path"]).read_text(encoding="utf-8")
    found = resolver.resolve_task(source, line_anchor=task_line(source, task["name"]))
    assert found.name == task["name"]
    with pytest.raises(resolver.TaskResolutionError, match="line anchor"):
        resolver.resolve_task(source, line_anchor=None)  # several @task: the URL needs #L<n>


def test_the_register_lint_service_finds_the_package() -> None:
    """The Register lints the package that holds the entry's task_path; its file-structure rules
    (package, main file, exports, registry, eval.yaml, README) all pass."""
    (task,) = entry()["tasks"]
    codes = [rule.code for rule in map(get_rule, rule_names()) if rule.category == "file_structure"]
    assert len(codes) >= 6
    for code in codes:
        (package,) = lint_task_files(ROOT, [task["task_path"]], check=code).packages
        assert package.name == "agentsense"
        statuses = [o.status for o in package.outcomes] + [d.status for d in package.diagnostics]
        assert statuses and set(statuses) <= {"pass"}, (code, package)


def test_draft_tasks_match_the_package() -> None:
    """Each task is one of tasks.py's, at its task_path, with eval.yaml's sample count."""
    counts = {t["name"]: t.get("dataset_samples") for t in eval_metadata()["tasks"]}
    names = {row.name for row in TASKS}
    for task in entry()["tasks"]:
        name = task["name"].removeprefix("agentsense/")
        assert name in names
        assert task["dataset_samples"] == counts[name]
        assert f"def {name}(" in (ROOT / task["task_path"]).read_text(encoding="utf-8")


def test_report_block_attaches_to_the_draft(schema: ModuleType, report_folder: Path) -> None:
    data = entry()
    data["evaluation_report"] = report_block(report_folder)
    meta = schema.ExternalEvalMetadata(**data)
    (row,) = meta.evaluation_report.results
    assert row.model == "standin/persona/agent" and row.task == "full"
    assert row.provider == "standin" and row.samples > 0
    keys = [m.key for m in row.metrics]
    assert keys == [
        "goal_judge_majority",
        "goal_judge_majority_stderr",
        "mcq_accuracy",
        "mcq_accuracy_stderr",
    ]
    notes = " ".join(meta.evaluation_report.notes)
    assert "no paper value" in notes  # the stand-in is no model of the paper


@pytest.mark.parametrize(
    "break_it",
    [
        lambda b: b["results"][0].__setitem__("metrics", []),
        lambda b: b["results"][0]["metrics"][0].__setitem__("value", "high"),
        lambda b: b["results"][0].__setitem__("task", "goal"),  # not the entry's task
        lambda b: b.pop("commit"),
        lambda b: b["results"][0].pop("model"),
    ],
    ids=["no metrics", "text value", "unknown task", "no commit", "no model"],
)
def test_a_broken_block_is_refused(schema: ModuleType, report_folder: Path, break_it: Any) -> None:
    broken = copy.deepcopy(report_block(report_folder))
    break_it(broken)
    with pytest.raises(ValidationError):
        schema.ExternalEvalMetadata(**{**entry(), "evaluation_report": broken})


def test_block_numbers_are_table_one_and_the_logged_stderr(
    report_folder: Path, kind_logs: Mapping[str, Path]
) -> None:
    metrics = {m["key"]: m["value"] for m in report_block(report_folder)["results"][0]["metrics"]}
    table = pd.read_csv(report_folder / "table1.csv").iloc[0]
    logged = read_eval_log(str(kind_logs["full"]), header_only=True).results
    assert logged is not None
    by_name = {s.name: s.metrics for s in logged.scores}
    for key, column in (
        ("goal_judge_majority", "judge_majority"),
        ("mcq_accuracy", "mcq_accuracy"),
    ):
        assert metrics[key] == round(100 * table[f"{column}_mean"], 2)
        assert metrics[key] == round(100 * by_name[column]["mean"].value, 2)
        assert metrics[f"{key}_stderr"] == round(100 * by_name[column]["stderr"].value, 2)
    row = report_block(report_folder)["results"][0]
    assert row["samples"] == int(table["judge_majority_n"])


def with_paper(found: list[Result]) -> list[Result]:
    """The report's results as if the run were Llama-3-8B's on the official data."""
    columns = {"goal_judge_majority": "Goal / Judge / Majority", "mcq_accuracy": "Info / Acc."}
    out = []
    for r in found:
        scores = [
            dataclasses.replace(s, paper=cell(1, "Llama-3-8B", columns[s.key]).value)  # type: ignore[union-attr]
            for s in r.scores
        ]
        out.append(dataclasses.replace(r, scores=scores, paper_model="Llama-3-8B", why_no_paper=""))
    return out


def report_results(log: Path) -> tuple[list[Result], pd.DataFrame]:
    units = load_inputs([str(log)], ReportOptions(out=Path("unused"))).units
    assert units is not None
    return results(units, tables.table_one(units)), units.runs


def test_a_reference_gives_paper_and_difference(
    schema: ModuleType, kind_logs: Mapping[str, Path]
) -> None:
    found, runs = report_results(kind_logs["full"])
    referenced = with_paper(found)
    meta = schema.ExternalEvalMetadata(**{**entry(), "evaluation_report": block(referenced, runs)})
    metrics = {m.key: m.value for m in meta.evaluation_report.results[0].metrics}
    paper = cell(1, "Llama-3-8B", "Goal / Judge / Majority")
    assert paper is not None and metrics["goal_judge_majority_paper"] == paper.value
    assert metrics["goal_judge_majority_difference"] == round(
        metrics["goal_judge_majority"] - paper.value, 2
    )


def test_viz_page_holds_the_run_and_the_paper(
    report_folder: Path, kind_logs: Mapping[str, Path]
) -> None:
    page = report_folder / VIZ_PAGE
    assert page.exists(), "the report writes the page when inspect-viz is installed (dev extra)"
    found, _ = report_results(kind_logs["full"])
    run_value = f"{found[0].scores[0].value:.2f}"
    assert run_value in page.read_text(encoding="utf-8")
    text = register.scores_page(with_paper(found))
    assert text is not None and "<script" in text
    paper = cell(1, "Llama-3-8B", "Info / Acc.")
    assert paper is not None and f"<td>{paper.value:.2f}</td>" in text
    assert f"<td>{run_value}</td>" in text


class PageReader(HTMLParser):
    """What a browser with scripts disabled shows of a page: its title, the text outside
    <script> and <style>, and the rows of the table `agentsense-scores`."""

    def __init__(self) -> None:
        super().__init__()
        self.title, self.text, self.rows = "", "", list[list[str]]()
        self._open: list[str] = []
        self._in_table = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open.append(tag)
        if tag == "table" and ("id", "agentsense-scores") in attrs and not self._hidden:
            self._in_table = True
        elif tag == "tr" and self._in_table:
            self.rows.append([])
        elif tag in ("td", "th") and self._in_table:
            self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag) :]
        if tag == "table":
            self._in_table = False

    @property
    def _hidden(self) -> bool:
        return "script" in self._open or "style" in self._open

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1] == "title":
            self.title += data
        if self._hidden:
            return
        self.text += data + " "
        if self._in_table and self._open[-1] in ("td", "th"):
            self.rows[-1][-1] += data


def read_page(text: str) -> PageReader:
    reader = PageReader()
    reader.feed(text)
    return reader


def test_the_page_has_a_title_and_a_plain_table_with_intervals(
    report_folder: Path, kind_logs: Mapping[str, Path]
) -> None:
    """Scripts off (or offline): the title, the table with each score's 95% CI and, where the
    paper applies, the difference, and a sentence saying the plots need the network."""
    page = read_page((report_folder / VIZ_PAGE).read_text(encoding="utf-8"))
    assert page.title == PAGE_TITLE
    head, *rows = page.rows
    assert head == PAGE_HEAD and {"95% CI", "Difference"} <= set(head)
    table = pd.read_csv(report_folder / "table1.csv").iloc[0]
    columns = {"goal_judge_majority": "judge_majority", "mcq_accuracy": "mcq_accuracy"}
    assert sorted(row[2] for row in rows) == sorted(columns)
    for row in rows:
        cells = dict(zip(head, row, strict=True))
        low, high = (100 * table[f"{columns[cells['Score']]}_ci_{end}"] for end in ("low", "high"))
        assert cells["95% CI"].startswith(f"[{low:.2f}, {high:.2f}]")
        # The stand-in is no model of the paper: no difference, and the page says why.
        assert cells["Paper"] == "–" and cells["Difference"].startswith("– (note ")
    found, _ = report_results(kind_logs["full"])
    assert found[0].why_no_paper and found[0].why_no_paper in page.text
    assert "without network" in page.text and "cdn.jsdelivr.net" in page.text


@pytest.mark.slow
def test_a_browser_offline_with_scripts_off_shows_the_table(report_folder: Path) -> None:
    """Debian's chromium (as tests/test_viewer_shots.py drives it), JavaScript off, every request
    but the file refused: the title and the table show, with the sentence about the plots."""
    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        prerequisite_missing("read the page in a browser", "Debian's chromium is not installed")
    with sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        context = browser.new_context(java_script_enabled=False)
        context.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith("file:") else route.abort()
            ),
        )
        page = context.new_page()
        page.goto((report_folder / VIZ_PAGE).as_uri())
        title, table = page.title(), page.locator("#agentsense-scores")
        shown = table.is_visible() and page.get_by_text("without network").is_visible()
        rows = [row.split("\t") for row in table.locator("tr").all_inner_texts()]
        browser.close()
    assert title == PAGE_TITLE and shown
    assert rows[0] == PAGE_HEAD and len(rows) == 3


def test_the_page_gives_the_difference_only_where_the_paper_applies(
    kind_logs: Mapping[str, Path],
) -> None:
    found, _ = report_results(kind_logs["full"])
    (referenced,) = with_paper(found)
    # As for a one-judge panel: the MCQ accuracy has the paper's value, the judge majority not.
    why = "a judge panel of 1 judge, not the paper's"
    scores = [
        s if s.key == "mcq_accuracy" else dataclasses.replace(s, paper=None)
        for s in referenced.scores
    ]
    text = register.scores_page([dataclasses.replace(referenced, scores=scores, why_no_paper=why)])
    assert text is not None
    page = read_page(text)
    head, *rows = page.rows
    cells = {row[2]: dict(zip(head, row, strict=True)) for row in rows}
    mcq = next(s for s in scores if s.key == "mcq_accuracy")
    assert mcq.paper is not None
    assert cells["mcq_accuracy"]["Paper"] == f"{mcq.paper:.2f}"
    assert cells["mcq_accuracy"]["Difference"] == f"{mcq.value - mcq.paper:+.2f}"
    assert cells["goal_judge_majority"]["Difference"] == "– (note 1)"
    assert f"goal_judge_majority: {why}." in page.text


def test_without_inspect_viz_the_report_says_how(
    kind_logs: Mapping[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(register, "find_spec", lambda name: None)
    options = ReportOptions(out=tmp_path)
    report = report_data(load_inputs([str(kind_logs["full"])], options), options, [REPORT])
    assert report.sections == [REPORT]
    assert VIZ_PAGE not in report.files and YAML_FILE in report.files
    assert "pip install 'agentsense[viz]'" in report.markdown


def test_the_markdown_table_is_written_with_the_block(report_folder: Path) -> None:
    table = (report_folder / TABLE_FILE).read_text(encoding="utf-8")
    head, _, *lines = table.strip().splitlines()
    assert head.split("|")[1:-1] == [
        f" {h} "
        for h in (
            *("Model", "Task", "Score", "AgentSense", "Paper", "Difference"),
            *("Samples", "Stderr", "Time"),
        )
    ]
    metrics = {m["key"]: m["value"] for m in report_block(report_folder)["results"][0]["metrics"]}
    cells = {line.split("|")[3].strip(): line.split("|")[4].strip() for line in lines}
    assert cells == {
        "goal_judge_majority": f"{metrics['goal_judge_majority']:.2f}",
        "mcq_accuracy": f"{metrics['mcq_accuracy']:.2f}",
    }
    assert table.strip() in (report_folder / "report.md").read_text(encoding="utf-8")


def test_the_block_holds_only_the_entry_task(kind_logs: Mapping[str, Path], tmp_path: Path) -> None:
    """The entry is `full`: a Table 1 row of `info` runs, or of `full` and `info` runs pooled
    (one model's), is in the table but not in the block, and the section says why."""
    options = ReportOptions(out=tmp_path, figures=False)
    for logs, task in (
        ([kind_logs["info"]], "info"),
        ([kind_logs["full"], kind_logs["info"]], "full+info"),
    ):
        report = report_data(load_inputs([str(p) for p in logs], options), options, [REPORT])
        assert list(report.frames["evaluation_report"]["task"].unique()) == [task]
        assert YAML_FILE not in report.files and TABLE_FILE in report.files
        assert f"| {task} |" in report.files[TABLE_FILE]
        assert "No Table 1 row of `full` runs alone" in report.markdown
    found, _ = report_results(kind_logs["info"])
    assert found and not entry_results(found)


def test_one_table_one_per_report(
    kind_logs: Mapping[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Table 1, the evaluation report and the paper's references read one Table 1, computed
    once (its PSI bootstrap is the report's slowest table), so their numbers agree."""
    computed, made = tables.table_one, []

    def counted(units: Any) -> pd.DataFrame:
        made.append(units)
        return computed(units)

    monkeypatch.setattr(tables, "table_one", counted)
    options = ReportOptions(out=tmp_path, figures=False)
    titles = ["Table 1", REPORT, "Beside the paper"]
    report = report_data(load_inputs([str(kind_logs["full"])], options), options, titles)
    assert report.sections == titles and len(made) == 1
    table_one = report.frames["table1"].set_index("run")
    means = {"goal_judge_majority": "judge_majority_mean", "mcq_accuracy": "mcq_accuracy_mean"}
    shown = report.frames["evaluation_report"]
    assert set(shown["score"]) == set(means)
    for row in shown.itertuples():
        assert row.agentsense == round(100 * table_one.loc[row.model, means[row.score]], 2)
