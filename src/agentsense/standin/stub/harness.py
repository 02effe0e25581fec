"""Run the real `inspect` CLI in a subprocess, sandboxed, for integration and reliability tests.

Every file Inspect writes (logs, traces, sample buffer, generate cache) and the AgentSense data
cache go under one folder, and no model endpoint leaks in from the caller's environment.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentsense.standin.stub.server import StubServer

# Variables that would point a run at some other server or data source.
_LEAKY = (
    "VLLM_BASE_URL",
    "VLLM_API_KEY",
    "INSPECT_EVAL_MODEL",
    "INSPECT_LOG_DIR",
    "AGENTSENSE_DATA_URL",
    "INSPECT_EVAL_MODEL_BASE_URL",
    "INSPECT_LOG_LEVEL",  # `agentsense.cli.main` in-process sets it to error: warnings vanish
)


def inspect_executable() -> str:
    """The `inspect` script next to this Python (the venv's), else `inspect` on PATH."""
    candidate = Path(sys.executable).with_name("inspect")
    return str(candidate) if candidate.exists() else "inspect"


@dataclass(frozen=True)
class CliResult:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


class InspectCLI:
    """`inspect` subprocesses sharing one sandbox folder (so a retry sees the first run's cache)."""

    def __init__(self, root: Path, env: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.log_dir = root / "logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.env = self.sandbox_env(root, env)

    @staticmethod
    def sandbox_env(root: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _LEAKY}
        for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
            env[name] = str(root / name.lower())
        env["INSPECT_CACHE_DIR"] = str(root / "inspect-cache")
        env["AGENTSENSE_CACHE_DIR"] = str(root / "agentsense-cache")
        env["PYTHONUNBUFFERED"] = "1"
        env["COLUMNS"] = (
            "250"  # Rich wraps at 80 columns otherwise, splitting messages tests look for
        )
        env.update(extra or {})
        return env

    def command(self, args: Iterable[str]) -> list[str]:
        """`inspect ARGS`, with this sandbox's log folder for `eval` and `eval-retry`."""
        args = list(args)
        runs = args[:1] in (["eval"], ["eval-retry"]) and "--log-dir" not in args
        return [inspect_executable(), *args, *(["--log-dir", str(self.log_dir)] if runs else [])]

    def run(
        self, args: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 300
    ) -> CliResult:
        command = self.command(args)
        start = time.monotonic()
        done = subprocess.run(
            command,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.root,
        )
        return CliResult(
            command, done.returncode, done.stdout, done.stderr, time.monotonic() - start
        )

    def start(
        self, args: Sequence[str], env: Mapping[str, str] | None = None
    ) -> subprocess.Popen[str]:
        """Start in a new session, so `kill_hard` reaches every process of the run."""
        with (self.root / "started.out").open("w") as out:  # the child keeps its own handle
            return subprocess.Popen(
                self.command(args),
                env={**self.env, **(env or {})},
                cwd=self.root,
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )

    def eval_logs(self) -> list[Path]:
        """The `.eval` logs written so far, oldest first."""
        return sorted(self.log_dir.glob("*.eval"), key=lambda p: p.stat().st_mtime_ns)


def kill_hard(process: subprocess.Popen[str]) -> None:
    """SIGKILL the process group of a run started with `InspectCLI.start` (no clean-up runs)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


@dataclass(frozen=True)
class Interruption:
    """A run killed mid-way: the requests the stub had seen, and those in flight at the kill."""

    requests: int
    in_flight: int


def kill_after_answers(
    cli: InspectCLI,
    args: Sequence[str],
    stub: StubServer,
    env: Mapping[str, str],
    answers: int,
    timeout: float = 120.0,
) -> Interruption:
    """Start `inspect ARGS`, SIGKILL it once the stub has answered `answers` requests."""
    process = cli.start(args, env=env)
    try:
        deadline = time.monotonic() + timeout
        while len(stub.chat_records(outcome="ok")) < answers and process.poll() is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {answers} answered requests")
            time.sleep(0.05)
        if process.poll() is not None:
            raise AssertionError((cli.root / "started.out").read_text()[-3000:])
    finally:
        kill_at = stub.now()
        kill_hard(process)
    records = stub.chat_records()
    # Requests that may have been answered without the answer reaching the cache.
    in_flight = sum(
        r.started < kill_at and (r.duration is None or r.started + r.duration > kill_at - 1)
        for r in records
    )
    return Interruption(requests=len(records), in_flight=in_flight)


def sample_scores(log: Path) -> dict[str, dict[str, Any]]:
    """Every sample's score values, by sample id (`id` or `id:epoch` for several epochs)."""
    from inspect_ai.log import read_eval_log

    eval_log = read_eval_log(str(log))
    epochs = {sample.epoch for sample in eval_log.samples or []}
    scores: dict[str, dict[str, Any]] = {}
    for sample in eval_log.samples or []:
        key = str(sample.id) if len(epochs) <= 1 else f"{sample.id}:{sample.epoch}"
        scores[key] = {name: score.value for name, score in (sample.scores or {}).items()}
    return scores


def canonical(value: Any) -> str:
    """A text form that compares NaN equal to NaN (scores use NaN for 'not scored')."""
    return json.dumps(value, sort_keys=True, default=str)


def score_differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """Sample ids whose scores differ between two `sample_scores` results (or exist in one only)."""
    return sorted(
        key
        for key in set(a) | set(b)
        if key not in a or key not in b or canonical(a[key]) != canonical(b[key])
    )


@dataclass(frozen=True)
class LogFigures:
    """What a reliability test reports about one eval log."""

    status: str
    samples: int
    errored: int  # samples that still carry an error
    sample_retries: int  # samples re-run after an error (--retry-on-error)
    model_calls: int
    cache_reads: int
    inspect_retries: int  # retries Inspect made (the SDK's own retries are only seen by the server)


def log_figures(log: Path) -> LogFigures:
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import read_eval_log

    eval_log = read_eval_log(str(log))
    samples = eval_log.samples or []
    events = [e for s in samples for e in s.events if isinstance(e, ModelEvent)]
    return LogFigures(
        status=eval_log.status,
        samples=len(samples),
        errored=sum(s.error is not None for s in samples),
        sample_retries=sum(len(s.error_retries or []) for s in samples),
        model_calls=len(events),
        cache_reads=sum(e.cache == "read" for e in events),
        inspect_retries=sum(e.retries or 0 for e in events),
    )
