"""Start-up of `inspect eval agentsense/full` against `inspect eval` of an empty task.

    python benchmarks/startup.py --runs 3 [--importtime]

Each run starts the stub server (latency 0) and one `inspect eval` process, and watches the
stub's request log: at the first model request it reads the process's elapsed wall time, CPU
seconds (user + sys) and RSS (psutil), then stops the process. The two commands alternate.
Both use the vLLM provider against the same stub, so the provider's imports and its
`GET /v1/models` probe are in both; the difference is agentsense's registry, task and dataset
load, and its first scene's set-up.

`--importtime`: `python -X importtime` of `import inspect_ai` and of `import inspect_ai,
agentsense._registry` (what the entry point loads), and the modules the second imports beyond
the first, the slowest first (cumulative microseconds, as `-X importtime` prints them).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from processes import isolated_env, stub_server

HERE = Path(__file__).parent
JUDGES = "judge=vllm/judge-a,vllm/judge-b,vllm/judge-c"


def commands(log_dir: Path) -> dict[str, list[str]]:
    inspect = str(Path(sys.executable).with_name("inspect"))
    common = ["--model", "vllm/agent", "--log-dir", str(log_dir), "--display", "none"]
    return {
        "empty task": [inspect, "eval", "empty_task.py", *common],  # run in HERE
        "agentsense/full": [
            *(inspect, "eval", "agentsense/full", "-T", "dataset=demo", "--limit", "1"),
            *("--model-role", JUDGES, *common),
        ],
    }


def to_first_request(command: list[str], work: Path) -> dict[str, float]:
    """Wall s, CPU s and RSS MB of the process when the stub receives its first request."""
    import psutil

    requests = work / "requests.jsonl"
    with stub_server(0.0, log=requests) as (base_url, _):
        started = time.monotonic()
        process = subprocess.Popen(
            command,
            cwd=HERE,
            env=isolated_env(work, base_url),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        watched = psutil.Process(process.pid)
        try:
            while not (requests.exists() and "chat/completions" in requests.read_text()):
                if process.poll() is not None:
                    raise RuntimeError(f"{' '.join(command)} ended before any request")
                cpu, rss = watched.cpu_times(), watched.memory_info().rss
                time.sleep(0.01)
            wall = time.monotonic() - started
        finally:
            process.terminate()
            process.wait(timeout=60)
    return {"wall": wall, "cpu": cpu.user + cpu.system, "rss_mb": rss / 2**20}


def imported(code: str) -> dict[str, int]:
    """Module -> cumulative import microseconds, from `python -X importtime -c code`."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
    )
    times = {}
    for line in run.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.removeprefix("import time:").split("|")
            times[name.strip()] = int(cumulative)
    return times


def print_importtime(top: int) -> None:
    base = imported("import inspect_ai")
    ours = imported("import inspect_ai, agentsense._registry")
    extra = {name: us for name, us in ours.items() if name not in base}
    print(f"import inspect_ai: {len(base)} modules, {base.get('inspect_ai', 0) / 1e6:.2f} s")
    print(
        f"then agentsense._registry: {len(extra)} more modules, "
        f"{extra.get('agentsense._registry', 0) / 1e6:.2f} s (cumulative); the slowest:"
    )
    roots = sorted(extra.items(), key=lambda item: -item[1])[:top]
    for name, us in roots:
        print(f"  {us / 1e3:8.1f} ms  {name}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--importtime", action="store_true")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    results: dict[str, list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            for name, command in commands(Path(tmp) / "logs").items():
                work = Path(tempfile.mkdtemp(dir=tmp))
                load = os.getloadavg()[0]
                result = to_first_request(command, work)
                results.setdefault(name, []).append(result)
                print(
                    f"{name:<16} run {i + 1}: first request after {result['wall']:.2f} s wall, "
                    f"{result['cpu']:.2f} s CPU, RSS {result['rss_mb']:.0f} MB (load {load:.2f})",
                    flush=True,
                )
    print("\n| command | to the first model request: wall | CPU | RSS |")
    print("|---|---|---|---|")
    for name, runs in results.items():
        med = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        print(f"| {name} | {med['wall']:.2f} s | {med['cpu']:.2f} s | {med['rss_mb']:.0f} MB |")
    if args.importtime:
        print()
        print_importtime(args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
