"""Several logs of one run -> one run: the merge rules of `agentsense report` and `compare`.

1. Logs with the same eval id are versions of one log (`inspect eval-retry`, or a copy re-scored
   with `inspect score --output-file`): the most complete one is kept (a finished run first, then
   the one with more scorings, then the newest).
2. Logs of one run configuration (`config_key`: task and version, model, model roles, task
   arguments except `shard`, protocol, dataset, seed) are one run split into pieces
   (`--limit a-b`, `--sample-id`, shards, or a run finished in parts): their samples are merged.
   Pieces scored differently (another judge panel or scoring) stay separate runs.
   A sample (id, epoch) in several of them with the same scores is kept once; with different
   scores it is a conflict, refused with the ids named unless `prefer_newest` keeps the newest
   log's sample (newest by creation time, then file modification time).

The merged run is named by its newest log; its status is `success` only if every piece's is,
leaving out unfinished pieces whose samples all came again in newer pieces (`eval-retry`). Its
plan is the union of its pieces' plans (`progress`).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentsense.analysis.progress import plan_counts
from agentsense.engine.errors import ReportError

# Task arguments that select samples rather than define the run.
SELECTION_ARGS = ("shard",)
FRAMES = ("scenes", "goals", "mcqs", "answers")
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


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def signature(values: Mapping[str, Any]) -> str:
    """The scores of a sample as a comparable string (NaN as null)."""
    return json.dumps({k: _plain(v) for k, v in values.items()}, sort_keys=True, default=str)


def config_key(
    task: str, version: Any, model: str, roles: Any, args: Mapping[str, Any], meta: Any
) -> str:
    chosen = {k: v for k, v in args.items() if k not in SELECTION_ARGS}
    return json.dumps(
        {
            "task": task,
            "version": version,
            "model": model,
            "roles": roles,
            "args": chosen,
            "metadata": meta,
        },
        sort_keys=True,
        default=str,
    )


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
        "logs": len(group),
        "log_files": [log.name for log in sorted(group, key=LogData.order)],
        "samples": len(owners),
        "scenes": len({key[0] for key in owners}),
    }


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


def merge_logs(logs: Sequence[LogData], prefer_newest: bool = False) -> Merged:
    """Apply the merge rules; rows are relabelled with their run's `log` (its newest log)."""
    kept, notes = latest_versions(logs)
    groups: dict[str, list[LogData]] = defaultdict(list)
    for log in kept:
        # Pieces scored differently (one re-judged, one not) are not one run.
        groups[f"{log.run['config']}|{log.run.get('judges')}|{log.run.get('scoring')}"].append(log)
    runs: list[dict[str, Any]] = []
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in FRAMES}
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
    return Merged(runs, rows, notes)
