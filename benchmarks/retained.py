"""What one `agentsense/full` process still holds when its last scene is scored, by allocation site.

    python benchmarks/retained.py --scenes 24 72

For each N: one in-process `eval()` of `agentsense/full` on the first N scenes of the demo set
repeated with distinct ids (`scale.write_dataset`), stand-in models (`standin/persona/...`, three
judges, no server: the figures are the process's own), `--no-log-realtime`, under tracemalloc.
The snapshot is taken, after a full garbage collection, when the last scene ends (an
`on_sample_end` hook): every scene finished, the run's metrics and log not yet computed.
Each N runs in a child process of its own, with caches and data dirs of its own.

The table: Python memory traced at that point, and the difference between the largest and the
smallest N per extra scene, grouped by the innermost agentsense or inspect_ai frames of the
allocation (pydantic and the standard library are attributed to their caller). What grows with
the scenes, and whose it is. Slow: tracemalloc with 25 frames makes a run ~10x slower.
"""

from __future__ import annotations

import argparse
import collections
import gc
import pickle
import subprocess
import sys
import tempfile
import tracemalloc
from collections.abc import Sequence
from pathlib import Path

from processes import isolated_env
from scale import write_dataset

JUDGES = [f"standin/persona/judge-{x}" for x in "abc"]
FRAMES = 25
OWNERS = ("agentsense/", "inspect_ai/")


def run_one(scenes: int, work: Path) -> None:
    """The child: the eval, with a snapshot when its last scene ends, pickled to work/snap-N."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.hooks import Hooks, SampleEnd, hooks

    ended = 0

    @hooks(name="retained_snapshot", description="tracemalloc snapshot at the last sample's end")
    class Snapshot(Hooks):
        async def on_sample_end(self, data: SampleEnd) -> None:
            nonlocal ended
            ended += 1
            if ended == scenes:
                gc.collect()
                with (work / f"snap-{scenes}").open("wb") as out:
                    pickle.dump(tracemalloc.take_snapshot(), out)

    dataset = write_dataset(scenes, work / f"scenes-{scenes}.jsonl")
    tracemalloc.start(FRAMES)
    inspect_eval(
        "agentsense/full",
        task_args={"dataset": str(dataset)},
        model="standin/persona/agent",
        model_roles={"judge": JUDGES},  # type: ignore[dict-item]
        display="none",
        log_dir=str(work / "logs"),
        log_realtime=False,
        max_samples=scenes,
    )


def site(frames: Sequence[tracemalloc.Frame]) -> str:
    """The allocation's innermost three frames in agentsense or inspect_ai, innermost first."""
    owned = [f for f in reversed(frames) if any(o in f.filename for o in OWNERS)]
    return " <- ".join(
        f"{f.filename.rsplit('site-packages/', 1)[-1].rsplit('src/', 1)[-1]}:{f.lineno}"
        for f in owned[:3]
    )


def by_site(snapshot: tracemalloc.Snapshot) -> collections.Counter[str]:
    sizes: collections.Counter[str] = collections.Counter()
    for stat in snapshot.statistics("traceback"):
        sizes[site(stat.traceback)] += stat.size
    return sizes


def print_table(snapshots: dict[int, tracemalloc.Snapshot], rows: int) -> None:
    for scenes, snapshot in snapshots.items():
        total = sum(s.size for s in snapshot.statistics("filename"))
        print(f"{scenes} scenes: {total / 2**20:.1f} MB traced")
    small, large = min(snapshots), max(snapshots)
    a, b = by_site(snapshots[small]), by_site(snapshots[large])
    extra = large - small
    growth = {key: (b[key] - a.get(key, 0)) / extra for key in b}
    print(f"\ngrowth per scene ({small} -> {large} scenes), by allocation site:")
    print(f"{'KB':>6}  site (innermost first)")
    for key, size in sorted(growth.items(), key=lambda item: -item[1])[:rows]:
        print(f"{size / 1024:6.1f}  {key or '(no agentsense or inspect_ai frame)'}")
    print(f"{sum(growth.values()) / 1024:6.1f}  all sites")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", type=int, nargs="+", default=[24, 72])
    parser.add_argument("--rows", type=int, default=20, help="allocation sites listed")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child is not None:
        run_one(args.child, args.work)
        return 0
    if len(set(args.scenes)) < 2:
        sys.exit("--scenes: give at least two sizes (the growth is their difference)")
    with tempfile.TemporaryDirectory(prefix="retained-") as folder:
        work = Path(folder)
        snapshots = {}
        for scenes in sorted(set(args.scenes)):
            child = [sys.executable, __file__, "--child", str(scenes), "--work", folder]
            subprocess.run(child, check=True, env=isolated_env(work / f"env-{scenes}", None))
            with (work / f"snap-{scenes}").open("rb") as snap:
                snapshots[scenes] = pickle.load(snap)
    print_table(snapshots, args.rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
