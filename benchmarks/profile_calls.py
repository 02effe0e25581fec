"""Where the CPU of an `agentsense/full` run goes, function by function (py-spy).

    python benchmarks/profile_calls.py --scenes 24 --latency 0.2 [--top 40] [--raw OUT]

Runs `inspect eval agentsense/full` (the same command as benchmarks/side_by_side.py) under
`py-spy record --format raw` (sampling stacks of the running threads; idle threads are not
sampled) against the stub server, then prints:

- by component: each sample charged to the first library found walking out from the innermost
  frame (the components of benchmarks/stack_profile.py, as in throughput.py's in-process
  profile), with start-up imports apart (any sample with an import on its stack);
- by function: the inclusive share of the samples of every function on a sample's stack (a
  function counted once per sample), the largest first, each with its ms per model call
  (share x the process's CPU seconds / calls).

py-spy is a dev dependency (`pip install py-spy`); it needs ptrace rights over its child.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from processes import isolated_env, stub_server, stub_stats, timed_child
from side_by_side import JUDGES, scenes_file
from stack_profile import COMPONENTS

IMPORT_FRAME = "<frozen importlib._bootstrap>"
# Frames that are on (nearly) every stack: the CLI, the event loop, the retry wrapper.
PLUMBING = ("click/", "asyncio/", "anyio/", "<frozen", "tenacity/", "_cli/", "(inspect:")


def read_raw(path: Path) -> list[tuple[list[str], int]]:
    """py-spy's raw (collapsed) stacks: frames outermost first, and their sample counts."""
    stacks = []
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks.append((stack.split(";"), int(count)))
    return stacks


def frame_file(frame: str) -> str:
    return frame.rpartition(" (")[2].rstrip(")").rpartition(":")[0]


def frame_function(frame: str) -> str:
    """`function (path)` with the line number dropped and the path cut to its package."""
    name, _, where = frame.partition(" (")
    path = frame_file(frame)
    for marker in ("site-packages/", "/src/", "lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{name} ({path or where.rstrip(')')})"


def component(frames: list[str]) -> str:
    if any(IMPORT_FRAME in frame for frame in frames):
        return "start-up imports"
    for frame in reversed(frames):
        path = "/" + frame_file(frame)  # py-spy prints paths from the package folder
        for name, fragments in COMPONENTS:
            if any(fragment in path for fragment in fragments):
                return name
    return "Python and other libraries"


Counts = dict[str, int]


def summarise(stacks: list[tuple[list[str], int]]) -> tuple[int, Counts, Counts, Counts]:
    """(samples, by component, by function inclusive without the plumbing, by function self)."""
    total = sum(count for _, count in stacks)
    components: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    for frames, count in stacks:
        components[component(frames)] += count
        own[frame_function(frames[-1])] += count
        if any(IMPORT_FRAME in frame for frame in frames):
            continue  # start-up imports are one line of the components table
        named = {frame_function(f) for f in frames if not any(p in f for p in PLUMBING)}
        for function in named:
            inclusive[function] += count
    return total, dict(components), dict(inclusive), dict(own)


def profile_run(args: argparse.Namespace, work: Path) -> tuple[Path, float, int]:
    """(raw profile, CPU seconds of py-spy and the eval, model calls)."""
    data = scenes_file(work, args.scenes)
    raw = args.raw or work / "profile.txt"
    inspect = Path(sys.executable).with_name("inspect")
    judges = ",".join(f"vllm/{model}" for model in JUDGES)
    with stub_server(args.latency) as (base_url, stub):
        command = [
            *("py-spy", "record", "--format", "raw", "--rate", str(args.rate), "-o", str(raw)),
            "--full-filenames",
            *("--", str(inspect), "eval", "agentsense/full", "-T", f"dataset={data}"),
            *("--model", "vllm/agent", "--model-role", f"judge={judges}"),
            *("--max-connections", str(args.connections), "--log-dir", str(work / "logs")),
            *("--display", "none"),
        ]
        usage = timed_child(command, isolated_env(work, base_url), work / "run.out")
        calls, _ = stub_stats(stub)
    return raw, usage.cpu, calls


def print_profile(stacks: list[tuple[list[str], int]], cpu: float, calls: int, top: int) -> None:
    total, components, inclusive, own = summarise(stacks)
    per_call = 1000 * cpu / calls
    print(f"{total} samples; {cpu:.1f} s CPU (py-spy's included), {calls} calls, {per_call:.1f} ms")
    print("\n| component | share | ms per call |\n|---|---|---|")
    for name, count in sorted(components.items(), key=lambda item: -item[1]):
        print(f"| {name} | {count / total:.1%} | {count / total * per_call:.2f} |")
    for title, counts in (("inclusive, imports left out", inclusive), ("self", own)):
        print(f"\n| function ({title}) | share | ms per call |\n|---|---|---|")
        for name, count in sorted(counts.items(), key=lambda item: -item[1])[:top]:
            print(f"| `{name}` | {count / total:.1%} | {count / total * per_call:.2f} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=24)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--rate", type=int, default=50, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--raw", type=Path, help="keep py-spy's raw stacks here")
    parser.add_argument("--from-raw", type=Path, help="summarise a kept profile, no run")
    parser.add_argument("--cpu", type=float, default=0.0, help="with --from-raw: CPU seconds")
    parser.add_argument("--calls", type=int, default=1, help="with --from-raw: model calls")
    args = parser.parse_args(argv)
    if args.from_raw:
        print_profile(read_raw(args.from_raw), args.cpu, args.calls, args.top)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        try:
            raw, cpu, calls = profile_run(args, Path(tmp))
        except (FileNotFoundError, RuntimeError, subprocess.CalledProcessError) as error:
            raise SystemExit(f"the profiled run failed (is py-spy installed?): {error}") from None
        print_profile(read_raw(raw), cpu, calls, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
