"""`agentsense eval-parts`: a task as N `-T shard=k/N` processes sharing the server's capacity and
one log folder; the cluster recipes in deploy/ launch the same parts; a failed part is resumed
with the `inspect eval-retry` line it prints, and the parts' report equals a one-process run's."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psutil
import pytest
import yaml
from inspect_ai.log import read_eval_log

from agentsense import cli, parts
from agentsense.sense.dataset.samples import demo_path
from agentsense.sense.dataset.selection import parse_shard
from agentsense.standin.stub import Faults
from agentsense.standin.stub.pytest_plugin import StubFactory

ROOT = Path(__file__).parent.parent
DEPLOY = ROOT / "deploy"
AGENTSENSE = str(Path(sys.executable).parent / "agentsense")


@pytest.fixture(autouse=True)
def no_totals_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The totals Inspect's CLI reads from the environment are split too: none from outside."""
    for name in parts.SPLIT.values():
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("total", "count"), [(64, 1), (64, 2), (64, 3), (7, 7), (10, 4), (1000, 24)]
)
def test_shares_add_up_to_the_total_and_differ_by_at_most_one(total: int, count: int) -> None:
    shares = parts.split(total, count)
    assert len(shares) == count and sum(shares) == total
    assert min(shares) >= 1 and max(shares) - min(shares) <= 1


def dry_run(capsys: pytest.CaptureFixture[str], *argv: str) -> list[list[str]]:
    assert cli.main(["eval-parts", *argv, "--dry-run"]) == cli.EXIT_OK
    return [shlex.split(line) for line in capsys.readouterr().out.splitlines()]


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def shard(command: list[str]) -> str:
    (value,) = [a for a in command if a.startswith("shard=")]
    return value.removeprefix("shard=")


def test_local_dry_run_prints_one_command_per_part(capsys: pytest.CaptureFixture[str]) -> None:
    commands = dry_run(
        capsys,
        "agentsense/full",
        "--processes",
        "3",
        "-T",
        "dataset=demo",
        "--model",
        "standin/persona/agent",
        "--max-connections",
        "64",
        "--max-samples=10",
        "--log-dir",
        "logs/run1",
    )
    assert [shard(c) for c in commands] == ["1/3", "2/3", "3/3"]
    assert sum(int(option(c, "--max-connections")) for c in commands) == 64
    assert [int(option(c, "--max-samples")) for c in commands] == [4, 3, 3]
    assert {option(c, "--log-dir") for c in commands} == {"logs/run1"}
    for command in commands:
        assert command[:3] == ["inspect", "eval", "agentsense/full"]
        assert option(command, "--model") == "standin/persona/agent"
        assert command.count("--max-connections") == 1 and command.count("--max-samples") == 1


