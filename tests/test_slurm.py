"""deploy/slurm.sbatch on a real Slurm: a one-node cluster (deploy/slurm-local.sh) runs the
recipe unedited, `sbatch --array=1-2 --export=ALL,AGENTSENSE_PARTS=2,... deploy/slurm.sbatch`,
`agentsense/full` on the demo set against the stub server; the report of the shared log folder
equals a one-process run's Table 1, also when one index is cancelled midway (`scancel`) and
resumed with the `inspect eval-retry` line its output file prints.

Run as root (the script starts the daemons as root and installs Slurm from Debian if missing):
`pytest -m slurm tests/test_slurm.py` (README, 'Development'). The cluster is started for the
module and stopped after it, unless it was already up.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

from agentsense.standin.stub.server import StubServer

pytestmark = pytest.mark.slurm

ROOT = Path(__file__).parent.parent
LOCAL = ROOT / "deploy" / "slurm-local.sh"
SBATCH = ROOT / "deploy" / "slurm.sbatch"
BIN = Path(sys.executable).parent  # agentsense and inspect of this environment
JOBCOMP = Path(os.environ.get("AGENTSENSE_SLURM_DIR", "/tmp/agentsense-slurm")) / "jobcomp.log"
JOBCOMP_FROM: list[int] = []  # its size when the module's cluster was ready
RUN = {
    "AGENTSENSE_PARTS": "2",
    "AGENTSENSE_TASK": "agentsense/full",
    "AGENTSENSE_MODEL": "vllm/agent",
    "AGENTSENSE_JUDGES": "vllm/judge-a vllm/judge-b",  # --export values hold no comma
    "AGENTSENSE_DATASET": "demo",
}


def shell(*argv: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, timeout=600, cwd=cwd, env=env
    )
    assert done.returncode == 0, f"{argv}: {done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """`sinfo` of the one-node cluster, started for this module unless already up."""
    already = subprocess.run(["bash", LOCAL, "status"], capture_output=True).returncode == 0
    if not already:
        shell("bash", LOCAL, "start")
    # Job ids start again at 1 on a new state folder: read only this module's jobs.
    JOBCOMP_FROM.append(JOBCOMP.stat().st_size if JOBCOMP.exists() else 0)
    try:
        yield shell("sinfo")
    finally:
        if not already:
            shell("bash", LOCAL, "stop")


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    server = StubServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def environment(stub: StubServer) -> dict[str, str]:
    """The submitting shell's: this environment's commands first, the stub as the vLLM server
    (sbatch passes it all to the job, its default)."""
    return {
        **os.environ,
        "PATH": f"{BIN}:{os.environ['PATH']}",
        "VLLM_BASE_URL": stub.base_url,
        "VLLM_API_KEY": "local",
    }


def table_one(logs: Path, env: dict[str, str]) -> str:
    out = logs.parent / f"report-{logs.name}"
    shell(BIN / "agentsense", "report", logs, "--out", out, "--no-figures", env=env)
    return (out / "table1.csv").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def one_process(
    cluster: str, environment: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> str:
    """Table 1 of the same run in one process, without Slurm."""
    logs = tmp_path_factory.mktemp("one") / "logs"
    judges = RUN["AGENTSENSE_JUDGES"].replace(" ", ",")
    command = f"eval-parts agentsense/full --processes 1 -T dataset=demo --model vllm/agent \
        --model-role judge={judges} --max-connections 8 --log-dir {logs}"
    shell(BIN / "agentsense", *command.split(), env=environment)
    table = table_one(logs, environment)
    assert "judge" in table
    return table


def submit(folder: Path, env: dict[str, str], args: str) -> str:
    """The recipe as written: `sbatch --array=1-2 --export=ALL,...`; the array job's id."""
    exports = {**RUN, "AGENTSENSE_LOG_DIR": str(folder / "logs"), "AGENTSENSE_ARGS": args}
    export = ",".join(["ALL", *(f"{name}={value}" for name, value in exports.items())])
    out = shell(
        "sbatch", "--parsable", "--array=1-2", f"--export={export}", SBATCH, cwd=folder, env=env
    )
    return out.strip()


