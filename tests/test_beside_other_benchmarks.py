"""AgentSense beside another benchmark in one run (issue 53): each task with its own arguments
and model roles, through the Flow spec of flows/ and through the Python API, next to inspect_evals
tasks that ship their data (offline, on the stub); `agentsense report` on the mixed folder reads
AgentSense's logs and sets the others aside with a note; a peer's role bound to an AgentSense task
(AGENTSENSE_OTHER_ROLES) is no part of its run.

`inspect eval-set agentsense/goal inspect_evals/persistbench_cross_domain -T dataset=demo` gives
PersistBench `dataset=demo` too (FileNotFoundError): the spec gives each task its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval_set
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log, write_eval_log
from inspect_ai.model import ModelConfig
from inspect_evals.persistbench.prompts import JUDGE_CONFIGS

from agentsense.analysis.log_reader import load_runs
from agentsense.analysis.logs import records
from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions
from agentsense.standin.rules import Request, persona
from agentsense.standin.stub.harness import CliResult
from agentsense.standin.stub.server import StubServer
from flow_runs import FLOWS, flow, flow_check, flow_env, spec_task_fields, spec_tasks
from fresh_process import in_fresh_process

SPEC = FLOWS / "beside_other_benchmarks.yaml"
LIMIT = 2  # samples of each task
GOAL = "agentsense/goal"
PERSISTBENCH = "inspect_evals/persistbench_cross_domain"
THREAT = "inspect_evals/agent_threat_bench_memory_poison"
# The roles each task's calls were made on (`stats.role_usage`): its own, never the other's.
ROLES_CALLED = {GOAL: {"character", "judge"}, PERSISTBENCH: {"grader"}, THREAT: set()}


def peer_rule(request: Request) -> str:
    """The stand-in persona, and a verdict in JSON to PersistBench's judge (its `grader`)."""
    for config in JUDGE_CONFIGS.values():
        if request.system == config.system_prompt:
            reply = {config.score_field: 1, "reasoning": "No unrelated memory is used."}
            return json.dumps(reply)
    return persona(request)


@pytest.fixture(scope="module")
def peer_stub() -> Iterator[StubServer]:
    with StubServer(rule=peer_rule) as stub:
        yield stub


def headers(log_dir: Path) -> dict[str, EvalLog]:
    """Each task's log header in the folder, by task name (one log per task)."""
    logs = [read_eval_log(info.name, header_only=True) for info in list_eval_logs(str(log_dir))]
    by_task = {log.eval.task: log for log in logs}
    assert len(by_task) == len(logs), sorted(log.eval.task for log in logs)
    return by_task


def bound(log: EvalLog) -> dict[str, Any]:
    """The log's model roles as the spec writes them: a model name, or a list of them."""
    return {
        role: [c.model for c in value] if isinstance(value, list) else value.model
        for role, value in (log.eval.model_roles or {}).items()
    }


def assert_each_task_had_its_own(log_dir: Path) -> dict[str, EvalLog]:
    """Every task of the spec ran, finished, with its arguments, model and roles, no other's."""
    logs = headers(log_dir)
    fields = {task["name"]: task for task in spec_task_fields(SPEC)}
    assert sorted(logs) == sorted(fields)
    for name, task in fields.items():
        log = logs[name]
        assert log.status == "success", (name, log.error)
        assert log.eval.model == task["model"]
        assert bound(log) == (task.get("model_roles") or {}), name
        for argument, value in (task.get("args") or {}).items():
            assert log.eval.task_args[argument] == value, (name, argument)
        assert log.results is not None and log.results.completed_samples > 0
        assert set(log.stats.role_usage) == ROLES_CALLED[name], name
    # What `-T dataset=demo` would have broken: PersistBench read its own bundled file.
    assert logs[GOAL].eval.task_args["dataset"] == "demo"
    assert str(logs[PERSISTBENCH].eval.task_args["dataset"]).endswith("cross_domain.jsonl")
    return logs


# --- the Flow spec -----------------------------------------------------------------------------


@dataclass
class FlowRun:
    result: CliResult
    root: Path
    log_dir: Path
    env: dict[str, str]


@pytest.fixture(scope="module")
def flow_run(peer_stub: StubServer, tmp_path_factory: pytest.TempPathFactory) -> FlowRun:
    """`flow run flows/beside_other_benchmarks.yaml` as shipped, its models on the stub."""
    root = tmp_path_factory.mktemp("flow")
    log_dir = root / "logs"
    env = flow_env(root, peer_stub.base_url)
    options = ["--log-dir", str(log_dir), "--limit", str(LIMIT), "--display", "plain"]
    return FlowRun(flow("run", SPEC, root, env, *options), root, log_dir, env)


