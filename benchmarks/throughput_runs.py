"""One throughput run: `inspect eval agentsense/full` (or S shards) against one stub, measured
by the processes (`processes.py`) and by their logs (`run_logs.py`).

The definitions of every figure are in `throughput.py`'s docstring.
"""

from __future__ import annotations

import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from processes import isolated_env, stub_server, stub_stats, timed_child
from run_logs import read_logs
from schedule_bounds import Bounds, schedule_bounds

DEMO_SCENES = 24
JUDGES = "vllm/judge-a,vllm/judge-b,vllm/judge-c"
INSPECT = str(Path(sys.executable).with_name("inspect"))


@dataclass
class RunSpec:
    scenes: int
    connections: int
    latency: float
    max_samples: int | None  # None: Inspect's default (the connection limit)
    extra: list[str] = field(default_factory=list)  # more `inspect eval` options
    shards: int = 1  # `inspect eval` processes, each `-T shard=k/shards` and C / shards

    def scope(self) -> list[str]:
        """The options that pick N scenes: a prefix of the demo set, or all of it in epochs."""
        if self.shards > 1 and self.scenes % DEMO_SCENES:
            raise SystemExit(f"--shards: use --scenes in multiples of {DEMO_SCENES}")
        if self.scenes <= DEMO_SCENES:
            return ["--limit", str(self.scenes)]
        if self.scenes % DEMO_SCENES:
            raise SystemExit(f"--scenes {self.scenes}: above {DEMO_SCENES}, use a multiple of it")
        return ["--epochs", str(self.scenes // DEMO_SCENES)]

    def shard_connections(self) -> int:
        if self.connections % self.shards:
            raise SystemExit(f"--connections {self.connections}: a multiple of --shards please")
        return self.connections // self.shards


@dataclass
class RunResult:
    scenes: int
    connections: int
    latency: float
    max_samples: int | None
    shards: int
    wall: float  # the samples' window (seconds), over all shards
    process_wall: float  # first process start to last process exit
    start_up: float  # first process start to the first sample's start
    finalise: float  # the last sample's end to the last process exit
    scene_time: float  # mean seconds from a sample's start to its end
    calls: int
    stub_calls: int
    turns: int  # the most sequential turns in a scene
    chain: int  # the longest per-scene chain of sequential rounds (turns + interview rounds)
    cpu: float  # user + sys seconds of the eval processes together
    peak_rss_mb: float  # the largest eval process
    stub_cpu: float

    @property
    def bounds(self) -> Bounds:
        return schedule_bounds(
            self.turns, self.chain, self.calls, self.scenes, self.connections, self.latency
        )

    @property
    def ratio(self) -> float:
        bound = self.bounds.largest
        return self.wall / bound if bound > 0 else float("nan")

    @property
    def scenes_per_minute(self) -> float:
        return self.scenes / self.wall * 60

    def to_json(self) -> dict[str, Any]:
        extra = {
            **asdict(self.bounds),
            "bound": self.bounds.largest,
            "ratio": self.ratio,
            "scenes_per_minute": self.scenes_per_minute,
        }
        return {**asdict(self), **extra}


def eval_command(spec: RunSpec, log_dir: Path, shard: int) -> list[str]:
    sharding = ["-T", f"shard={shard}/{spec.shards}"] if spec.shards > 1 else []
    samples = [] if spec.max_samples is None else ["--max-samples", str(spec.max_samples)]
    return [
        INSPECT,
        "eval",
        "agentsense/full",
        "-T",
        "dataset=demo",
        *sharding,
        *spec.scope(),
        "--model",
        "vllm/agent",
        "--model-role",
        f"judge={JUDGES}",
        "--max-connections",
        str(spec.shard_connections()),
        *samples,
        "--log-dir",
        str(log_dir),
        "--display",
        "none",
        *spec.extra,
    ]


def run_once(spec: RunSpec) -> RunResult:
    """One run: `spec.shards` eval processes at once against one stub."""
    with tempfile.TemporaryDirectory(prefix="agentsense-throughput-") as tmp:
        work = Path(tmp)
        with stub_server(spec.latency) as (base_url, stub):
            env = isolated_env(work, base_url)
            with ThreadPoolExecutor(spec.shards) as pool:
                children = list(
                    pool.map(
                        lambda k: timed_child(
                            eval_command(spec, work / "logs", k), env, work / f"eval-{k}.out"
                        ),
                        range(1, spec.shards + 1),
                    )
                )
            stub_calls, stub_cpu = stub_stats(stub)
        log_stats = read_logs(work / "logs", spec.shards)
    first, last = min(c.started for c in children), max(c.ended for c in children)
    sample_start, sample_end = log_stats.pop("window")
    return RunResult(
        scenes=spec.scenes,
        connections=spec.connections,
        latency=spec.latency,
        max_samples=spec.max_samples,
        shards=spec.shards,
        wall=(sample_end - sample_start).total_seconds(),
        process_wall=(last - first).total_seconds(),
        start_up=(sample_start - first).total_seconds(),
        finalise=(last - sample_end).total_seconds(),
        cpu=sum(c.cpu for c in children),
        peak_rss_mb=max(c.peak_rss_mb for c in children),
        stub_calls=stub_calls,
        stub_cpu=stub_cpu,
        **log_stats,
    )
