"""`agentsense eval-parts TASK`: one task run as N parts, each an `inspect eval TASK -T shard=k/N`
process, so that a run uses every core of a machine, or one part per Slurm array index or
Kubernetes completion index (`--part K`, deploy/). The parts share the server's capacity
(`--max-connections` and `--max-samples` are totals, split across the parts, and so are the
`INSPECT_EVAL_MAX_CONNECTIONS` and `INSPECT_EVAL_MAX_SAMPLES` Inspect's CLI reads when the option
is not given) and one log folder; `agentsense report` and `compare` read their logs as one run
(analysis/log_merge.py).

Why a standard runner (subprocesses of Inspect's own CLI) rather than Inspect's eval-set worker
mode: that mode lives in the private `inspect_ai._eval.eval_set_selection`, which this project
does not import (docs/usage.md, 'All cores').
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from agentsense.engine.errors import ReportError

EXIT_OK = 0
EXIT_PART_FAILED = 1
# The options whose value is the whole run's, split across the parts, and the variable Inspect's
# CLI reads each from when it is not given (left to the parts, each would take it whole).
SPLIT = {
    "--max-connections": "INSPECT_EVAL_MAX_CONNECTIONS",
    "--max-samples": "INSPECT_EVAL_MAX_SAMPLES",
}


@dataclass(frozen=True)
class Plan:
    """What `eval-parts` runs: the parts (1-based) of `processes`, and each part's command."""

    processes: int
    parts: tuple[int, ...]
    log_dir: str
    commands: dict[int, list[str]]
    dry_run: bool


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", metavar="TASK", help="e.g. agentsense/full")
    _own_options(parser)
    parser.add_argument(
        "options", nargs=argparse.REMAINDER, help="`inspect eval` options (-T, --model, ...)"
    )


def _own_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--processes",
        type=int,
        help="number of parts (default: this machine's cores; required with --part)",
    )
    parser.add_argument(
        "--part",
        type=int,
        metavar="K",
        help="run only part K of --processes (1-based: one Slurm array index or Kubernetes "
        "completion index + 1)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print each part's command, launch nothing"
    )


def split(total: int, parts: int) -> list[int]:
    """`total` as `parts` shares that differ by at most one (the first ones get the remainder)."""
    base, extra = divmod(total, parts)
    return [base + (1 if k < extra else 0) for k in range(parts)]


