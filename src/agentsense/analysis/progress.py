"""How far a run got against its plan: the one rule `agentsense report` and `compare` share.

A log records its plan: the sample ids it was to run (after `--limit` and `--sample-id`,
`eval.dataset.sample_ids`) times its epochs. A run is finished when its status is `success`
and every planned sample was scored. A cancelled run (Ctrl-C), one stopped by an error
(`--fail-on-error`), one still running or killed (status `started`), and one that finished
with samples left out by errors (`--no-fail-on-error`) are not: `shortfall` says how far each
got, e.g. "cancelled: 9 of 24 scenes".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agentsense.analysis.log_fields import json_value, missing

Key = tuple[str, int]
STATUS_WORDS = {
    "cancelled": "cancelled",
    "error": "stopped by an error",
    "started": "unfinished (still running, or killed)",
    "success": "samples left out by errors",
}


def planned_keys(sample_ids: Any, epochs: Any) -> list[Key] | None:
    """The (sample id, epoch) pairs a log was to run; None when the log does not record them."""
    ids = json_value(sample_ids)
    if not isinstance(ids, list):
        return None
    count = 1 if missing(epochs) else int(epochs)
    return [(str(sample), epoch) for sample in ids for epoch in range(1, count + 1)]


def plan_counts(plans: Iterable[list[Key] | None]) -> dict[str, int | None]:
    """The planned samples and scenes of the logs of one run (the union of their plans)."""
    known = [plan for plan in plans if plan is not None]
    if not known:
        return {"planned_samples": None, "planned_scenes": None}
    keys = {key for plan in known for key in plan}
    return {"planned_samples": len(keys), "planned_scenes": len({key[0] for key in keys})}


def _count(value: Any) -> int | None:
    return None if missing(value) else int(value)


def scored_run(status: str, plan: list[Key] | None, scored: Iterable[Key]) -> dict[str, Any]:
    """A run's progress fields from its status, plan and scored (sample id, epoch) pairs."""
    keys = set(scored)
    return {
        "status": status,
        "samples": len(keys),
        "scenes": len({key[0] for key in keys}),
        **plan_counts([plan]),
    }


def shortfall(run: Mapping[str, Any], unit: str = "scenes") -> str | None:
    """None when the run is finished; otherwise its status and how far it got against its plan
    (`run`: a merged run of `log_merge`, with status, scenes, samples and the planned counts;
    `unit`: what a sample is, scenes for the benchmark's tasks)."""
    status = str(run.get("status"))
    scenes, samples = _count(run.get("scenes")) or 0, _count(run.get("samples")) or 0
    planned_scenes = _count(run.get("planned_scenes"))
    planned_samples = _count(run.get("planned_samples"))
    if status == "success" and (planned_samples is None or samples >= planned_samples):
        return None
    word = STATUS_WORDS.get(status, f"status {status}")
    if planned_scenes is None or planned_samples is None:
        return f"{word}: {scenes} {unit} scored (the log records no plan)"
    text = f"{word}: {scenes} of {planned_scenes} {unit}"
    if planned_samples != planned_scenes:  # epochs: say the samples too
        text += f" ({samples} of {planned_samples} samples)"
    return text


def finish_hint(status: str, log: str) -> str:
    """How to finish an unfinished run: retry its log, or rerun what failed in a finished one
    (`inspect eval-retry` takes only logs that did not succeed)."""
    if status == "success":
        return "rerun the samples that failed"
    return f"finish it with `inspect eval-retry {log}`"
