"""AgentSense logs -> tidy pandas frames, read with Inspect's own APIs.

`evals_df` gives one row per log (task, models, roles, protocol); `samples_df` with full sample
columns gives the score values and the score metadata (per-goal answers, MCQ answers, judge
names) of every sample and epoch. From them:

- `evals`: one row per log;
- `scenes`: one row per scored sample and epoch, with the scene's score values;
- `goals`: one row per goal of a scored sample and epoch, with the per-goal scores the scorer
  logged (score metadata `goal_scores`);
- `mcqs`: one row per logged MCQ answer (`mcq_answers`), with the asker (attacker) and the probed
  character (defender).

Samples with an error or without an AgentSense score are left out (counted in `notes`), and so
are logs of other tasks. A log with several scorings (re-judged with `inspect score --action
append`) is read with the one named by `scorer`, or by default with all of them, the newest
overriding the older key by key; the run's `scoring` says which. Logs of one run are merged by
the rules of `log_merge`. Each log is read once per process while its file is unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.analysis import evals_df, samples_df
from inspect_ai.log import list_eval_logs, read_eval_log_sample

from agentsense.analysis.answer_frame import answer_frame, answer_rows
from agentsense.analysis.log_fields import (
    JUDGED_TASKS,
    LOG_SUFFIXES,
    NO_ROUNDS,
    PROTOCOL_FIELDS,
    READ_TASKS,
    SAMPLE_COLUMNS,
    SCORE_COLUMNS,
    TASK_KINDS,
    as_float,
    json_value,
    merged_scores,
    missing,
    panel,
    records,
    score_names,
    setup,
    short_task,
)
from agentsense.analysis.log_merge import LogData, config_key, merge_logs, signature
from agentsense.analysis.progress import planned_keys
from agentsense.analysis.sample_rows import goal_rows, mcq_rows, sample_context, scene_row
from agentsense.engine.conversation import Conversation, Turn
from agentsense.engine.errors import ReportError
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.score_keys import GOAL_ANSWERS, GOAL_KEYS, JUDGES, SCORE_KEYS


@dataclass
class Runs:
    """Everything a report needs, as frames keyed by `log` (one log = one run)."""

    evals: pd.DataFrame
    scenes: pd.DataFrame
    goals: pd.DataFrame
    mcqs: pd.DataFrame
    # One row per goal answer (analysis.answer_frame.ANSWER_COLUMNS), for judge agreement.
    answers: pd.DataFrame = field(default_factory=lambda: answer_frame([]))
    notes: list[str] = field(default_factory=list)


# --- paths -------------------------------------------------------------------------------------


def _local(name: str) -> str:
    """A `file:` URI (as `list_eval_logs` gives) as a plain path."""
    for prefix in ("file://", "file:"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def log_paths(inputs: Sequence[str]) -> list[str]:
    """Log files named directly or found (recursively) in the given folders."""
    paths: list[str] = []
    for given in inputs:
        path = Path(given).expanduser()
        if path.is_dir():
            found = [_local(info.name) for info in list_eval_logs(str(path), recursive=True)]
            if not found:
                raise ReportError(f"{given}: no Inspect log (.eval or .json) in this folder.")
            paths.extend(sorted(found))
        elif path.is_file():
            if path.suffix not in LOG_SUFFIXES:
                raise ReportError(f"{given}: not an Inspect log (expected a .eval or .json file).")
            paths.append(str(path.resolve()))
        else:
            raise ReportError(f"{given}: no such file or folder.")
    return paths


# --- evals -------------------------------------------------------------------------------------


def _role_models(model_roles: Any) -> dict[str, str]:
    """Role -> model name (the first model of a list, as `get_model(role=...)` does)."""
    roles: dict[str, str] = {}
    for role, bound in (json_value(model_roles) or {}).items():
        first = bound[0] if isinstance(bound, list) and bound else bound
        if isinstance(first, dict):
            roles[role] = str(first.get("model"))
        elif first is not None:
            roles[role] = str(first)
    return roles


def _judge_models(model_roles: Any, model: str) -> str:
    """The judge panel as logged (role `judge`, a list makes a panel); unbound: evaluated model."""
    bound = (json_value(model_roles) or {}).get("judge")
    panel = bound if isinstance(bound, list) else [bound] if bound else [model]
    return ", ".join(
        str(judge.get("model")) if isinstance(judge, dict) else str(judge) for judge in panel
    )


def _eval_row(row: Mapping[str, Any]) -> dict[str, Any]:
    metadata = json_value(row["metadata"]) or {}
    protocol = metadata.get("protocol") or {}
    roles = _role_models(row["model_roles"])
    model = str(row["model"])
    task = short_task(str(row["task_name"]))
    return {
        "log": row["log"],
        "eval_id": row["eval_id"],
        "created": row["created"],
        "status": row["status"],
        # What the log was to run: its sample ids (after --limit, --sample-id) x epochs.
        "planned": planned_keys(row.get("dataset_sample_ids"), row.get("epochs")),
        "task": task,
        "kind": TASK_KINDS[task],
        "model": model,
        # An unbound sender/receiver role is played by the evaluated model.
        "sender": roles.get("sender", model) if task == "pairwise" else None,
        "receiver": roles.get("receiver", model) if task == "pairwise" else None,
        "dataset": str(metadata.get("dataset", row.get("task_arg_dataset", ""))),
        # No conversation in these: no rounds.
        "rounds": protocol.get("max_messages") if task not in NO_ROUNDS else None,
        "per_template": _subset(row.get("task_arg_per_template")),
        **{name: protocol.get(name) for name in PROTOCOL_FIELDS},
        "roles": roles,
        "judges": _judge_models(row["model_roles"], model)
        if task in ("goal", "full", "pairwise")
        else "",
    }


def _subset(value: Any) -> int | None:
    """`-T per_template=K` of a run (None: every scene of each template)."""
    value = json_value(value)
    return None if missing(value) else int(value)


def _is_agentsense(row: Mapping[str, Any]) -> bool:
    metadata = json_value(row["metadata"])
    return (
        short_task(str(row["task_name"])) in TASK_KINDS
        and isinstance(metadata, dict)
        and "protocol" in metadata
    )


# --- one log -----------------------------------------------------------------------------------


def _config(row: Mapping[str, Any]) -> str:
    args = {
        str(k).removeprefix("task_arg_"): json_value(v)
        for k, v in row.items()
        if str(k).startswith("task_arg_") and not missing(v)
    }
    return config_key(
        short_task(str(row["task_name"])),
        row.get("task_version"),
        str(row["model"]),
        json_value(row.get("model_roles")),
        args,
        json_value(row["metadata"]),
    )


def _scoring(names: list[str], scorer: str | None) -> str:
    if scorer is not None or len(names) == 1:
        return scorer or names[0]
    if not names:
        return "none"
    earlier = ", ".join(reversed(names[:-1]))
    return f"{names[-1]} (newest), then {earlier} for the keys it lacks"


def _read_eval(path: str) -> dict[str, Any] | str:
    """The eval row of one log, or why it is not an AgentSense log."""
    try:
        (row,) = records(evals_df([path], quiet=True))
    except Exception as error:  # Inspect raises many types for unreadable files
        raise ReportError(f"{path}: could not read it as an Inspect log ({error}).") from None
    if not _is_agentsense(row):
        return f"{Path(path).name} (task {row['task_name']!r})"
    return {**_eval_row(row), "config": _config(row)}


def _read_log(path: str, scorer: str | None, full: bool) -> LogData | str:
    run = _read_eval(path)
    if isinstance(run, str):
        return run
    samples = records(
        samples_df([path], columns=SAMPLE_COLUMNS if full else SCORE_COLUMNS, quiet=True)
    )
    names = list(dict.fromkeys(name for row in samples for name in score_names(row)))
    log = LogData({**run, "scoring": _scoring(names, scorer)}, names)
    if scorer is not None and scorer not in names:
        return log
    log.rows = {"scenes": [], "goals": [], "mcqs": [], "answers": []}
    for row in samples:
        values, metadata = merged_scores(row, scorer)
        if row.get("error") or not values:
            log.skipped += 1
            continue
        key = (str(row["id"]), int(row["epoch"]))
        if run["task"] in JUDGED_TASKS and isinstance(metadata.get(JUDGES), dict):
            # The panel that scored (re-judging with `inspect score` keeps the log's roles).
            run["judges"] = panel(metadata)
        if not full:
            scene = {name: as_float(values[name]) for name in SCORE_KEYS if name in values}
            template = row.get("template_id")
            log.rows["scenes"].append(
                {
                    "log": path,
                    "id": key[0],
                    "epoch": key[1],
                    "template_id": None if template is None else str(template),
                    **scene,
                    **setup(metadata, run["model"]),
                }
            )
            log.signatures[key] = signature(values)
            continue
        context = sample_context(row, run, scorer)
        if context is None:
            log.skipped += 1
            continue
        log.signatures[key] = signature(values)
        log.rows["scenes"].append(scene_row(context, run["rounds"]))
        log.rows["goals"].extend(goal_rows(context))
        log.rows["mcqs"].extend(mcq_rows(context))
        log.rows["answers"].extend(
            answer_rows(context.scene, context.metadata.get(GOAL_ANSWERS) or [], context.key)
        )
    log.run = {**run, "scoring": log.run["scoring"]}
    return log


@functools.lru_cache(maxsize=256)
def _cached_log(path: str, stamp: tuple[int, int], scorer: str | None, full: bool) -> LogData | str:
    return _read_log(path, scorer, full)


def read_log(path: str, scorer: str | None = None, full: bool = True) -> LogData | str:
    """One log as rows (cached while the file is unchanged; callers must not mutate it)."""
    file = Path(path)
    stat = (file.stat().st_mtime_ns, file.stat().st_size) if file.is_file() else (0, 0)
    return _cached_log(path, stat, scorer, full)


def read_logs(
    inputs: Sequence[str], scorer: str | None = None, full: bool = True
) -> tuple[list[LogData], list[str]]:
    """The AgentSense logs among the inputs, and notes on those left out."""
    paths = log_paths(inputs)
    logs, foreign, notes = [], [], []
    for path in paths:
        read = read_log(path, scorer, full)
        if isinstance(read, str):
            foreign.append(read)
        elif scorer is not None and scorer not in read.scorers:
            notes.append(
                f"{read.name}: no scoring named {scorer!r} "
                f"(it has {', '.join(read.scorers) or 'none'}); left out."
            )
        else:
            logs.append(read)
    if not logs:
        if foreign:
            raise ReportError(
                f"Not AgentSense logs the report reads ({READ_TASKS}): " + ", ".join(foreign) + "."
            )
        raise ReportError(
            f"No log has a scoring named {scorer!r}: " + " ".join(notes).replace("; left out.", ".")
        )
    if foreign:
        notes.insert(0, f"Left out, not logs of {READ_TASKS}: " + ", ".join(foreign) + ".")
    return logs, notes


def _frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=list(columns))


def _evals(runs: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(runs).sort_values("log").reset_index(drop=True)


def _reading_notes(
    logs: list[LogData], evals: pd.DataFrame, scored: set[Any], scorer: str | None
) -> list[str]:
    notes = [
        f"{log.name}: {log.skipped} sample(s) with an error or no score were left out."
        for log in sorted(logs, key=lambda log: log.name)
        if log.skipped
    ]
    notes += [
        f"{Path(str(run['log'])).name}: no scored sample (status {run['status']})."
        for run in records(evals)
        if run["log"] not in scored
    ]
    notes += [
        f"{log.name}: scores from {log.run['scoring']}; choose one scoring with --scorer NAME."
        for log in logs
        if scorer is None and len(log.scorers) > 1 and log.run["log"] in set(evals["log"])
    ]
    return notes


def load_scores(
    inputs: Sequence[str], scorer: str | None = None, prefer_newest: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Scene score values only (from the sample summaries, no full read), the runs (logs of one
    run merged) and notes: for compare. Labelling logs are left out."""
    logs, notes = read_logs(inputs, scorer, full=False)
    logs = [log for log in logs if log.run["kind"] != "labelling"]
    if not logs:
        raise ReportError("No scored AgentSense run among the logs (only labelling logs).")
    merged = merge_logs(logs, prefer_newest)
    evals = _evals(merged.runs)
    scenes = _frame(merged.rows["scenes"], ["log", "id", "epoch"])
    return (
        scenes,
        evals,
        notes + merged.notes + _reading_notes(logs, evals, set(scenes["log"]), scorer),
    )


