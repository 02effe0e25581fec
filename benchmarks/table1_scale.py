"""flows/table1.py at full size on this machine (issue 54): the spec's 14 models, every one a name
on one stub server, `--epochs` copies of the 24 demo scenes, 3 judges; wall, peak RSS of every
process (the flow process and any children, and the stub) sampled every second, the log folder's
size, then `agentsense report` on the logs (wall, peak RSS). With `--fail-500`/`--hang` the stub
fails calls, and `--kill-after N` kills the flow process with SIGKILL once N logs are finished and
runs the documented resume (`flow run` again, same arguments). Every log is then counted: samples,
unique (id, epoch) pairs, against scenes x epochs. `--compare DIR` checks the report's table1.csv
against another run's byte for byte.

    python benchmarks/table1_scale.py --work /tmp/t1 --epochs 4 --max-tasks 4
    python benchmarks/table1_scale.py --work /tmp/t1f --epochs 4 --max-tasks 4 \\
        --fail-500 0.02 --hang 0.005 --kill-after 8 --compare /tmp/t1/report

Figures: docs/throughput.md, "Table 1 at full size (issue 54)".
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil
from inspect_ai.log import list_eval_logs, read_eval_log, read_eval_log_sample_summaries

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "flows" / "table1.py"
MB = 1024 * 1024


def spec_server_variables(base_url: str) -> dict[str, str]:
    """flows/table1.py's `server_variables`: every model of the spec on `base_url`."""
    namespace: dict[str, Any] = {}
    exec(compile(SPEC.read_text(encoding="utf-8"), str(SPEC), "exec"), namespace)
    variables: dict[str, str] = namespace["server_variables"](base_url, "stub")
    return variables