def test_the_default_is_one_part_per_core_in_inspects_log_folder(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("INSPECT_LOG_DIR", raising=False)
    commands = dry_run(capsys, "agentsense/full", "--max-connections", "512")
    assert len(commands) == (os.cpu_count() or 1)
    assert {option(c, "--log-dir") for c in commands} == {"./logs"}
    monkeypatch.setenv("INSPECT_LOG_DIR", "/shared/logs")
    (command, *_) = dry_run(capsys, "agentsense/full")
    assert option(command, "--log-dir") == "/shared/logs"  # every part names it


def test_the_environments_totals_are_split_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inspect's CLI reads INSPECT_EVAL_MAX_CONNECTIONS / _MAX_SAMPLES when the option is not
    given: inherited by every part, each would take the whole; so each part is given its share as
    the option instead (which Inspect's CLI prefers to the variable)."""
    monkeypatch.setenv("INSPECT_EVAL_MAX_CONNECTIONS", "64")
    monkeypatch.setenv("INSPECT_EVAL_MAX_SAMPLES", "10")
    commands = dry_run(capsys, "agentsense/full", "--processes", "3")
    assert [int(option(c, "--max-connections")) for c in commands] == [22, 21, 21]
    assert [int(option(c, "--max-samples")) for c in commands] == [4, 3, 3]
    # An option given beats the variable, as in Inspect's CLI.
    commands = dry_run(capsys, "agentsense/full", "--processes", "2", "--max-connections", "8")
    assert [int(option(c, "--max-connections")) for c in commands] == [4, 4]
    assert [int(option(c, "--max-samples")) for c in commands] == [5, 5]
    monkeypatch.setenv("INSPECT_EVAL_MAX_SAMPLES", "")  # empty is unset, as for Inspect's CLI
    (command, _) = dry_run(capsys, "agentsense/full", "--processes", "2")
    assert "--max-samples" not in command


def test_one_part_runs_alone(capsys: pytest.CaptureFixture[str]) -> None:
    (command,) = dry_run(capsys, "agentsense/full", "--part", "2", "--processes", "4")
    assert shard(command) == "2/4"
    assert "--max-connections" not in command  # not given: nothing to split


def run_recipe(
    shell: list[str], index_env: dict[str, str], tmp_path: Path, cwd: Path | None = None
) -> list[str]:
    """The `agentsense` command line a recipe's shell would start, with this index's variable."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    record = tmp_path / "argv"
    shim = bin_dir / "agentsense"
    shim.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {record}\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", **index_env}
    subprocess.run(shell, env=env, check=True, timeout=30, cwd=cwd)
    return record.read_text(encoding="utf-8").splitlines()


def check_parts(
    argvs: list[list[str]], count: int, task: str = "agentsense/full", connections: int = 64
) -> list[list[str]]:
    """Every index runs one part; together they run each shard of `count` once, sharing the
    connections; the parts' commands."""
    plans = [parts.from_args(cli.parser().parse_args(argv)) for argv in argvs]
    assert len(plans) == count
    commands = [p.commands[k] for p in plans for k in p.parts]
    assert sorted(shard(c) for c in commands) == sorted(f"{k}/{count}" for k in range(1, 1 + count))
    assert sum(int(option(c, "--max-connections")) for c in commands) == connections
    assert len({option(c, "--log-dir") for c in commands}) == 1
    for command in commands:
        parse_shard(shard(command))
        assert command[:3] == ["inspect", "eval", task]
    return commands


def test_the_slurm_array_runs_each_part_once(tmp_path: Path) -> None:
    script = (DEPLOY / "slurm.sbatch").read_text(encoding="utf-8")
    first, last = map(int, re.search(r"#SBATCH --array=(\d+)-(\d+)", script).groups())  # type: ignore[union-attr]
    argvs = [
        run_recipe(
            ["bash", str(DEPLOY / "slurm.sbatch")], {"SLURM_ARRAY_TASK_ID": str(i)}, tmp_path
        )
        for i in range(first, last + 1)
    ]
    check_parts(argvs, last - first + 1)


def kubernetes_job() -> tuple[dict[str, Any], list[str], dict[str, str]]:
    """The Indexed Job, its container's shell command and the environment it gives it."""
    job = yaml.safe_load((DEPLOY / "k8s-indexed-job.yaml").read_text(encoding="utf-8"))
    (container,) = job["spec"]["template"]["spec"]["containers"]
    env = {item["name"]: item["value"] for item in container["env"]}
    return job, [*container["command"], *container["args"]], env


def test_the_kubernetes_indexed_job_runs_each_part_once(tmp_path: Path) -> None:
    job, shell, env = kubernetes_job()
    assert job["spec"]["completionMode"] == "Indexed"
    count = job["spec"]["completions"]
    assert env["AGENTSENSE_PARTS"] == str(count)  # one completion index per part
    argvs = [
        run_recipe(shell, {**env, "JOB_COMPLETION_INDEX": str(i)}, tmp_path) for i in range(count)
    ]
    check_parts(argvs, count)


# What a user sets instead of editing a recipe (deploy/slurm.sbatch lists them).
VARIABLES = {
    "AGENTSENSE_PARTS": "3",
    "AGENTSENSE_TASK": "agentsense/goal",
    "AGENTSENSE_MODEL": "vllm/agent",
    "AGENTSENSE_JUDGES": "vllm/judge-a,vllm/judge-b",
    "AGENTSENSE_DATASET": "demo",
    "AGENTSENSE_LOG_DIR": "/shared/logs/run2",
    "AGENTSENSE_ARGS": "--max-connections 9 --limit 5 --sample-id 1*",
}


@pytest.mark.parametrize(
    ("recipe", "judges"),
    [
        ("slurm", "vllm/judge-a,vllm/judge-b"),
        ("slurm", "vllm/judge-a vllm/judge-b"),  # sbatch --export cannot pass a comma
        ("kubernetes", "vllm/judge-a,vllm/judge-b"),
    ],
)
def test_both_recipes_run_what_the_environment_says(
    recipe: str, judges: str, tmp_path: Path
) -> None:
    """The same variables in both recipes, AGENTSENSE_ARGS split into options, never globbed."""
    variables = {**VARIABLES, "AGENTSENSE_JUDGES": judges}
    (tmp_path / "1-a-file").touch()  # what `1*` would match, were it globbed
    if recipe == "slurm":
        shell, index = ["bash", str(DEPLOY / "slurm.sbatch")], "SLURM_ARRAY_TASK_ID"
        ids = [str(k) for k in (1, 2, 3)]
        variables["SLURM_ARRAY_TASK_COUNT"] = "3"
    else:
        _, shell, env = kubernetes_job()
        variables = {**env, **variables}
        index, ids = "JOB_COMPLETION_INDEX", ["0", "1", "2"]
    argvs = [run_recipe(shell, {**variables, index: i}, tmp_path, cwd=tmp_path) for i in ids]
    commands = check_parts(argvs, 3, task="agentsense/goal", connections=9)
    for command in commands:
        assert option(command, "--model") == "vllm/agent"
        assert option(command, "--model-role") == "judge=vllm/judge-a,vllm/judge-b"
        assert "dataset=demo" in command and option(command, "--log-dir") == "/shared/logs/run2"
        assert option(command, "--limit") == "5" and option(command, "--sample-id") == "1*"
        assert command.count("--max-connections") == 1


def test_the_slurm_recipe_says_when_the_array_and_the_parts_differ(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    env = {"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2", "AGENTSENSE_PARTS": "8"}
    (argv,) = [run_recipe(["bash", str(DEPLOY / "slurm.sbatch")], env, tmp_path)]
    assert option(argv, "--processes") == "8" and option(argv, "--part") == "1"
    assert "this array has 2 indices for AGENTSENSE_PARTS=8 parts" in capfd.readouterr().err


CONNECTIONS, SAMPLES = parts.SPLIT.values()


@pytest.mark.parametrize(
    ("argv", "message", "environ"),
    [
        (["--processes", "0"], "--processes 0: give at least 1", {}),
        (["--processes", "two"], "argument --processes: invalid int value", {}),
        (["--part", "2"], "--part needs --processes N", {}),
        (["--processes", "2", "--part", "3"], "--part 3: give 1 <= K <= 2", {}),
        (["--processes", "4", "--max-connections", "3"], "give --max-connections >= 4", {}),
        (["--processes", "2", "--max-samples", "1"], "--max-samples 1 is fewer than the 2", {}),
        (["--processes", "2", "-T", "shard=1/2"], "-T shard is set by eval-parts", {}),
        (
            ["--processes", "4"],
            f"{CONNECTIONS}=3 is fewer than the 4 parts: each part needs at least one; give "
            "--max-connections >= 4",
            {CONNECTIONS: "3"},
        ),
        (["--processes", "2"], f"{SAMPLES}=many: give a whole number", {SAMPLES: "many"}),
    ],
)
def test_bad_arguments_stop_before_anything_is_launched(
    argv: list[str],
    message: str,
    environ: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_launch(*args: object, **kwargs: object) -> None:
        raise AssertionError("launched")

    monkeypatch.setattr(subprocess, "Popen", no_launch)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert cli.main(["eval-parts", "agentsense/full", *argv]) == cli.EXIT_ERROR
    error = capsys.readouterr().err
    assert error.startswith("agentsense eval-parts: error: ") and message in error, error
    assert "Traceback" not in error


@pytest.mark.parametrize("runner", ["false", "true"])
def test_a_part_that_writes_no_log_failed_and_says_how_to_see_why(
    runner: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A part stopped before its run (exit 1, nothing shown under --display none), or one that
    exits 0 without a log: neither is a success; the line to rerun it shows the error."""
    found = shutil.which(runner)
    assert found is not None
    monkeypatch.setattr(parts, "_inspect", lambda: found)
    argv = ["eval-parts", "agentsense/full", "--processes", "2", "--log-dir", str(tmp_path)]
    assert cli.main(argv) == parts.EXIT_PART_FAILED
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for k, line in enumerate(lines, 1):
        head, command = line.split(": no log written; see why with: ")
        again = shlex.split(command)
        assert head == f"part {k}" and shard(again) == f"{k}/2"
        assert again.count("--display") == 1 and option(again, "--display") == "plain"


# --- end to end: the real CLI with the stand-in models -----------------------------------------

SCENES = {101, 102, 301, 302}  # two templates, two scenes each
RUN = [
    "--model",
    "standin/persona/agent",
    "--model-role",
    "judge=standin/persona/judge-a,standin/persona/judge-b",
]


def four_scenes(tmp_path: Path, scenes: set[int] = SCENES) -> Path:
    lines = demo_path().read_text(encoding="utf-8").splitlines()
    path = tmp_path / "scenes.jsonl"
    kept = [line for line in lines if any(f'"sample_idx": {i},' in line for i in scenes)]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return path


def eval_parts(dataset: Path, log_dir: Path, *options: str) -> list[str]:
    return [
        AGENTSENSE,
        "eval-parts",
        "agentsense/full",
        "-T",
        f"dataset={dataset}",
        *RUN,
        "--log-dir",
        str(log_dir),
        *options,
    ]


def table_one(logs: Path, out: Path) -> str:
    done = subprocess.run(
        [AGENTSENSE, "report", str(logs), "--out", str(out), "--no-figures"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return (out / "table1.csv").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("one")
    dataset = four_scenes(tmp)
    command = eval_parts(dataset, tmp / "logs", "--processes", "1", "--max-connections", "8")
    subprocess.run(command, check=True, timeout=600)
    table = table_one(tmp / "logs", tmp / "report")
    assert "judge" in table  # a judged Table 1, not an empty one
    return dataset, table


@pytest.mark.slow
def test_two_parts_give_the_one_process_table_one(
    one_process: tuple[Path, str], tmp_path: Path
) -> None:
    dataset, table = one_process
    command = eval_parts(dataset, tmp_path / "logs", "--processes", "2", "--max-connections", "8")
    # The variables Inspect's CLI reads: a total split as the option's (samples), one beaten by
    # the option given (connections).
    env = {**os.environ, "INSPECT_EVAL_MAX_SAMPLES": "4", "INSPECT_EVAL_MAX_CONNECTIONS": "1000"}
    subprocess.run(command, env=env, check=True, timeout=600)
    logs = [read_eval_log(str(p), header_only=True) for p in (tmp_path / "logs").glob("*.eval")]
    assert len(logs) == 2
    assert [(log.plan.config.max_connections, log.eval.config.max_samples) for log in logs] == [
        (4, 2),
        (4, 2),
    ]
    assert table_one(tmp_path / "logs", tmp_path / "report") == table  # to the last digit


@pytest.mark.slow
def test_a_killed_part_is_resumed_with_the_printed_line(
    one_process: tuple[Path, str], tmp_path: Path
) -> None:
    dataset, table = one_process
    logs = tmp_path / "logs"
    # One sample at a time per part, so part 2 is still running when it is killed.
    command = eval_parts(dataset, logs, "--processes", "2", "--max-samples", "2")
    runner = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    victim = None
    deadline = time.monotonic() + 300
    while victim is None and time.monotonic() < deadline:
        children = psutil.Process(runner.pid).children(recursive=True)
        named = [c for c in children if "shard=2/2" in " ".join(c.cmdline())]
        if named and len(list(logs.glob("*.eval"))) == 2:  # part 2's log is written
            victim = named[0]
        time.sleep(0.05)
    assert victim is not None, "part 2 never started"
    victim.kill()  # as a preempted cluster node would
    out, _ = runner.communicate(timeout=600)
    assert runner.returncode == parts.EXIT_PART_FAILED
    (line,) = [line for line in out.splitlines() if "eval-retry" in line]
    assert line.startswith("part 2: resume with: inspect eval-retry ")
    resume = shlex.split(line.split(": resume with: ", 1)[1])
    assert resume[-2:] == ["--log-dir", str(logs)]
    inspect = shutil.which("inspect", path=str(Path(sys.executable).parent))
    assert inspect is not None
    done = subprocess.run([inspect, *resume[1:], "--display", "none"], timeout=600)
    assert done.returncode == 0
    assert Counter(p.suffix for p in logs.iterdir())[".eval"] == 3  # the retry is a new log
    assert table_one(logs, tmp_path / "report") == table


@pytest.mark.slow
def test_a_part_whose_eval_ends_in_error_is_a_failed_part(
    stub_server: StubFactory, tmp_path: Path
) -> None:
    """`inspect eval` exits 0 when its eval ends in error (docs/reliability.md): eval-parts reads
    each part's log status, so a server answering broken JSON fails every part."""
    broken = stub_server(faults=Faults(malformed=1.0))
    logs = tmp_path / "logs"
    command = [
        AGENTSENSE,
        "eval-parts",
        "agentsense/full",
        "-T",
        f"dataset={four_scenes(tmp_path, {101, 301})}",  # one scene per part
        "--model",
        "vllm/agent",
        "--model-role",
        "judge=vllm/judge-a",
        "--processes",
        "2",
        "--max-connections",
        "2",
        "--log-dir",
        str(logs),
    ]
    env = {**os.environ, "VLLM_BASE_URL": broken.base_url}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == parts.EXIT_PART_FAILED, done.stderr[-3000:]
    assert "exit 0, log error" in done.stderr  # the process said success, the log did not
    lines = [line for line in done.stdout.splitlines() if "eval-retry" in line]
    assert [line.split(":")[0] for line in lines] == ["part 1", "part 2"], done.stdout + done.stderr
    for line in lines:
        resume = shlex.split(line.split(": resume with: ", 1)[1])
        assert resume[:2] == ["inspect", "eval-retry"] and resume[-2:] == ["--log-dir", str(logs)]
        assert read_eval_log(resume[2], header_only=True).status == "error"


def test_a_terminated_eval_parts_ends_its_parts_and_says_how_to_rerun_them(
    tmp_path: Path,
) -> None:
    """SIGTERM to eval-parts alone (Kubernetes signals a container's first process only; Slurm
    every process of the job) reaches its parts, and it still prints each part's line."""
    fake = tmp_path / "inspect"
    fake.write_text("#!/bin/sh\nexec sleep 120\n", encoding="utf-8")  # a part that runs on
    fake.chmod(0o755)
    argv = ["eval-parts", "agentsense/full", "--processes", "2", "--log-dir", str(tmp_path)]
    code = (
        f"from agentsense import cli, parts; parts._inspect = lambda: {str(fake)!r}; "
        f"raise SystemExit(cli.main({argv!r}))"
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        sleeping = [c for c in psutil.Process(runner.pid).children() if c.name() == "sleep"]
        if len(sleeping) == 2:
            break
        time.sleep(0.05)
    assert len(sleeping) == 2, "the parts never started"
    runner.terminate()
    out, err = runner.communicate(timeout=30)  # not the parts' 120 s
    assert runner.returncode == parts.EXIT_PART_FAILED, err
    assert [line.split(":")[0] for line in out.splitlines()] == ["part 1", "part 2"], out + err
    assert not any(c.is_running() and c.status() != psutil.STATUS_ZOMBIE for c in sleeping)
