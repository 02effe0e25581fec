"""The *Runs* section (one row per run, as the report groups them) and the *Notes* of reading."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ...analysis.log_merge import finish_hint, shortfall
from ...analysis.logs import records
from ..content import Absent, Content
from ..document import Inputs
from ..render import markdown


def _log_names(run: dict[str, object]) -> str:
    files = run.get("log_files")
    if isinstance(files, list) and len(files) > 1:
        return f"{files[-1]} + {len(files) - 1} more ({len(files)} logs merged)"
    return Path(str(run["log"])).name


def _who(run: dict[str, object]) -> str:
    if run["kind"] == "pairwise":
        return f"{run['sender']} × {run['receiver']}"
    roles = run.get("roles")
    if run["kind"] == "labelling" and isinstance(roles, dict) and "labeller" in roles:
        return f"labeller {roles['labeller']}"
    return str(run["model"])


def run_line(run: dict[str, object]) -> str:
    """One line per run for the console."""
    logs = int(str(run.get("logs") or 1))
    scenes = int(str(run.get("scenes") or 0))
    return (
        f"{run['task']} {_who(run)}: {logs} log{'s' if logs != 1 else ''}, {scenes} "
        f"scene{'s' if scenes != 1 else ''}, scoring {run.get('scoring')}"
    )


def unfinished_lines(runs: pd.DataFrame) -> list[str]:
    """One line per run that did not finish its plan (progress.shortfall), with the fix."""
    lines = []
    for run in records(runs):
        short = shortfall(run)
        if short is None:
            continue
        fix = finish_hint(str(run["status"]), Path(str(run["log"])).name)
        lines.append(f"{run['task']} {_who(run)} ({_log_names(run)}): {short}; {fix}.")
    return lines


def unfinished_banner(lines: list[str]) -> str:
    return (
        "> **Unfinished runs: their rows cover only part of what they planned.**\n>\n"
        + "\n".join(f"> - {line}" for line in lines)
    )


def runs_section(inputs: Inputs) -> Content:
    rows = [
        [
            _log_names(run),
            run["task"],
            _who(run),
            run["group"],
            run["dataset"],
            run["mode"] or "–",
            "–" if pd.isna(run["rounds"]) else int(run["rounds"]),
            run["judges"] or "–",
            run.get("scoring") or "–",
            run.get("scenes", 0),
        ]
        for run in records(inputs.units.runs)
    ]
    head = [
        "log",
        "task",
        "model / sender × receiver",
        "row",
        "dataset",
        "protocol",
        "max messages",
        "judges",
        "scoring",
        "scenes",
    ]
    return "## Runs\n\n" + markdown(head, rows)


def notes_section(inputs: Inputs) -> Content:
    if not inputs.runs.notes:
        return Absent("nothing to note")
    return "## Notes\n\n" + "\n".join(f"- {note}" for note in inputs.runs.notes)