def load_runs(
    inputs: Sequence[str], scorer: str | None = None, prefer_newest: bool = False
) -> Runs:
    """Read logs (files or folders) into the report's frames, logs of one run merged."""
    logs, notes = read_logs(inputs, scorer)
    merged = merge_logs(logs, prefer_newest)
    evals = _evals(merged.runs)
    scenes = _frame(merged.rows["scenes"], ["log", "id", "epoch"])
    return Runs(
        evals=evals,
        scenes=scenes,
        goals=_frame(
            merged.rows["goals"],
            ["log", "id", "epoch", "character", "category", "role", "player", *GOAL_KEYS],
        ),
        mcqs=_frame(
            merged.rows["mcqs"],
            ["log", "id", "epoch", "asker", "asker_model", "target", "target_model", "correct"],
        ),
        answers=answer_frame(merged.rows["answers"]),
        notes=notes + merged.notes + _reading_notes(logs, evals, set(scenes["log"]), scorer),
    )


def goal_answers(logs: Sequence[str]) -> pd.DataFrame:
    """Every goal answer of AgentSense logs (files or folders), with the columns of
    `answers.ANSWER_COLUMNS`."""
    answers: pd.DataFrame = load_runs(logs).answers
    return answers


def sample_conversation(path: str, sample_id: str, epoch: int) -> tuple[Scenario, list[Turn]]:
    """One sample's scenario and conversation (the store's `Conversation:turns`), for the few
    samples a caller needs in full (the frames keep neither)."""
    sample = read_eval_log_sample(path, id=sample_id, epoch=epoch)
    turns = (sample.store or {}).get(f"{Conversation.__name__}:turns") or []
    scene = Scenario.model_validate((sample.metadata or {})["scenario"])
    return scene, [Turn.model_validate(turn) for turn in turns]
