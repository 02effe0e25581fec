"""The report's construction summary: what `agentsense/construct` built, from its logs.

One row per log and script: the builder model, episodes and scenes found, scenes kept and
filtered, templates, scenarios and MCQs built, model calls and repairs, items dropped; then the
dropped items grouped by stage and reason (every drop in `construction_drops.csv`). The counts
are the build's own (`BuildResult.counts`, in the score metadata of the newest scoring).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..analysis import logs
from ..analysis.logs import log_name, newest_score, records
from ..roles import BUILDER_ROLE
from .content import Absent, Content
from .other_logs import OtherLogs
from .render import markdown

if TYPE_CHECKING:
    from .document import Report

TASK = "construct"
COUNTS = (
    "episodes",
    "scenes",
    "scenes_kept",
    "scenes_filtered",
    "templates",
    "scenarios",
    "mcqs",
    "calls",
    "repairs",
    "dropped",
)
HEADERS = {
    "scenes_kept": "scenes kept",
    "scenes_filtered": "scenes filtered",
    "mcqs": "MCQs",
}
DROP_COLUMNS = ["log", "script", "stage", "item", "reason"]


def build_rows(path: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """Per script of one log: its counts; every dropped item; scripts that failed (errors)."""
    builder = logs.role_model(logs.header(path), BUILDER_ROLE)
    scripts, drops, failed = [], [], 0
    for sample in logs.samples(path):
        scored = newest_score(sample)
        if scored is None:
            failed += 1
            continue
        metadata = scored[1].metadata or {}
        value = scored[1].value if isinstance(scored[1].value, dict) else {}
        counts = {**value, **(metadata.get("counts") or {})}
        script = str((sample.metadata or {}).get("script") or sample.id)
        scripts.append(
            {
                "log": log_name(path),
                "builder": builder,
                "script": script,
                **{key: counts.get(key) for key in COUNTS},
            }
        )
        drops += [
            {"log": log_name(path), "script": script, **{k: d.get(k) for k in DROP_COLUMNS[2:]}}
            for d in metadata.get("drops") or []
        ]
    return scripts, drops, failed


def construction_tables(paths: list[str]) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    scripts, drops, failed = [], [], 0
    for path in paths:
        rows, dropped, errors = build_rows(path)
        scripts += rows
        drops += dropped
        failed += errors
    columns = ["log", "builder", "script", *COUNTS]
    return pd.DataFrame(scripts, columns=columns), pd.DataFrame(drops, columns=DROP_COLUMNS), failed


def _count(value: object) -> str:
    return str(int(value)) if isinstance(value, int | float) and not math.isnan(value) else "–"


def _drops_text(drops: pd.DataFrame) -> str:
    if drops.empty:
        return "Nothing was dropped."
    grouped: dict[tuple[str, str], list[str]] = defaultdict(list)
    for drop in drops.to_dict("records"):
        grouped[(str(drop["stage"]), str(drop["reason"]))].append(str(drop["item"]))
    rows = [
        [stage, reason, str(len(items)), ", ".join(items)]
        for (stage, reason), items in sorted(grouped.items())
    ]
    return "### Dropped items\n\n" + markdown(["stage", "reason", "items", "which"], rows)


def _with_total(scripts: pd.DataFrame) -> list[dict[str, Any]]:
    rows = records(scripts)
    if len(rows) > 1:
        total = {key: sum(float(row[key] or 0) for row in rows) for key in COUNTS}
        rows.append({"log": "all", "builder": "", "script": "total", **total})
    return rows


def construction_section(others: OtherLogs, report: Report) -> Content:
    paths = others.of(TASK)
    if not paths:
        return Absent("no agentsense/construct log among the inputs")
    scripts, drops, failed = construction_tables(paths)
    if scripts.empty:
        return Absent("no agentsense/construct log has a built script")
    report.csv(scripts, "construction")
    report.csv(drops, "construction_drops")
    for path in paths:
        part = scripts[scripts["log"] == log_name(path)]
        builders = ", ".join(sorted(set(part["builder"])))
        report.runs.append(f"construct {builders}: 1 log, {len(part)} script(s)")
    head = ["log", "builder", "script", *(HEADERS.get(c, c) for c in COUNTS)]
    rows = [
        [
            others.labelled(str(r["log"]), str(r["log"])),
            str(r["builder"]),
            str(r["script"]),
            *(_count(r[c]) for c in COUNTS),
        ]
        for r in _with_total(scripts)
    ]
    note = f"\n\n{failed} script(s) failed with an error and built nothing." if failed else ""
    return (
        "## Construction (agentsense/construct)\n\nWhat the builder made of each script (App. A): "
        "episodes and scenes found, scenes kept (enough dialogue) and filtered out, scenario "
        "templates, scenarios (agent sets) and MCQs built, model calls and repair requests, items "
        "dropped after their repairs failed. Columns in `construction.csv`, every drop in "
        "`construction_drops.csv`.\n\n" + markdown(head, rows) + note + "\n\n" + _drops_text(drops)
    )
