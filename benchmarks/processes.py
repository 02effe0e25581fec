"""The processes a benchmark starts: the stub model server, and timed children (CPU, peak RSS).

Shared by `throughput.py`, `side_by_side.py`, `profile_calls.py` and `startup.py`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


def isolated_env(work: Path, base_url: str | None) -> dict[str, str]:
    """The eval's environment: the stub's URL (None: no stub), and caches and data dirs of its
    own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECT_EVAL_")}
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "INSPECT_CACHE_DIR"):
        env[name] = str(work / name.lower())
    if base_url is not None:
        env["VLLM_BASE_URL"] = base_url
    return env


@contextlib.contextmanager
def stub_server(
    latency: float, log: Path | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The stub in its own process; yields its base URL. Stopped with SIGTERM at the end."""
    command = [
        sys.executable,
        "-m",
        "agentsense.standin.stub",
        "--port",
        "0",
        "--latency",
        str(latency),
    ]
    command += ["--log", str(log)] if log else []
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        if not base_url.startswith("http"):
            raise RuntimeError(
                f"the stub did not start: {process.stderr.read() if process.stderr else ''}"
            )
        yield base_url, process
    finally:
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
        if process.poll() is None:
            process.kill()


def stub_stats(process: subprocess.Popen[str]) -> tuple[int, float]:
    """Chat requests the stub answered and its CPU seconds, read just before it is stopped."""
    import psutil  # only the stub's CPU needs it; a dependency of Inspect

    times = psutil.Process(process.pid).cpu_times()
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    # Last stderr line: "agentsense stub: 1161 chat requests: ok=1161"
    counts = [line for line in err.splitlines() if "chat requests" in line]
    answered = int(counts[-1].split("chat requests")[0].split()[-1]) if counts else -1
    return answered, times.user + times.system


@dataclass
class ChildUsage:
    started: dt.datetime
    ended: dt.datetime
    cpu: float  # user + sys seconds
    peak_rss_mb: float


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def timed_child(
    command: list[str], env: dict[str, str], log: Path, cwd: Path | None = None
) -> ChildUsage:
    """Run a command to its end: start and end times, CPU seconds and peak RSS (wait4)."""
    started = now()
    with log.open("w") as out:
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
    ended = now()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} failed ({process.returncode}):\n" + log.read_text()[-3000:]
        )
    return ChildUsage(started, ended, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
