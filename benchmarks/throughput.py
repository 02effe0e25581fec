"""Throughput of `agentsense/full` against a latency-controlled model server, beside its bounds.

    python benchmarks/throughput.py --scenes 24 96 --connections 4 64 --latency 0.2 \
        --repeats 3 --json throughput.json [--profile] [--shards 1 2 4]

THE RUNS. For each scene count N, connection limit C and repeat, the script starts the stub
model server (`python -m agentsense.standin.stub --latency L`: every reply after exactly L seconds,
no concurrency limit, its own process so its CPU is not charged to the plugin), then runs

    inspect eval agentsense/full -T dataset=demo (--limit N | --epochs N/24) --display none \
        --model vllm/agent --model-role judge=vllm/judge-a,vllm/judge-b,vllm/judge-c \
        --max-connections C [--max-samples S] [-T shard=k/S]

in a subprocess and reads its log. The four models share one base URL and the vLLM provider
keys its connection pool by base URL, so at most C requests are in flight in total. An explicit
--max-connections also turns Inspect's adaptive connections off (`adaptive_active()` in
inspect_ai/util/_concurrency.py); without --max-samples, Inspect runs C samples at once (its
default, `create_sample_semaphore` in inspect_ai/_eval/task/run.py), as a user gets it. With
--shards S, S such processes run at once, process k with -T shard=k/S and C / S connections.
The 24 demo scenes are repeated with epochs when N > 24 (N must then be a multiple
of 24). Repeats of different configurations are interleaved, and medians are reported.

MEASURES.
- wall: the samples' window in the logs, from the first sample's start to the last sample's end.
  It leaves out the fixed start-up (first process start to first sample start: interpreter,
  imports, task load) and finalisation (last sample end to last process exit: log write,
  shut-down), shown apart; on a 1,225-scene run they are negligible.
- scene: the mean duration of one sample, against the critical path.
- calls: ModelEvents in the log (checked against the stub's count of answered requests).
- scenes/min = N / wall x 60.

BOUNDS (no client can beat them against this server):
- critical path = max over scenes of (sequential turns + interview rounds) x L. A turn waits for
  the one before; the interviews need the whole conversation and go out at once (one round).
  Turns are the ModelEvents inside `turn` spans, rounds the `interviews` spans.
- call volume = calls x L / C: every call holds one of the C connections for L.
- turns first = T x L + (calls - T x min(C, N)) x L / C, T = 14 turns: no interview starts
  before T x L, and until then at most min(C, N) turn calls are in flight.
- ratio = wall / the largest of the three; 1.0 is the best possible.

CPU AND MEMORY (the "cpu" runs: L = 0, the largest C, --max-samples fixed to the smallest N, so
N and 4N are compared at equal concurrency):
- (a) CPU/call = user + sys CPU seconds of the `inspect eval` process (os.wait4) / calls. This
  is Inspect's per-call work (provider, HTTP client, event logging) plus the plugin's, plus a
  fixed start-up; `marginal` = (CPU(large N) - CPU(small N)) / (calls(large N) - calls(small N))
  removes the start-up.
- peak RSS: ru_maxrss of the same process.
- (b) with --profile: one in-process run (L = 0, smallest N) under a CPU-time stack sampler
  (SIGPROF on the process's CPU clock, at the kernel's tick, 4 ms here). A sample is charged to
  agentsense when an agentsense frame is
  nearer the top of the stack than any `Model.generate` frame: the plugin's own code and the
  Inspect APIs it calls directly (spans, store, message objects), but not the model calls it
  makes. (b) is that share times the process's CPU seconds, per call. The profile also splits
  the samples by the innermost library on the stack (openai SDK, HTTP client, Inspect logging).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from processes import isolated_env, stub_server, stub_stats, timed_child
from run_logs import read_logs
from stack_profile import StackSampler
from throughput_runs import DEMO_SCENES, INSPECT, JUDGES, RunResult, RunSpec, run_once

# -- the in-process profile (b) ------------------------------------------------------------------


def profile_child(scenes: int, connections: int, log_dir: str) -> dict[str, Any]:
    """In the child: one in-process eval under the sampler (VLLM_BASE_URL set by the parent)."""
    from inspect_ai import eval as inspect_eval

    import agentsense._registry  # noqa: F401  (imports before the clock starts)

    spec = RunSpec(scenes, connections, 0.0, scenes)
    epochs = scenes // DEMO_SCENES if scenes > DEMO_SCENES else None
    limit = scenes if scenes <= DEMO_SCENES else None
    sampler = StackSampler()
    cpu0 = time.process_time()
    with sampler:
        inspect_eval(
            "agentsense/full",
            task_args={"dataset": "demo"},
            model="vllm/agent",
            model_roles={"judge": JUDGES.split(",")},
            max_connections=spec.connections,
            max_samples=spec.max_samples,
            limit=limit,
            epochs=epochs,
            log_dir=log_dir,
            display="none",
        )
    cpu = time.process_time() - cpu0
    calls = read_logs(Path(log_dir), 1)["calls"]
    busy = sampler.busy
    return {
        "scenes": scenes,
        "calls": calls,
        "process_cpu": cpu,
        "busy_samples": busy,
        "charged_share": sampler.charged / busy,
        "agentsense_cpu_per_call_ms": sampler.charged / busy * cpu / calls * 1000,
        "own_code_cpu_per_call_ms": sampler.components["agentsense"] / busy * cpu / calls * 1000,
        "cpu_per_call_ms": cpu / calls * 1000,
        "components": {
            name: n / busy for name, n in sampler.components.most_common() if name != "idle"
        },
    }


def run_profile(scenes: int, connections: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="agentsense-profile-") as tmp:
        work = Path(tmp)
        with stub_server(0.0) as (base_url, stub):
            out = work / "profile.json"
            command = [
                sys.executable,
                __file__,
                "--profile-child",
                str(out),
                "--scenes",
                str(scenes),
                "--connections",
                str(connections),
                "--log-dir",
                str(work / "logs"),
            ]
            timed_child(command, isolated_env(work, base_url), work / "child.out")
            stub_stats(stub)
        result: dict[str, Any] = json.loads(out.read_text())
        return result


# -- summaries -----------------------------------------------------------------------------------


def median_of(runs: list[RunResult], attribute: str) -> float:
    return statistics.median(float(getattr(run, attribute)) for run in runs)


SUMMARY_KEYS = (
    "wall",
    "process_wall",
    "start_up",
    "finalise",
    "scene_time",
    "calls",
    "ratio",
    "scenes_per_minute",
    "cpu",
    "peak_rss_mb",
    "stub_cpu",
)


def summarise(runs: list[RunResult]) -> dict[str, Any]:
    summary: dict[str, Any] = {key: median_of(runs, key) for key in SUMMARY_KEYS}
    for name in ("critical_path", "call_volume", "turns_first", "largest"):
        summary[name] = statistics.median(getattr(r.bounds, name) for r in runs)
    summary["ratio_range"] = [min(r.ratio for r in runs), max(r.ratio for r in runs)]
    summary["cpu_per_call_ms"] = statistics.median(r.cpu / r.calls * 1000 for r in runs)
    return {
        "scenes": runs[0].scenes,
        "connections": runs[0].connections,
        "latency": runs[0].latency,
        "shards": runs[0].shards,
        "max_samples": runs[0].max_samples,
        "repeats": len(runs),
        **summary,
    }


def marginal_cpu_ms(small: list[RunResult], large: list[RunResult]) -> float:
    cpu = median_of(large, "cpu") - median_of(small, "cpu")
    calls = median_of(large, "calls") - median_of(small, "calls")
    return cpu / calls * 1000 if calls > 0 else float("nan")


def print_throughput(rows: list[dict[str, Any]]) -> None:
    print(
        "\nThroughput (medians). Bounds: crit = (turns + interview rounds) x L; vol = calls x L"
        " / C;\nturns = 14 L + (calls - 14 min(C, N)) x L / C. ratio = wall / the largest."
        " start/final: process\nstart to first sample, last sample to process exit; scene:"
        " mean sample duration."
    )
    print(
        f"{'N':>4} {'C':>3} {'L':>4} {'sh':>2} {'wall s':>7} {'start':>5} {'final':>5} "
        f"{'scene':>6} {'calls':>5} {'sc/min':>6} {'crit':>5} {'vol':>6} {'turns':>6} "
        f"{'ratio':>5} {'range':>9} {'ms/call':>7} {'RSS MB':>6}"
    )
    for r in rows:
        low, high = r["ratio_range"]
        print(
            f"{r['scenes']:>4} {r['connections']:>3} {r['latency']:>4g} {r['shards']:>2} "
            f"{r['wall']:>7.2f} {r['start_up']:>5.2f} {r['finalise']:>5.2f} "
            f"{r['scene_time']:>6.2f} {r['calls']:>5.0f} {r['scenes_per_minute']:>6.1f} "
            f"{r['critical_path']:>5.1f} {r['call_volume']:>6.2f} {r['turns_first']:>6.2f} "
            f"{r['ratio']:>5.2f} {f'{low:.2f}-{high:.2f}':>9} {r['cpu_per_call_ms']:>7.2f} "
            f"{r['peak_rss_mb']:>6.0f}"
        )


def print_cpu(rows: list[dict[str, Any]], marginal: float | None) -> None:
    print("\nCPU and memory at L = 0 (medians; eval process only, the stub excluded)")
    print(
        f"{'N':>4} {'C':>3} {'calls':>6} {'cpu s':>7} {'(a) ms/call':>11} {'peak RSS MB':>11} "
        f"{'stub cpu s':>10}"
    )
    for r in rows:
        print(
            f"{r['scenes']:>4} {r['connections']:>3} {r['calls']:>6.0f} {r['cpu']:>7.2f} "
            f"{r['cpu_per_call_ms']:>11.2f} {r['peak_rss_mb']:>11.0f} {r['stub_cpu']:>10.2f}"
        )
    if marginal is not None:
        print(f"marginal CPU per call (start-up removed): {marginal:.2f} ms")


def print_profile(profile: dict[str, Any]) -> None:
    print(
        f"\nProfile (in-process, L = 0, N = {profile['scenes']}, {profile['calls']} calls, "
        f"{profile['busy_samples']} busy samples)"
    )
    print(f"  process CPU per call (under the profiler): {profile['cpu_per_call_ms']:.2f} ms")
    print(
        f"  (b) charged to agentsense: {profile['charged_share']:.1%} = "
        f"{profile['agentsense_cpu_per_call_ms']:.2f} ms per call, of which its own frames "
        f"(the rest: Inspect calls it makes, mostly span events) "
        f"{profile['own_code_cpu_per_call_ms']:.2f} ms"
    )
    print("  all CPU by the innermost library on the stack (start-up included):")
    for name, share in profile["components"].items():
        print(f"  {share:6.1%}  {name}")


# -- driver --------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    from importlib.metadata import version

    mem = float("nan")
    with contextlib.suppress(OSError, ValueError):
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "memory_gib": round(mem, 1),
        "load_average": os.getloadavg(),
        "python": platform.python_version(),
        "inspect_ai": version("inspect_ai"),
        "platform": platform.platform(),
    }


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--scenes",
        type=int,
        nargs="+",
        action="extend",
        default=None,
        help="scene counts N (default 24 96); above 24 a multiple of 24",
    )
    parser.add_argument("--latency", type=float, default=0.2, help="stub latency L, s (0.2)")
    parser.add_argument(
        "--connections",
        type=int,
        nargs="+",
        action="extend",
        default=None,
        help="connection limits C (default 4 64)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per configuration (3)")
    parser.add_argument(
        "--max-samples",
        type=int,
        default=None,
        help="samples at once per process (default: Inspect's, as a user gets it)",
    )
    parser.add_argument(
        "--shards",
        type=int,
        nargs="+",
        action="extend",
        default=None,
        help="eval processes per run, each -T shard=k/S with C / S connections (default 1)",
    )
    parser.add_argument("--no-cpu", action="store_true", help="skip the L = 0 CPU/memory runs")
    parser.add_argument("--no-throughput", action="store_true", help="only the L = 0 runs")
    parser.add_argument("--profile", action="store_true", help="add the in-process profile (b)")
    parser.add_argument(
        "--inspect-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="pass ARG on to `inspect eval` (repeatable), e.g. --no-log-realtime",
    )
    parser.add_argument("--json", type=Path, default=None, help="write every run here")
    parser.add_argument("--profile-child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--log-dir", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.scenes = sorted(set(args.scenes or [24, 96]))
    args.connections = sorted(set(args.connections or [4, 64]))
    args.shards = sorted(set(args.shards or [1]))
    return args


def run_all(specs: list[RunSpec], repeats: int) -> dict[tuple[int, int, int], list[RunResult]]:
    """Every spec `repeats` times, repeats interleaved so that load spikes spread out."""
    results: dict[tuple[int, int, int], list[RunResult]] = {}
    for repeat in range(repeats):
        for spec in specs:
            run = run_once(spec)
            results.setdefault((spec.scenes, spec.connections, spec.shards), []).append(run)
            print(
                f"[{repeat + 1}/{repeats}] N={spec.scenes} C={spec.connections} "
                f"L={spec.latency:g} shards={spec.shards}: load {os.getloadavg()[0]:.1f}, "
                f"wall {run.wall:.2f} s, {run.calls} calls, ratio {run.ratio:.2f}, "
                f"cpu {run.cpu:.1f} s, rss {run.peak_rss_mb:.0f} MB",
                flush=True,
            )
    return results


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.profile_child:
        result = profile_child(args.scenes[0], args.connections[-1], args.log_dir)
        Path(args.profile_child).write_text(json.dumps(result))
        return 0
    if shutil.which(INSPECT) is None:
        raise SystemExit(f"{INSPECT} not found: run with the venv's python")
    report: dict[str, Any] = {
        "machine": machine(),
        "args": {k: str(v) for k, v in vars(args).items()},
    }
    print(json.dumps(report["machine"]))
    if not args.no_throughput:
        specs = [
            RunSpec(n, c, args.latency, args.max_samples, args.inspect_arg, shards)
            for n in args.scenes
            for c in args.connections
            for shards in args.shards
        ]
        runs = run_all(specs, args.repeats)
        report["throughput"] = [summarise(group) for group in runs.values()]
        report["throughput_runs"] = [run.to_json() for group in runs.values() for run in group]
        save(report, args.json)
    if not args.no_cpu:
        specs = [
            RunSpec(
                n, args.connections[-1], 0.0, args.max_samples or args.scenes[0], args.inspect_arg
            )
            for n in args.scenes
        ]
        runs = run_all(specs, args.repeats)
        groups = list(runs.values())
        report["cpu"] = [summarise(group) for group in groups]
        report["cpu_runs"] = [run.to_json() for group in groups for run in group]
        report["marginal_cpu_per_call_ms"] = (
            marginal_cpu_ms(groups[0], groups[-1]) if len(groups) > 1 else None
        )
        save(report, args.json)
    if args.profile:
        report["profile"] = run_profile(args.scenes[0], args.connections[-1])
        save(report, args.json)
    report["load_average_end"] = os.getloadavg()
    save(report, args.json)
    print(
        f"load average at the start {report['machine']['load_average']}, at the end "
        f"{report['load_average_end']}"
    )
    if "throughput" in report:
        print_throughput(report["throughput"])
    if "cpu" in report:
        print_cpu(report["cpu"], report["marginal_cpu_per_call_ms"])
    if "profile" in report:
        print_profile(report["profile"])
    return 0


def save(report: dict[str, Any], path: Path | None) -> None:
    """Written after every phase, so a late failure keeps the runs already done."""
    if path is not None:
        path.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    sys.exit(main())
