"""`agentsense scenarios`: built scenarios from `agentsense/construct` logs -> a dataset file.

The records are instantiated again from the templates stored in the log (the build's own
settings, so the same records), after the human-validation sheet if one is given, and checked
with the project's dataset validation before anything is written.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentsense.construction.build import FILTERED, BuildResult, instantiate_all
from agentsense.construction.characters import Template
from agentsense.construction.review import apply_sheet, write_sheet
from agentsense.engine.errors import ReportError
from agentsense.sense.dataset.validation import read_scenarios

STORE_KEY = "BuildStore:result"


@dataclass
class Export:
    builds: list[BuildResult] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)  # the log each build was read from
    notes: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Found:
    log: Path
    finished: bool  # the log's status is success
    result: BuildResult


def _log_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.suffix in (".eval", ".json"))
        elif path.is_file():
            files.append(path)
        else:
            raise ReportError(f"{name}: no such log file or folder.")
    return files


def load_builds(paths: list[str]) -> Export:
    """Every finished script of the `agentsense/construct` logs named (files or folders).

    A script built in several logs counts once when those are one build: an unfinished log and
    the log that finished it (`eval-retry`), or finished logs with identical results. Finished
    logs with different builds of one script would export colliding ids: refused, naming them.
    A script that no log finished is named, with the command that finishes it.
    """
    from inspect_ai.log import read_eval_log

    export = Export()
    found: dict[str, list[_Found]] = {}
    unfinished: dict[str, Path] = {}
    logs = []
    for file in _log_files(paths):
        try:
            logs.append((file, read_eval_log(str(file))))
        except Exception as error:  # Inspect raises many types for unreadable files
            raise ReportError(f"{file}: not a readable Inspect log ({error}).") from None
    for file, log in sorted(logs, key=lambda pair: pair[1].eval.created):
        stored = [s for s in log.samples or [] if s.store and s.store.get(STORE_KEY)]
        if not log.eval.task.endswith("construct") and not stored:
            continue
        dropped = (log.eval.metadata or {}).get("scripts_dropped") or {}
        export.notes += [
            f"{file}: script {name} was dropped before the build: {reason}"
            for name, reason in dropped.items()
        ]
        for sample_id in log.eval.dataset.sample_ids or []:
            unfinished.setdefault(str(sample_id), file)
        for sample in stored:
            result = BuildResult.model_validate(sample.store[STORE_KEY])
            found.setdefault(str(sample.id), []).append(
                _Found(file, log.status == "success", result)
            )
    collisions = []
    for sample_id, builds in found.items():
        candidates = [b for b in builds if b.finished] or builds[-1:]
        distinct: list[_Found] = []
        for build in candidates:
            if not any(build.result == kept.result for kept in distinct):
                distinct.append(build)
        if len(distinct) > 1:
            names = ", ".join(str(b.log) for b in distinct)
            collisions.append(f"script {sample_id} is built differently in {names}")
            continue
        if len(candidates) > 1:
            names = ", ".join(str(b.log) for b in candidates)
            export.notes.append(f"script {sample_id}: identical builds in {names}; exported once.")
        export.builds.append(distinct[0].result)
        export.logs.append(distinct[0].log)
    if collisions:
        raise ReportError(
            "these builds would export scenarios with the same ids:\n  "
            + "\n  ".join(collisions)
            + "\nexport each build on its own (name the log file), or move one aside."
        )
    for sample_id, file in unfinished.items():
        if sample_id not in found:
            export.notes.append(
                f"{file}: script {sample_id} did not finish; run `inspect eval-retry {file}`."
            )
    if not export.builds:
        raise ReportError(
            f"no built scenarios in {', '.join(paths)}: expected logs of agentsense/construct "
            "with at least one finished script."
        )
    return export


def _validated_write(records: list[dict[str, Any]], out: Path) -> None:
    """Write through a temporary file that must pass `read_scenarios` before it replaces `out`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=".scenarios-", suffix=".jsonl", dir=out.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            for record in records:
                stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        read_scenarios(temp)
        os.replace(temp, out)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


def export_scenarios(
    paths: list[str], out: Path | None, review: Path | None = None, accept: Path | None = None
) -> Export:
    export = load_builds(paths)
    for build in export.builds:
        templates: list[Template] = build.templates
        if accept is not None:
            templates, removed = apply_sheet(templates, accept)
            export.removed += removed
        export.records += instantiate_all(templates, build.settings)
    if review is not None:
        write_sheet([t for b in export.builds for t in b.templates], review)
    if out is not None:
        if not export.records:
            raise ReportError("no scenario left to write (every template was dropped).")
        _validated_write(export.records, out)
    return export


def summary(export: Export) -> list[str]:
    """Stage-by-stage counts per script, then every dropped item with its stage and reason."""
    lines = []
    for build, log in zip(export.builds, export.logs, strict=True):
        counts = build.counts()
        read = (
            f"read {build.headings} headings and {build.speeches} speeches; {build.lines.line()}"
            if build.lines.read
            else "no line account (built before the reader kept one)"
        )
        lines.append(f"{build.script} ({log.name}): {read}")
        lines.append(
            f"  built {counts['episodes']} episodes, {counts['scenes']} scenes "
            f"({counts['scenes_kept']} kept, {counts['scenes_filtered']} filtered), "
            f"{counts['templates']} templates, {counts['scenarios']} scenarios, "
            f"{counts['mcqs']} MCQs; {counts['calls']} model calls, {counts['repairs']} repairs, "
            f"{counts['dropped']} items dropped"
        )
        for drop in build.ledger.drops:
            kind = "filtered" if drop.stage == FILTERED else "dropped"
            lines.append(f"  {kind} [{drop.stage}] {drop.item}: {drop.reason}")
    lines += [f"  removed by review: {line}" for line in export.removed]
    return lines + [f"Note: {note}" for note in export.notes]
