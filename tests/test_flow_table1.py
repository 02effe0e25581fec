"""flows/table1.py, the paper's Table 1 as one Inspect Flow spec (issue 54), run as a user runs
it: offline, every model of the spec a name on the stub, Flow in the current environment
(`execution_type="inproc"`), at `--limit 1` on the demo data; `flow check` after a partial run
(some tasks' logs missing) names what is missing, a second `flow run` runs only those, and
`agentsense report` reads the logs as Table 1, one row per model, the judges named; with faults
(HTTP 500, unanswered calls) and the flow process killed midway, running it again finishes the
job and Table 1 is the fault-free run's.

`flow run` needs `uv` on PATH (it runs `uv pip freeze`/`uv pip compile` to write
flow-requirements.txt) and, offline, UV_OFFLINE=1 so that the compile fails at once (a warning)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import inspect_flow  # noqa: F401  (the dev extra installs it: missing, this file fails)
import pytest
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions
from agentsense.sense.reference.model_names import paper_model
from agentsense.standin.stub.faults import Faults
from agentsense.standin.stub.harness import InspectCLI
from agentsense.standin.stub.server import StubServer
from file_modules import file_module

SPEC = Path(__file__).resolve().parent.parent / "flows" / "table1.py"
LIMIT = 1
MISSING = 3  # logs removed to make the partial run


def load_spec_module() -> ModuleType:
    """flows/table1.py as a module: its model lists and its `table1` function."""
    return file_module(SPEC, "flows_table1")


TABLE1 = load_spec_module()
MODELS: list[str] = TABLE1.MODELS


@dataclass
class FlowRun:
    root: Path
    log_dir: Path
    env: dict[str, str]

    def flow(self, command: str, *options: str) -> subprocess.CompletedProcess[str]:
        """`flow COMMAND flows/table1.py --arg dataset=demo --log-dir LOGS OPTIONS`."""
        args = [str(Path(sys.executable).with_name("flow")), command, str(SPEC)]
        args += ["--arg", "dataset=demo", "--log-dir", str(self.log_dir), *options]
        return subprocess.run(
            args, env=self.env, cwd=self.root, capture_output=True, text=True, timeout=1200
        )

    def check(self) -> dict[str, Any]:
        done = self.flow("check", "--json", "--limit", str(LIMIT))
        start = done.stdout.find("{")
        assert start >= 0, done.stdout + done.stderr
        checked: dict[str, Any] = json.loads(done.stdout[start:])
        return checked

    def logs(self) -> dict[str, EvalLog]:
        """The folder's log headers by file name."""
        return {
            Path(info.name).name: read_eval_log(info.name, header_only=True)
            for info in list_eval_logs(str(self.log_dir))
        }


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