def wait(job: str, until: Callable[[], bool] = lambda: False) -> list[str]:
    """The array's squeue lines (the first of each index in each state), polled until it has
    left the queue or `until()`."""
    seen: dict[tuple[str, str], str] = {}
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        lines = shell("squeue", "-h", "-r", "-j", job, "-o", "%i %T %M %N").splitlines()
        for line in lines:
            index, state, *_ = line.split()
            seen.setdefault((index, state), line)
        if not lines or until():
            return list(seen.values())
        time.sleep(0.5)
    raise AssertionError(f"job {job} still queued after 600 s: {list(seen.values())}")


def finished(job: str) -> dict[int, str]:
    """Each array index's final state and exit code (index 0 for a job that is not an array),
    as Slurm's job completion log records them (no accounting database, so no sacct)."""
    with JOBCOMP.open("rb") as log:
        log.seek(JOBCOMP_FROM[-1])
        lines = log.read().decode("utf-8").splitlines()
    states = {}
    for line in lines:
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        if fields.get("ArrayJobId", fields["JobId"]) == job:
            index = int(fields.get("ArrayTaskId") or 0)
            states[index] = f"{fields['JobState']} {fields['ExitCode']}"
            times = f"{fields['StartTime'][11:]}-{fields['EndTime'][11:]}"
            print(f"jobcomp: {job}_{index} {states[index]} {times}")
    return states


def scenes_done(logs: Path, shard: str) -> int:
    """Scenes finished in the log of part `shard` so far (0 before it is written)."""
    for path in logs.glob("*.eval"):
        try:
            if read_eval_log(str(path), header_only=True).eval.task_args.get("shard") == shard:
                return len(read_eval_log_sample_summaries(str(path)))
        except Exception:  # being written: read it at the next poll
            continue
    return 0


def test_the_array_gives_the_one_process_table_one(
    cluster: str, environment: dict[str, str], one_process: str, tmp_path: Path
) -> None:
    job = submit(tmp_path, environment, "--max-connections 8")
    lines = wait(job)
    print(f"\n$ sinfo\n{cluster}$ squeue (polled)\n" + "\n".join(lines))
    assert finished(job) == {1: "COMPLETED 0:0", 2: "COMPLETED 0:0"}
    table = table_one(tmp_path / "logs", environment)
    print(f"Table 1, one process:\n{one_process}Table 1, the array's 2 parts:\n{table}")
    assert table == one_process  # to the last digit


def test_a_cancelled_index_is_resumed_with_the_line_it_prints(
    cluster: str, environment: dict[str, str], one_process: str, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    # One scene at a time per part, each written to the log when done, so that index 2 is
    # cancelled midway: some of its 12 scenes in its log, the rest left to the resume.
    job = submit(tmp_path, environment, "--max-connections 8 --max-samples 2 --log-buffer 1")
    lines = wait(job, until=lambda: scenes_done(logs, "2/2") >= 1)
    done = scenes_done(logs, "2/2")
    shell("scancel", f"{job}_2")
    lines += wait(job)
    print(f"\n$ squeue (polled; scancel {job}_2 with {done} scene done)\n" + "\n".join(lines))
    states = finished(job)
    assert states[1] == "COMPLETED 0:0" and states[2].startswith("CANCELLED")
    cancelled = scenes_done(logs, "2/2")
    print(f"index 2 cancelled with {cancelled} of its 12 scenes in its log")
    assert 1 <= done <= cancelled < 12
    output = (tmp_path / f"agentsense-{job}-2.out").read_text(encoding="utf-8")
    (line,) = [line for line in output.splitlines() if "eval-retry" in line]
    print(f"agentsense-{job}-2.out:\n{output}")
    assert line.startswith("part 2: resume with: inspect eval-retry ")
    resume = line.split(": resume with: ", 1)[1]
    assert shlex.split(resume)[-2:] == ["--log-dir", str(logs)]
    # Resumed on the cluster too: any node that sees the log folder.
    retry = shell(
        "sbatch", "--parsable", "--wait", f"--wrap={resume}", cwd=tmp_path, env=environment
    )
    assert finished(retry.strip()) == {0: "COMPLETED 0:0"}
    table = table_one(logs, environment)
    print(f"Table 1 after the resume:\n{table}")
    assert table == one_process
