"""Inspect Flow specs of `flows/` run as a user runs them, offline against the stub, and the same
specs' tasks through the Python API (for a run without Flow, and for tests of either).

`flow run` (inspect-flow 0.14) in the current environment (`execution_type: inproc`) needs, beyond
its own dependencies:
- `uv` on PATH, which it does not declare: it runs `uv pip freeze` and `uv pip compile` to write
  `flow-requirements.txt` into the log folder. Without it the run stops before any task with
  `FileNotFoundError: [Errno 2] No such file or directory: 'uv'` (the dev extra installs uv).
- `UV_OFFLINE=1` here, so that `uv pip compile` fails at once instead of asking PyPI; Flow then
  logs "Failed to generate flow-requirements.txt" as a warning and runs the tasks.
- `XDG_DATA_HOME`: it writes its store and last log folder to `$XDG_DATA_HOME/inspect_flow/`.
- a working folder with no `.env` above it: it loads the first `.env` found upwards.
A spec's relative `log_dir` is taken from the spec's folder, so tests give `--log-dir`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from inspect_ai import Task, task_with
from inspect_ai.util import registry_create

from agentsense.standin.stub.harness import CliResult, InspectCLI

ROOT = Path(__file__).resolve().parent.parent
FLOWS = ROOT / "flows"
# The FlowTask fields `spec_tasks` carries over; any other field is refused by name.
TASK_FIELDS = ("name", "args", "model", "model_roles")


def flow_env(root: Path, base_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The sandboxed environment of a `flow` subprocess whose `vllm/` models are on `base_url`."""
    bin_dir = str(Path(sys.executable).parent)  # the venv's `uv` and `flow`
    return InspectCLI.sandbox_env(
        root,
        {
            "VLLM_BASE_URL": base_url,
            "VLLM_API_KEY": "stub",
            "UV_OFFLINE": "1",
            "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
            **(extra or {}),
        },
    )


def flow(
    command: str,
    spec: Path,
    root: Path,
    env: Mapping[str, str],
    *options: str,
    timeout: float = 600,
) -> CliResult:
    """`flow COMMAND SPEC OPTIONS` run in `root` (a folder with no `.env` above it)."""
    args = [str(Path(sys.executable).with_name("flow")), command, str(spec), *options]
    start = time.monotonic()
    done = subprocess.run(
        args, env=dict(env), cwd=root, capture_output=True, text=True, timeout=timeout
    )
    return CliResult(args, done.returncode, done.stdout, done.stderr, time.monotonic() - start)


def flow_check(
    spec: Path, root: Path, env: Mapping[str, str], log_dir: Path, *options: str
) -> dict[str, Any]:
    """`flow check --json`: each task of the spec, complete or not, against the log folder."""
    result = flow("check", spec, root, env, "--json", "--log-dir", str(log_dir), *options)
    start = result.stdout.find("{")
    assert start >= 0, result.output
    checked: dict[str, Any] = json.loads(result.stdout[start:])
    return checked


def spec_task_fields(spec: Path) -> list[dict[str, Any]]:
    """The spec's tasks as plain fields (name, args, model, model_roles), `defaults.task` under
    each task's own; a field `spec_tasks` cannot carry over is refused by name."""
    data = yaml.safe_load(spec.read_text(encoding="utf-8"))
    defaults = ((data.get("defaults") or {}).get("task")) or {}
    fields = []
    for n, item in enumerate(data.get("tasks") or [], start=1):
        merged = {**defaults, **({"name": item} if isinstance(item, str) else item)}
        unknown = sorted(set(merged) - set(TASK_FIELDS))
        if unknown:
            raise ValueError(
                f"{spec.name}, task {n}: {', '.join(unknown)} not carried over without Flow "
                f"(only {', '.join(TASK_FIELDS)}): run the spec with `flow run`"
            )
        fields.append(merged)
    return fields


def spec_tasks(spec: Path) -> list[Task]:
    """The spec's tasks as Inspect `Task`s, each built with its own arguments, model and model
    roles, for `inspect_ai.eval_set(tasks, ...)`: the same run without Flow."""
    tasks = []
    for fields in spec_task_fields(spec):
        task = registry_create("task", fields["name"], **(fields.get("args") or {}))
        given = {key: fields[key] for key in ("model", "model_roles") if fields.get(key)}
        tasks.append(task_with(task, **given))
    return tasks
