"""Several logs of one run -> one run, and how far a run got against its plan: the rules
`agentsense report` and `compare` share (docs/analysis.md, "Logs of one run are merged" and
"Unfinished runs").

1. Logs with the same eval id are versions of one log: the most complete one is kept.
2. Logs of one run configuration (`config_key`), scored alike, are pieces of one run: their
   samples are merged, each (id, epoch) once; the same sample with different scores is a
   conflict, refused unless `prefer_newest` keeps the newest log's.
3. (In 2.) A log that scored nothing is a piece of the one scored run of its configuration.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentsense.analysis.logs import as_int, missing
from agentsense.engine.errors import ReportError

# Task arguments that select samples rather than define the run.
SELECTION_ARGS = ("shard",)
FRAMES = ("scenes", "goals", "mcqs", "answers")  # one row per sample taken from one log
POOLED = ("calls", "values")  # every row of every log of the run (tokens, judge repeats)
Key = tuple[str, int]
MAX_LISTED = 5


@dataclass
class LogData:
    """One log as read: its eval row, its rows per frame, and a signature per sample."""

    run: dict[str, Any]
    scorers: list[str]
    signatures: dict[Key, str] = field(default_factory=dict)
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    skipped: int = 0

    @property
    def name(self) -> str:
        return Path(str(self.run["log"])).name

    def order(self) -> tuple[str, float]:
        """Newest last: creation time, then file modification time."""
        path = Path(str(self.run["log"]))
        return str(self.run["created"]), path.stat().st_mtime if path.exists() else 0.0


@dataclass
class Merged:
    runs: list[dict[str, Any]]
    rows: dict[str, list[dict[str, Any]]]
    notes: list[str]


def signature(values: Mapping[str, Any]) -> str:
    """The scores of a sample as a comparable string (NaN as null)."""
    plain = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in values.items()}
    return json.dumps(plain, sort_keys=True, default=str)


def config_key(
    task: str, version: Any, model: str, roles: Any, args: Mapping[str, Any], meta: Any
) -> str:
    chosen = {k: v for k, v in args.items() if k not in SELECTION_ARGS}
    key = {"task": task, "version": version, "model": model, "roles": roles, "args": chosen}
    return json.dumps({**key, "metadata": meta}, sort_keys=True, default=str)


def _best_version(logs: list[LogData]) -> LogData:
    return max(
        logs, key=lambda log: (log.run["status"] == "success", len(log.scorers), log.order())
    )


def latest_versions(logs: Sequence[LogData]) -> tuple[list[LogData], list[str]]:
    """Rule 1: one log per eval id."""
    by_id: dict[str, list[LogData]] = defaultdict(list)
    for log in logs:
        by_id[str(log.run["eval_id"])].append(log)
    kept, notes = [], []
    for versions in by_id.values():
        best = _best_version(versions)
        kept.append(best)
        notes += [
            f"{old.name}: an older version of {best.name} (same eval id: re-scored or "
            "retried), left out."
            for old in versions
            if old is not best
        ]
    return kept, notes


def _listed(items: list[str]) -> str:
    more = len(items) - MAX_LISTED
    return "; ".join(items[:MAX_LISTED]) + (f"; and {more} more" if more > 0 else "")


def _owners(group: list[LogData], prefer_newest: bool) -> tuple[dict[Key, LogData], int, list[str]]:
    """Which log each sample of the group is taken from (newest first), duplicates, conflicts."""
    owners: dict[Key, LogData] = {}
    duplicates = 0
    conflicts: list[str] = []
    for log in sorted(group, key=LogData.order, reverse=True):
        for key, sig in log.signatures.items():
            owner = owners.get(key)
            if owner is None:
                owners[key] = log
            elif owner.signatures[key] == sig:
                duplicates += 1
            else:
                conflicts.append(f"sample {key[0]} epoch {key[1]} in {owner.name} and {log.name}")
    if conflicts and not prefer_newest:
        raise ReportError(
            "The same sample appears in several logs of one run with different scores: "
            f"{_listed(conflicts)}. Pass only one of these logs, or --prefer-newest to keep "
            "the newest log's scores."
        )
    return owners, duplicates, conflicts


def _merged_run(group: list[LogData], owners: dict[Key, LogData]) -> dict[str, Any]:
    newest = max(group, key=LogData.order)
    # An unfinished piece whose samples all came again in newer pieces (the log that
    # `inspect eval-retry` finished) no longer makes the run unfinished.
    contributing = set(map(id, owners.values()))
    finished = any(log.run["status"] == "success" for log in group)
    failed = [
        log.run["status"]
        for log in group
        if log.run["status"] != "success" and (id(log) in contributing or not finished)
    ]
    return {
        **{key: value for key, value in newest.run.items() if key != "planned"},
        **plan_counts(log.run.get("planned") for log in group),
        "status": failed[0] if failed else "success",
        **_shard_counts(group),
        "logs": len(group),
        "log_files": [log.name for log in sorted(group, key=LogData.order)],
        "samples": len(owners),
        "scenes": len({key[0] for key in owners}),
    }


def _shard_counts(group: list[LogData]) -> dict[str, Any]:
    """The shards (`-T shard=k/n`) the pieces ran, and the scenes of the task they cover: the
    sum over distinct shards (an unsharded piece: its own count)."""
    sizes: dict[str | None, int] = {}
    for log in group:
        count = as_int(log.run.get("dataset_scenes"))
        if count is not None:
            shard = log.run.get("shard")
            sizes[shard] = max(sizes.get(shard, 0), count)
    shards = sorted(str(shard) for shard in sizes if shard is not None)
    if not sizes:
        return {"shards": shards, "dataset_scenes": None}
    return {"shards": shards, "dataset_scenes": sizes.get(None) or sum(sizes.values())}


def _group_note(run: dict[str, Any], duplicates: int, conflicts: int) -> str:
    text = (
        f"{run['logs']} logs of one run configuration ({run['task']}, {run['model']}) merged "
        f"into one run: {run['scenes']} scenes, {run['samples']} samples "
        f"({', '.join(run['log_files'])})"
    )
    if duplicates:
        text += f"; {duplicates} identical duplicate sample(s) kept once"
    if conflicts:
        text += f"; {conflicts} conflicting duplicate(s): the newest log's scores kept"
    return text + "."


def _join_unscored(groups: dict[tuple[str, str, str], list[LogData]]) -> None:
    """Rule 3: logs that scored nothing (killed before their first sample, as Flow leaves a task
    it reran after a kill) are pieces of the one scored run of their configuration, adding
    nothing to it, rather than an unfinished run of their own."""
    for key, group in list(groups.items()):
        if any(log.scorers for log in group):
            continue
        homes = [k for k, g in groups.items() if k[0] == key[0] and any(log.scorers for log in g)]
        if len(homes) == 1:
            groups[homes[0]] += groups.pop(key)


def merge_logs(logs: Sequence[LogData], prefer_newest: bool = False) -> Merged:
    """Apply the merge rules; rows are relabelled with their run's `log` (its newest log)."""
    kept, notes = latest_versions(logs)
    groups: dict[tuple[str, str, str], list[LogData]] = defaultdict(list)
    for log in kept:
        # Pieces scored differently (one re-judged, one not) are not one run.
        groups[(log.run["config"], str(log.run.get("judges")), str(log.run.get("scoring")))].append(
            log
        )
    _join_unscored(groups)
    runs: list[dict[str, Any]] = []
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in (*FRAMES, *POOLED)}
    for group in groups.values():
        owners, duplicates, conflicts = _owners(group, prefer_newest)
        run = _merged_run(group, owners)
        runs.append(run)
        if len(group) > 1:
            notes.append(_group_note(run, duplicates, len(conflicts)))
        for log in group:
            for name in FRAMES:
                rows[name] += [
                    {**row, "log": run["log"]}
                    for row in log.rows.get(name, [])
                    if owners.get((row["id"], row["epoch"])) is log
                ]
            for name in POOLED:
                rows[name] += [{**row, "log": run["log"]} for row in log.rows.get(name, [])]
    return Merged(runs, rows, notes)


# --- how far a run got -------------------------------------------------------------------------

STATUS_WORDS = {
    "cancelled": "cancelled",
    "error": "stopped by an error",
    "started": "unfinished (still running, or killed)",
    "success": "samples left out by errors",
}


def planned_keys(sample_ids: Any, epochs: Any) -> list[Key] | None:
    """The (sample id, epoch) pairs a log was to run; None when the log does not record them."""
    if not isinstance(sample_ids, list):
        return None
    count = 1 if missing(epochs) else int(epochs)
    return [(str(sample), epoch) for sample in sample_ids for epoch in range(1, count + 1)]


def plan_counts(plans: Iterable[list[Key] | None]) -> dict[str, int | None]:
    """The planned samples and scenes of the logs of one run (the union of their plans)."""
    known = [plan for plan in plans if plan is not None]
    if not known:
        return {"planned_samples": None, "planned_scenes": None}
    keys = {key for plan in known for key in plan}
    return {"planned_samples": len(keys), "planned_scenes": len({key[0] for key in keys})}


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
    scenes, samples = as_int(run.get("scenes")) or 0, as_int(run.get("samples")) or 0
    planned_scenes = as_int(run.get("planned_scenes"))
    planned_samples = as_int(run.get("planned_samples"))
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
