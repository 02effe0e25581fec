"""`agentsense eval-parts TASK`: one task run as N parts, each an `inspect eval TASK -T shard=k/N`
process, so that a run uses every core of a machine, or one part per Slurm array index or
Kubernetes completion index (`--part K`, deploy/). The parts share the server's capacity
(`--max-connections` and `--max-samples` are totals, split across the parts) and one log folder;
`agentsense report` and `compare` read their logs as one run (analysis/log_merge.py).

Why a standard runner (subprocesses of Inspect's own CLI) rather than Inspect's eval-set worker
mode: that mode lives in the private `inspect_ai._eval.eval_set_selection`, which this project
does not import (docs/usage.md, 'All cores').
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from agentsense.engine.errors import ReportError

EXIT_OK = 0
EXIT_PART_FAILED = 1
# Options whose value is the whole run's and is split across the parts.
SPLIT = ("--max-connections", "--max-samples")


@dataclass(frozen=True)
class Plan:
    """What `eval-parts` runs: the task, the parts (1-based), and each part's command."""

    task: str
    processes: int
    parts: tuple[int, ...]
    log_dir: str
    commands: dict[int, list[str]]
    dry_run: bool = False
    connections_given: bool = True


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "eval-parts",
        help="run a task as N parts (-T shard=k/N), one process each: every core, or a cluster",
        description="Run `inspect eval TASK` as N processes, part k running -T shard=k/N; "
        "--max-connections and --max-samples are the whole run's and are split across the "
        "parts; all parts write to one --log-dir. Any other option goes to `inspect eval`.",
    )
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


def _option_parser() -> argparse.ArgumentParser:
    """Our options and the ones we split, wherever they stand among `inspect eval`'s."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    _own_options(parser)
    for name in SPLIT:
        parser.add_argument(name, type=int)
    parser.add_argument("--log-dir")
    return parser


def split(total: int, parts: int) -> list[int]:
    """`total` as `parts` shares that differ by at most one (the first ones get the remainder)."""
    base, extra = divmod(total, parts)
    return [base + (1 if k < extra else 0) for k in range(parts)]


def plan(task: str, arguments: Sequence[str], cpu_count: int | None = None) -> Plan:
    """Each part's command from the command line, or a ReportError naming the bad argument."""
    try:
        ours, passed = _option_parser().parse_known_args(list(arguments))
    except argparse.ArgumentError as error:
        raise ReportError(f"{error}: give a whole number") from None
    if any(a.startswith("shard=") for a in passed) or any("-T=shard=" in a for a in passed):
        raise ReportError("-T shard is set by eval-parts (part k runs shard=k/N): remove it")
    processes = ours.processes if ours.processes is not None else (cpu_count or 1)
    if processes < 1:
        raise ReportError(f"--processes {processes}: give at least 1")
    if ours.part is not None:
        if ours.processes is None:
            # Every machine of a cluster must split the same way, whatever its cores.
            raise ReportError("--part needs --processes N: the number of parts of the whole run")
        if not 1 <= ours.part <= processes:
            raise ReportError(f"--part {ours.part}: give 1 <= K <= {processes} (--processes)")
    shares = {name: _shares(name, getattr(ours, _dest(name)), processes) for name in SPLIT}
    log_dir = ours.log_dir or os.environ.get("INSPECT_LOG_DIR") or "./logs"
    parts = (ours.part,) if ours.part is not None else tuple(range(1, processes + 1))
    if "--display" not in passed and not any(a.startswith("--display=") for a in passed):
        passed += ["--display", "none"]  # N live displays on one terminal would garble it
    commands = {}
    for k in parts:
        command = ["inspect", "eval", task, "-T", f"shard={k}/{processes}", *passed]
        for name, values in shares.items():
            if values:
                command += [name, str(values[k - 1])]
        commands[k] = [*command, "--log-dir", log_dir]
    given = ours.max_connections is not None
    return Plan(task, processes, parts, log_dir, commands, ours.dry_run, given)


def _dest(name: str) -> str:
    return name.lstrip("-").replace("-", "_")


def _shares(name: str, total: int | None, processes: int) -> list[int]:
    if total is None:
        return []
    if total < processes:
        raise ReportError(
            f"{name} {total} is fewer than the {processes} parts: each part needs at least one; "
            f"give {name} >= {processes} or --processes <= {max(total, 1)}"
        )
    return split(total, processes)


def from_args(args: argparse.Namespace) -> Plan:
    """The plan of a parsed `agentsense eval-parts` command line."""
    arguments = list(args.options)
    for name in ("processes", "part"):
        if getattr(args, name) is not None:
            arguments += [f"--{name}", str(getattr(args, name))]
    if args.dry_run:
        arguments.append("--dry-run")
    return plan(args.task, arguments, os.cpu_count())


def run(args: argparse.Namespace) -> int:
    """The `eval-parts` command: plan, then print (--dry-run) or run every part to its end."""
    the_plan = from_args(args)
    if the_plan.dry_run:
        for k in the_plan.parts:
            print(shlex.join(the_plan.commands[k]))
        return EXIT_OK
    if not the_plan.connections_given:
        print(
            "agentsense eval-parts: note: no --max-connections: each part uses the provider's "
            f"default, so the server may see {the_plan.processes} times it",
            file=sys.stderr,
        )
    return _launch(the_plan)


def _inspect() -> str:
    beside = Path(sys.executable).parent / "inspect"  # the Inspect of this environment
    found = str(beside) if beside.exists() else shutil.which("inspect")
    if found is None:
        raise ReportError("no `inspect` command found: install inspect-ai in this environment")
    return found


def _launch(the_plan: Plan) -> int:
    inspect = _inspect()
    started = time.time()
    running = {k: subprocess.Popen([inspect, *the_plan.commands[k][1:]]) for k in the_plan.parts}
    for k in the_plan.parts:
        print(f"part {k}/{the_plan.processes}: started (pid {running[k].pid})", file=sys.stderr)
    failed: dict[int, PartLog | None] = {}
    for k, process in running.items():
        code = _wait(process)
        log = part_log(the_plan.log_dir, f"{k}/{the_plan.processes}", started)
        status = log.status if log else "no log found"
        print(f"part {k}/{the_plan.processes}: exit {code}, log {status}", file=sys.stderr)
        # `inspect eval` exits 0 when the eval ends in error: only the log's status says it.
        if code != 0 or log is None or log.status != "success":
            failed[k] = log
    for k, log in failed.items():
        print(_resume_line(the_plan, k, log))
    return EXIT_PART_FAILED if failed else EXIT_OK


def _wait(process: subprocess.Popen[bytes]) -> int:
    """Wait for a part; Ctrl-C reaches the parts too (one process group), so let them stop."""
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue


def _resume_line(the_plan: Plan, k: int, log: PartLog | None) -> str:
    if log is None:
        # It stopped before its run (a bad option, no scene of --sample-id in its shard), and
        # `--display none` hides why: the line to see it.
        again = shlex.join(_display(the_plan.commands[k], "plain"))
        return f"part {k}: no log written; see why with: {again}"
    return f"part {k}: resume with: {shlex.join(['inspect', 'eval-retry', log.location])} " + (
        f"--log-dir {shlex.quote(the_plan.log_dir)}"
    )


def _display(command: list[str], display: str) -> list[str]:
    """`command` with `--display display` in place of its own."""
    kept = [a for a in command if not a.startswith("--display=")]
    if "--display" in kept:
        at = kept.index("--display")
        del kept[at : at + 2]
    return [*kept[:3], "--display", display, *kept[3:]]


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