def run_env(work: Path, base_url: str) -> dict[str, str]:
    """The flow process's environment: data and cache folders of its own under `work`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INSPECT_", "OPENAI_"))}
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[name] = str(work / name.lower())
    env["INSPECT_CACHE_DIR"] = str(work / "inspect-cache")
    env["AGENTSENSE_CACHE_DIR"] = str(work / "agentsense-cache")
    env["UV_OFFLINE"] = "1"  # Flow's `uv pip compile` fails at once (a warning) offline
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env | spec_server_variables(base_url)


@contextmanager
def stub(args: argparse.Namespace, work: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The stub in a process of its own, with the faults asked for; its requests to a JSONL log."""
    command = [sys.executable, "-m", "agentsense.standin.stub", "--port", "0"]
    command += ["--latency", str(args.latency), "--seed", "3"]
    command += ["--fail-500", str(args.fail_500), "--hang", str(args.hang)]
    if args.fail_500 or args.hang:  # the request log (full messages) only to count the faults
        command += ["--log", str(work / "stub.jsonl")]
    command += ["--hang-seconds", str(args.hang_seconds)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        if not base_url.startswith("http"):
            raise RuntimeError(f"the stub did not start: {process.communicate()[1]}")
        yield base_url, process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


@dataclass
class Peaks:
    """Peak RSS (MB) of each process seen, by a label; and of the sampled tree's sum."""

    by_process: dict[str, float] = field(default_factory=dict)
    tree_sum: float = 0.0
    # With `proportional`: the peak sum of PSS, each shared page counted once over the processes
    # (forked workers share their parent's imports; RSS counts them in each).
    proportional: bool = False
    pss_sum: float = 0.0

    def sample(self, roots: dict[str, psutil.Process]) -> None:
        total = pss = 0.0
        for label, root in roots.items():
            try:
                procs = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                continue
            for proc in procs:
                try:
                    rss = proc.memory_info().rss / MB
                    name = label if proc.pid == root.pid else f"{label} child {proc.name()}"
                    pss += proc.memory_full_info().pss / MB if self.proportional else 0.0
                except psutil.NoSuchProcess:
                    continue
                key = f"{name} (pid {proc.pid})"
                self.by_process[key] = max(self.by_process.get(key, 0.0), rss)
                total += rss
        self.tree_sum = max(self.tree_sum, total)
        self.pss_sum = max(self.pss_sum, pss)


def finished_logs(log_dir: Path) -> int:
    """Logs of the folder whose run finished (one being written may not read: not counted)."""
    count = 0
    for info in list_eval_logs(str(log_dir)):
        try:
            count += read_eval_log(info.name, header_only=True).status == "success"
        except Exception:  # being written at this moment
            continue
    return count


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


@dataclass
class Phase:
    name: str
    wall: float
    returncode: int
    load_start: str
    load_end: str
    peaks: Peaks
    killed: bool = False


def flow_command(args: argparse.Namespace, log_dir: Path) -> list[str]:
    command = [str(Path(sys.executable).with_name("flow")), "run", str(SPEC)]
    command += ["--arg", "dataset=demo", "--arg", f"max_tasks={args.max_tasks}"]
    command += ["--set", f"defaults.task.epochs={args.epochs}"]
    if args.max_connections:
        command += ["--set", f"defaults.config.max_connections={args.max_connections}"]
    return [*command, "--log-dir", str(log_dir), "--display", "none"]


def run_flow(
    name: str,
    args: argparse.Namespace,
    work: Path,
    env: dict[str, str],
    stub_process: subprocess.Popen[str],
    kill_after: int | None,
) -> Phase:
    """One `flow run`, sampled every second; SIGKILLed once `kill_after` logs are finished."""
    log_dir = work / "logs"
    command = flow_command(args, log_dir)
    print(f"[{time.strftime('%H:%M:%S')}] {name}: {' '.join(command)}", flush=True)
    start, load_start = time.monotonic(), load()
    with (work / f"{name}.out").open("w") as out:
        process = subprocess.Popen(command, env=env, cwd=work, stdout=out, stderr=out)
    roots = {"flow": psutil.Process(process.pid), "stub": psutil.Process(stub_process.pid)}
    peaks, killed, tick = Peaks(), False, 0
    while process.poll() is None:
        peaks.sample(roots)
        time.sleep(1.0)
        tick += 1
        if kill_after is not None and tick % 5 == 0 and finished_logs(log_dir) >= kill_after:
            process.send_signal(signal.SIGKILL)  # no clean-up of any kind
            killed = True
            break
    process.wait()
    phase = Phase(name, time.monotonic() - start, process.returncode, load_start, load(), peaks)
    phase.killed = killed
    print(f"[{time.strftime('%H:%M:%S')}] {name}: {phase.wall:.0f} s, rc {phase.returncode}")
    return phase


def count_samples(log_dir: Path) -> list[dict[str, Any]]:
    """Per log: samples, unique (id, epoch) pairs, and the scenes x epochs expected."""
    rows = []
    for info in list_eval_logs(str(log_dir)):
        header = read_eval_log(info.name, header_only=True)
        summaries = read_eval_log_sample_summaries(info.name)
        expected = (header.eval.dataset.samples or 0) * (header.eval.config.epochs or 1)
        rows.append(
            {
                "task": header.eval.task,
                "model": header.eval.model,
                "status": header.status,
                "samples": len(summaries),
                "unique": len({(s.id, s.epoch) for s in summaries}),
                "expected": expected,
            }
        )
    return rows


def run_report(work: Path, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """`agentsense report LOGS --out REPORT` (and `extra` options): wall, the CPU and the peak
    RSS of its whole process tree (it reads the logs and draws the figures in worker processes,
    which `/usr/bin/time` does not see), sampled every 0.1 s."""
    report = work / "report"
    command = [str(Path(sys.executable).with_name("agentsense")), "report", str(work / "logs")]
    command += ["--out", str(report), *extra]
    load_start, start = load(), time.monotonic()
    process = subprocess.Popen(command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    root, peaks = psutil.Process(process.pid), Peaks(proportional=True)
    cpu: dict[int, float] = {}
    while process.poll() is None:
        peaks.sample({"report": root})
        for proc in [root, *_children(root)]:
            try:
                times = proc.cpu_times()
                cpu[proc.pid] = times.user + times.system
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.1)
    wall = time.monotonic() - start
    _, stderr = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(stderr.decode()[-3000:])
    return {
        "wall": wall,
        "cpu": sum(cpu.values()),
        "processes": len(cpu),
        "peak_rss_mb": peaks.tree_sum,
        "peak_pss_mb": peaks.pss_sum,
        "peak_rss_by_process": peaks.by_process,
        "load_start": load_start,
        "load_end": load(),
        "options": " ".join(extra),
    }


def _children(root: psutil.Process) -> list[psutil.Process]:
    try:
        return list(root.children(recursive=True))
    except psutil.NoSuchProcess:
        return []


def report_pairs(work: Path, repeat: int) -> list[dict[str, Any]]:
    """The report on the logs `repeat` times each way, alternating: its default (worker
    processes) and `--processes 1` (all in one process); the tables of both identical."""
    runs = []
    for k in range(repeat):
        for extra in ((), ("--processes", "1")):
            runs.append(run_report(work, extra))
            tables = (work / "report" / "table1.csv").read_bytes()
            if k == 0 and not extra:
                first = tables
            elif tables != first:
                raise RuntimeError(f"table1.csv differs with {extra}")
            print_report(runs[-1])
    return runs


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / MB


def stub_outcomes(work: Path) -> dict[str, int]:
    """How many chat requests the stub answered each way (its JSONL request log)."""
    counts: dict[str, int] = {}
    if not (work / "stub.jsonl").exists():
        return counts
    with (work / "stub.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            outcome = json.loads(line).get("outcome", "?")
            counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, help="an empty scratch folder")
    parser.add_argument("--epochs", type=int, default=4, help="copies of the 24 demo scenes")
    parser.add_argument("--max-tasks", type=int, default=4, help="the spec's max_tasks")
    parser.add_argument("--max-connections", type=int, default=0, help="0: Inspect's default")
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--fail-500", type=float, default=0.0)
    parser.add_argument("--hang", type=float, default=0.0)
    parser.add_argument("--hang-seconds", type=float, default=5.0)
    parser.add_argument("--kill-after", type=int, help="SIGKILL flow once N logs are finished")
    parser.add_argument("--compare", type=Path, help="a report folder whose table1.csv to match")
    parser.add_argument("--show", type=Path, help="print the table of a result.json, run nothing")
    parser.add_argument(
        "--report-only",
        type=int,
        metavar="N",
        help="only time the report on --work's logs, N times with and without worker processes",
    )
    args = parser.parse_args()
    if args.show:
        print_table(json.loads(args.show.read_text(encoding="utf-8")))
        return
    if args.work is None:
        parser.error("--work FOLDER is required (an empty scratch folder)")
    work: Path = args.work.resolve()
    if args.report_only:
        runs = report_pairs(work, args.report_only)
        (work / "report-times.json").write_text(json.dumps(runs, indent=1), encoding="utf-8")
        return
    work.mkdir(parents=True, exist_ok=True)
    phases = []
    with stub(args, work) as (base_url, stub_process):
        env = run_env(work, base_url)
        phases.append(run_flow("run", args, work, env, stub_process, args.kill_after))
        if phases[-1].killed:
            phases.append(run_flow("resume", args, work, env, stub_process, None))
    result: dict[str, Any] = {
        "args": {k: str(v) for k, v in vars(args).items()},
        "phases": [asdict(p) for p in phases],
        "log_mb": folder_mb(work / "logs"),
        "stub_outcomes": stub_outcomes(work),
        "samples": count_samples(work / "logs"),
        "report": run_report(work),
    }
    if args.compare:
        ours = (work / "report" / "table1.csv").read_bytes()
        result["table1_equal"] = ours == (args.compare / "table1.csv").read_bytes()
    (work / "result.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    print_table(result)


def scored_once(result: dict[str, Any]) -> str:
    """Whether every (task, model) has one finished log holding each (id, epoch) once; and the
    unfinished logs a kill left beside them (Inspect keeps them; the report skips them)."""
    finished: dict[tuple[str, str], list[dict[str, Any]]] = {}
    left = [r for r in result["samples"] if r["status"] != "success"]
    for row in result["samples"]:
        if row["status"] == "success":
            finished.setdefault((row["task"], row["model"]), []).append(row)
    once = all(
        len(rows) == 1 and rows[0]["samples"] == rows[0]["unique"] == rows[0]["expected"]
        for rows in finished.values()
    )
    return (
        f"{len(finished)} tasks finished, each in one log with every (id, epoch) once: {once};"
        f" unfinished logs left by the kill: {len(left)} ({sum(r['samples'] for r in left)}"
        " samples)"
    )


def print_table(result: dict[str, Any]) -> None:
    print("| phase | wall | load start -> end | peak RSS (MB) |\n|---|---|---|---|")
    for phase in result["phases"]:
        peaks = ", ".join(
            f"{name} {mb:.0f}" for name, mb in phase["peaks"]["by_process"].items() if mb > 1
        )
        print(
            f"| {phase['name']}{' (killed)' if phase['killed'] else ''} | {phase['wall']:.0f} s |"
            f" {phase['load_start']} -> {phase['load_end']} | {peaks}; sum"
            f" {phase['peaks']['tree_sum']:.0f} |"
        )
    print_report(result["report"])
    print(f"logs: {len(result['samples'])}, {result['log_mb']:.0f} MB; {scored_once(result)}")
    print(f"stub outcomes: {result['stub_outcomes']}")
    if "table1_equal" in result:
        print(f"table1.csv equal to the compared run's: {result['table1_equal']}")


def print_report(report: dict[str, Any]) -> None:
    options = f" {report['options']}" if report.get("options") else ""
    print(
        f"| agentsense report{options} | {report['wall']:.1f} s (CPU {report['cpu']:.1f} s,"
        f" {report.get('processes', 1)} processes) | {report['load_start']} ->"
        f" {report['load_end']} | RSS {report['peak_rss_mb']:.0f}, PSS"
        f" {report.get('peak_pss_mb', math.nan):.0f} (sums over the processes) |",
        flush=True,
    )


if __name__ == "__main__":
    main()