def from_args(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> Plan:
    """Each part's command from a parsed `agentsense eval-parts` command line, or a ReportError
    naming the bad argument. The options after TASK are read again: ours and the ones the parts
    share stand anywhere among `inspect eval`'s (argparse leaves all after TASK to `options`)."""
    reader = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    _own_options(reader)
    for name in SPLIT:
        reader.add_argument(name, type=int, dest=name)
    reader.add_argument("--log-dir", default=environ.get("INSPECT_LOG_DIR") or "./logs")
    reader.add_argument("--display", default="none")  # N live displays would garble one terminal
    try:  # into a copy of `args`: an option given before TASK holds unless given again after it
        ours, passed = reader.parse_known_args(args.options, argparse.Namespace(**vars(args)))
    except argparse.ArgumentError as error:
        raise ReportError(f"{error}: give a whole number") from None
    if any(a.startswith("shard=") or "-T=shard=" in a for a in passed):
        raise ReportError("-T shard is set by eval-parts (part k runs shard=k/N): remove it")
    processes = ours.processes if ours.processes is not None else (os.cpu_count() or 1)
    if processes < 1:
        raise ReportError(f"--processes {processes}: give at least 1")
    if ours.part is not None:
        if ours.processes is None:
            # Every machine of a cluster must split the same way, whatever its cores.
            raise ReportError("--part needs --processes N: the number of parts of the whole run")
        if not 1 <= ours.part <= processes:
            raise ReportError(f"--part {ours.part}: give 1 <= K <= {processes} (--processes)")
    shares = {name: _shares(name, vars(ours)[name], processes, environ) for name in SPLIT}
    parts = (ours.part,) if ours.part is not None else tuple(range(1, processes + 1))
    commands = {}
    for k in parts:
        command = ["inspect", "eval", args.task, "-T", f"shard={k}/{processes}"]
        command += ["--display", ours.display, *passed]
        for name, values in shares.items():
            command += [name, str(values[k - 1])] if values else []
        commands[k] = [*command, "--log-dir", ours.log_dir]
    return Plan(processes, parts, ours.log_dir, commands, ours.dry_run)


def _shares(name: str, given: int | None, processes: int, environ: Mapping[str, str]) -> list[int]:
    """The parts' shares of the run's total: the option's, else its variable's, else none."""
    variable = SPLIT[name]
    total, source = given, f"{name} {given}"
    if given is None and environ.get(variable):
        source = f"{variable}={environ[variable]}"
        try:
            total = int(environ[variable])
        except ValueError:
            raise ReportError(f"{source}: give a whole number (the run's {name})") from None
    if total is None:
        return []
    if total < processes:
        raise ReportError(
            f"{source} is fewer than the {processes} parts: each part needs at least one; "
            f"give {name} >= {processes} or --processes <= {max(total, 1)}"
        )
    return split(total, processes)


def run(args: argparse.Namespace) -> int:
    """run a task as N parts (-T shard=k/N), one process each: every core, or a cluster

    Run `inspect eval TASK` as N processes, part k running -T shard=k/N; --max-connections and
    --max-samples are the whole run's and are split across the parts (so are
    INSPECT_EVAL_MAX_CONNECTIONS and INSPECT_EVAL_MAX_SAMPLES when the option is not given:
    each part gets its share as the option); all parts write to one --log-dir. Any other option
    goes to `inspect eval`."""
    plan = from_args(args)
    if plan.dry_run:
        print("\n".join(shlex.join(plan.commands[k]) for k in plan.parts))
        return EXIT_OK
    if "--max-connections" not in plan.commands[plan.parts[0]]:
        print(
            "agentsense eval-parts: note: no --max-connections: each part uses the provider's "
            f"default, so the server may see {plan.processes} times it",
            file=sys.stderr,
        )
    return _launch(plan)


def _inspect() -> str:
    beside = Path(sys.executable).parent / "inspect"  # the Inspect of this environment
    found = str(beside) if beside.exists() else shutil.which("inspect")
    if found is None:
        raise ReportError("no `inspect` command found: install inspect-ai in this environment")
    return found


def _launch(plan: Plan) -> int:
    inspect = _inspect()
    started = time.time()
    running = {k: subprocess.Popen([inspect, *plan.commands[k][1:]]) for k in plan.parts}
    for k in plan.parts:
        print(f"part {k}/{plan.processes}: started (pid {running[k].pid})", file=sys.stderr)
    failed: dict[int, PartLog | None] = {}
    with _forwarding_sigterm(list(running.values())):
        codes = {k: _wait(process) for k, process in running.items()}
    for k, code in codes.items():
        log = part_log(plan.log_dir, f"{k}/{plan.processes}", started)
        status = log.status if log else "no log found"
        print(f"part {k}/{plan.processes}: exit {code}, log {status}", file=sys.stderr)
        # `inspect eval` exits 0 when the eval ends in error: only the log's status says it.
        if code != 0 or log is None or log.status != "success":
            failed[k] = log
    for k, log in failed.items():
        print(_resume_line(plan, k, log))
    return EXIT_PART_FAILED if failed else EXIT_OK


@contextmanager
def _forwarding_sigterm(processes: list[subprocess.Popen[bytes]]) -> Iterator[None]:
    """A scheduler ends a job with SIGTERM (`scancel`, a deleted Pod), then SIGKILL a grace period
    later: pass it to the parts and stay, so that each unfinished part's eval-retry line is
    printed. (Slurm signals every process of the job; Kubernetes only the container's first.)"""

    def forward(signum: int, _frame: object) -> None:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signum)

    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set a handler; a caller in a thread keeps its own
        return
    previous = signal.signal(signal.SIGTERM, forward)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _wait(process: subprocess.Popen[bytes]) -> int:
    """Wait for a part; Ctrl-C reaches the parts too (one process group), so let them stop."""
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue


def _resume_line(plan: Plan, k: int, log: PartLog | None) -> str:
    if log is None:
        # It stopped before its run (a bad option, no scene of --sample-id in its shard), and
        # `--display none` hides why: the line to see it (every command names --display once).
        again = list(plan.commands[k])
        again[again.index("--display") + 1] = "plain"
        return f"part {k}: no log written; see why with: {shlex.join(again)}"
    retry = ["inspect", "eval-retry", log.location, "--log-dir", plan.log_dir]
    return f"part {k}: resume with: {shlex.join(retry)}"


@dataclass(frozen=True)
class PartLog:
    location: str  # a local path, or the URL of a remote log folder's file
    status: str  # the eval's: success, error, cancelled, started (a killed process)


def part_log(log_dir: str, shard: str, since: float) -> PartLog | None:
    """The newest log in `log_dir` with `-T shard=<shard>` written since `since` (a time)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    found = []
    for info in list_eval_logs(log_dir, recursive=False):
        # mtime is in milliseconds
        if info.mtime is not None and info.mtime / 1000 < since - 1:
            continue
        try:
            header = read_eval_log(info, header_only=True)
        except Exception:  # a log cut short mid-write: not the one to resume from
            continue
        if header.eval.task_args.get("shard") == shard:
            found.append((info.mtime or 0.0, info.name, header.status))
    if not found:
        return None
    _, location, status = max(found)
    parsed = urlparse(location)
    return PartLog(unquote(parsed.path) if parsed.scheme == "file" else location, status)