@pytest.mark.slow
def test_the_flow_spec_runs_each_task_with_its_own_arguments_and_roles(flow_run: FlowRun) -> None:
    assert flow_run.result.returncode == 0, flow_run.result.output[-3000:]
    assert_each_task_had_its_own(flow_run.log_dir)
    # Flow's own files stay in the sandbox's data folder, not ~/.local/share.
    assert (flow_run.root / "xdg_data_home" / "inspect_flow").is_dir()


@pytest.mark.slow
def test_flow_check_finds_every_task_of_the_spec_complete(flow_run: FlowRun) -> None:
    checked = flow_check(SPEC, flow_run.root, flow_run.env, flow_run.log_dir, "--limit", str(LIMIT))
    assert checked["summary"] == {"total": 3, "complete": 3, "incomplete": 0}


@pytest.mark.slow
def test_the_report_reads_agentsense_logs_and_sets_the_others_aside(
    flow_run: FlowRun, tmp_path: Path
) -> None:
    logs = headers(flow_run.log_dir)
    report = write_report([str(flow_run.log_dir)], ReportOptions(tmp_path, figures=False))
    model = logs[GOAL].eval.model
    assert report.runs == [f"goal {model}: 1 log, {LIMIT} scenes, scoring goal_completion"]
    (note,) = [note for note in report.notes if note.startswith("Left out, not logs of")]
    for name in (PERSISTBENCH, THREAT):
        log_file = Path(logs[name].location).name
        assert f"{log_file} (task '{name.split('/')[-1]}')" in note
    assert note in (tmp_path / "report.md").read_text(encoding="utf-8")


# --- the Python API ----------------------------------------------------------------------------


def run_spec_tasks(spec: str, log_dir: str, base_url: str) -> bool:
    """`eval_set` of the spec's tasks, each built with its own arguments and roles (in a fresh
    process: Inspect keeps the first base URL of each `vllm/` model name per process)."""
    import os

    os.environ.update({"VLLM_BASE_URL": base_url, "VLLM_API_KEY": "stub"})
    done, _ = eval_set(spec_tasks(Path(spec)), log_dir=log_dir, limit=LIMIT, display="none")
    return done


@pytest.mark.slow
def test_the_python_api_runs_the_same_tasks_each_with_its_own(
    peer_stub: StubServer, tmp_path: Path
) -> None:
    log_dir = tmp_path / "logs"
    assert in_fresh_process(run_spec_tasks, str(SPEC), str(log_dir), peer_stub.base_url)
    assert_each_task_had_its_own(log_dir)


def test_a_field_the_python_api_cannot_carry_over_is_refused_by_name(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("tasks:\n  - name: agentsense/goal\n    epochs: 2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"spec\.yaml, task 1: epochs not carried over"):
        spec_task_fields(spec)


# --- a peer's role is no part of AgentSense's run ----------------------------------------------


def with_roles(path: Path, out: Path, **roles: str) -> Path:
    """A copy of the log as another run of it with more roles bound (a new eval id)."""
    log = read_eval_log(str(path))
    log.eval.eval_id = f"{log.eval.eval_id}-beside"
    extra = {role: ModelConfig(model=model) for role, model in roles.items()}
    log.eval.model_roles = {**(log.eval.model_roles or {}), **extra}
    write_eval_log(log, str(out))
    return out


@pytest.mark.parametrize(("kind", "role"), [("goal", "grader"), ("info", "judge")])
def test_a_role_the_task_does_not_use_is_no_part_of_its_run(
    kind_logs: dict[str, Path], tmp_path: Path, kind: str, role: str
) -> None:
    """The same run with and without a peer's `grader` (AGENTSENSE_OTHER_ROLES=grader), or with
    goal's judges bound to info in one eval-set, is one run, not two identical `Run:` lines."""
    alone = kind_logs[kind]
    beside = with_roles(alone, tmp_path / f"{kind}-beside.eval", **{role: "vllm/peer"})
    runs = load_runs([str(alone), str(beside)])
    (run,) = records(runs.evals)
    assert role not in run["roles"]
    (note,) = [note for note in runs.notes if "merged into one run" in note]
    assert "identical duplicate sample(s) kept once" in note
    report = write_report([str(alone), str(beside)], ReportOptions(tmp_path / "out", figures=False))
    assert len(report.runs) == 1
    assert "vllm/peer" not in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