def sandboxed(root: Path, base_url: str) -> FlowRun:
    """A run of the spec in `root` (no `.env` above it), every model on `base_url`."""
    bin_dir = str(Path(sys.executable).parent)  # the venv's `flow` and `uv`
    extra = {"UV_OFFLINE": "1", "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    env = InspectCLI.sandbox_env(root, {**TABLE1.server_variables(base_url, "stub"), **extra})
    return FlowRun(root, root / "logs", env)


@pytest.fixture(scope="module")
def flow_run(stub: StubServer, tmp_path_factory: pytest.TempPathFactory) -> FlowRun:
    run = sandboxed(tmp_path_factory.mktemp("table1"), stub.base_url)
    done = run.flow("run", "--limit", str(LIMIT), "--display", "plain")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return run


def test_every_model_of_the_spec_maps_to_its_paper_name() -> None:
    """The spec's serving names are the ones the report maps back to the paper's rows."""
    for paper, model in TABLE1.PAPER_MODELS.items():
        mapped = paper_model(model)
        assert mapped is not None and mapped.casefold() == paper.casefold(), model
    assert all(paper_model(model) is None for model in TABLE1.LAB_MODELS)
    assert len(TABLE1.PAPER_MODELS) == 11 and len(TABLE1.LAB_MODELS) == 3


@pytest.mark.slow
def test_flow_runs_every_model_on_both_tasks_with_the_panel(flow_run: FlowRun) -> None:
    logs = list(flow_run.logs().values())
    ran = sorted((log.eval.task, log.eval.model) for log in logs)
    tasks = ["agentsense/blind", "agentsense/full"]
    assert ran == sorted((task, model) for task in tasks for model in MODELS)
    for log in logs:
        assert log.status == "success", log.error
        assert log.eval.task_args["dataset"] == "demo"
        roles = log.eval.model_roles or {}
        if log.eval.task == "agentsense/full":
            judges = roles["judge"]
            assert isinstance(judges, list)
            assert [judge.model for judge in judges] == TABLE1.JUDGES
        else:
            assert "judge" not in roles
    # Flow kept its files in the sandbox's data folder.
    assert (flow_run.root / "xdg_data_home" / "inspect_flow").is_dir()


@pytest.mark.slow
def test_flow_check_names_what_a_partial_run_misses_and_a_rerun_runs_only_that(
    flow_run: FlowRun,
) -> None:
    total = 2 * len(MODELS)
    before = flow_run.logs()
    removed = sorted(before)[:MISSING]
    for name in removed:
        (flow_run.log_dir / name).unlink()
    assert flow_run.check()["summary"] == {
        "total": total,
        "complete": total - MISSING,
        "incomplete": MISSING,
    }
    done = flow_run.flow("run", "--limit", str(LIMIT), "--display", "plain")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    after = flow_run.logs()
    kept = {name: log.eval.eval_id for name, log in before.items() if name not in removed}
    assert {name: after[name].eval.eval_id for name in kept} == kept  # not run again
    assert len(after) == total
    assert flow_run.check()["summary"] == {"total": total, "complete": total, "incomplete": 0}


@pytest.mark.slow
def test_the_report_reads_the_spec_logs_as_table_1(flow_run: FlowRun, tmp_path: Path) -> None:
    write_report([str(flow_run.log_dir)], ReportOptions(tmp_path, figures=False))
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    section = text.split("## Table 1", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    head, body = rows[0], rows[1:]
    assert sorted(row.split(" | ")[0].removeprefix("| ") for row in body) == sorted(MODELS)
    for judge in TABLE1.JUDGES:
        assert f"judge: {judge}" in head
    assert "Blind" in head  # the blind column, from the same model's blind log
    why = "demo data (-T dataset=demo), not the official set"
    assert f"No paper value beside the {len(MODELS)} rows" in section and why in section


def table_one_csv(log_dir: Path, out: Path) -> str:
    write_report([str(log_dir)], ReportOptions(out, figures=False))
    return (out / "table1.csv").read_text(encoding="utf-8")


def finished(run: FlowRun) -> int:
    """Logs of the folder that are finished (a log being written may not read yet)."""
    count = 0
    for info in list_eval_logs(str(run.log_dir)):
        try:
            count += read_eval_log(info.name, header_only=True).status == "success"
        except Exception:  # written at this moment
            continue
    return count


@pytest.mark.slow
def test_faults_and_a_kill_midway_leave_table_1_as_the_fault_free_run(
    flow_run: FlowRun, tmp_path: Path
) -> None:
    """The stub fails 2% of calls with HTTP 500 and leaves 0.5% unanswered (closed after 2 s);
    the flow process is killed with SIGKILL once a few tasks are done; `flow run` again (the
    documented resume) finishes every task, no scene twice, and Table 1 is the fault-free
    run's to the last digit."""
    faults = Faults(error_500=0.02, hang=0.005, hang_seconds=2.0, seed=3)
    with StubServer(faults=faults) as faulty:
        run = sandboxed(tmp_path / "faulty", faulty.base_url)
        run.root.mkdir()
        args = [str(Path(sys.executable).with_name("flow")), "run", str(SPEC), "--arg"]
        args += ["dataset=demo", "--log-dir", str(run.log_dir), "--limit", str(LIMIT)]
        process = subprocess.Popen(
            [*args, "--display", "plain"],
            env=run.env,
            cwd=run.root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 600
        while finished(run) < 4 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        assert process.poll() is None, "the run ended before it could be killed midway"
        process.kill()  # SIGKILL: no clean-up of any kind
        process.wait()
        assert finished(run) < 2 * len(MODELS)
        done = run.flow("run", "--limit", str(LIMIT), "--display", "plain")
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        served = faulty.outcomes()
        assert served["error_500"] > 0 and served["hang"] > 0, served  # the faults did happen
    total = 2 * len(MODELS)
    assert run.check()["summary"] == {"total": total, "complete": total, "incomplete": 0}
    # Every task once, each sample scored once: as many as in the fault-free run's log.
    samples = {
        (log.eval.task, log.eval.model): log.results.completed_samples
        for log in flow_run.logs().values()
        if log.results is not None
    }
    faulty_samples = {
        (log.eval.task, log.eval.model): log.results.completed_samples
        for log in run.logs().values()
        if log.status == "success" and log.results is not None
    }
    assert faulty_samples == samples and len(samples) == total
    assert table_one_csv(run.log_dir, tmp_path / "faulty-report") == table_one_csv(
        flow_run.log_dir, tmp_path / "report"
    )
