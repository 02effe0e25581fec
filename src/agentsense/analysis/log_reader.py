"""AgentSense logs -> tidy pandas frames, each sample converted once (`sample_rows`):

- `evals`: one row per run (task, models, roles, protocol, plan);
- `scenes`: one row per scored sample and epoch, with the scene's score values;
- `goals`: one row per goal of a scored sample and epoch (score metadata `goal_scores`);
- `mcqs`: one row per logged MCQ answer (`mcq_answers`), with the asker (attacker) and the probed
  character (defender);
- `answers`: one row per goal answer (`sample_rows.ANSWER_COLUMNS`), for judge agreement;
- `calls`: one row per model call (tokens and cost); `values`: one row per scoring and headline
  metric (the judge repeats of the variance components).

Samples with an error or without an AgentSense score are left out (counted in `notes`), and so
are logs of other tasks. A log with several scorings (re-judged with `inspect score --action
append`) is read with the one named by `scorer`, or by default with all of them, the newest
overriding the older key by key; the run's `scoring` says which. Logs of one run are merged by
the rules of `log_merge`. Each log is read once per process while its file is unchanged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.log import EvalLog, EvalSample, EvalSampleSummary

from agentsense.analysis import logs
from agentsense.analysis.log_merge import (
    FRAMES,
    POOLED,
    LogData,
    config_key,
    merge_logs,
    planned_keys,
    signature,
)
from agentsense.analysis.logs import READ_TASKS, TASK_KINDS, as_float, missing, panel, records
from agentsense.analysis.sample_rows import (
    ANSWER_COLUMNS,
    CALL_COLUMNS,
    VALUE_COLUMNS,
    answer_rows,
    call_rows,
    goal_rows,
    mcq_rows,
    sample_context,
    scene_row,
    value_rows,
)
from agentsense.engine.conversation import Conversation, Turn
from agentsense.engine.data_file import DATA_FILE, DataFile
from agentsense.engine.errors import ReportError
from agentsense.engine.roles import own_roles
from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.score_keys import CAST, GOAL_KEYS, JUDGES, ROLES, SCORE_KEYS
from agentsense.tasks import TASK_ROLES

NO_ROUNDS = ("blind", "script_prediction")
JUDGED_TASKS = ("goal", "full", "pairwise")
PROTOCOL_FIELDS = ("mode", "agent_temperature", "judge_temperature", "max_tokens", "option_mark")
EVALUATED = "<evaluated model>"
Scored = tuple[dict[str, Any], dict[str, Any]]  # a sample's score values and score metadata


@dataclass
class Runs:
    """Everything a report needs, as frames keyed by `log` (one log = one run)."""

    evals: pd.DataFrame
    scenes: pd.DataFrame
    goals: pd.DataFrame
    mcqs: pd.DataFrame
    answers: pd.DataFrame
    calls: pd.DataFrame
    values: pd.DataFrame
    notes: list[str]


# --- the run of one log ------------------------------------------------------------------------


def _eval_row(log: EvalLog) -> dict[str, Any]:
    spec = log.eval
    metadata = spec.metadata or {}
    protocol = metadata.get("protocol") or {}
    model, task = str(spec.model), logs.task_of(log)
    # Only the roles the task uses make the run: another benchmark's role bound beside it in an
    # eval-set (AGENTSENSE_OTHER_ROLES=grader) changes nothing it did.
    bound = own_roles(TASK_ROLES, task, spec.model_roles or {})
    roles = {role: logs.role_model(log, role) for role in bound}
    args = {k: v for k, v in spec.task_args.items() if not missing(v)}
    logged = spec.model_dump(mode="json", include={"model_roles"})["model_roles"]
    model_roles = own_roles(TASK_ROLES, task, logged or {}) or None
    return {
        "log": log.location,
        "eval_id": spec.eval_id,
        "created": spec.created,
        "status": log.status,
        # What the log was to run: its sample ids (after --limit, --sample-id) x epochs.
        "planned": planned_keys(spec.dataset.sample_ids, spec.config.epochs),
        "task": task,
        "kind": TASK_KINDS[task],
        "model": model,
        # An unbound sender/receiver role is played by the evaluated model.
        "sender": roles.get("sender", model) if task == "pairwise" else None,
        "receiver": roles.get("receiver", model) if task == "pairwise" else None,
        "dataset": str(metadata.get("dataset", spec.task_args.get("dataset", ""))),
        # The data file by its content (absent from logs of before it was recorded).
        **{f"data_{k}": (metadata.get(DATA_FILE) or {}).get(k) for k in DataFile.model_fields},
        # The task's scenes before --limit (of its shard, if any): what a complete run plays.
        "dataset_scenes": spec.dataset.samples,
        "shard": None if missing(spec.task_args.get("shard")) else str(spec.task_args["shard"]),
        # No conversation in these: no rounds.
        "rounds": protocol.get("max_messages") if task not in NO_ROUNDS else None,
        # `-T per_template=K` of a run (None: every scene of each template).
        "per_template": logs.as_int(spec.task_args.get("per_template")),
        **{name: protocol.get(name) for name in PROTOCOL_FIELDS},
        "roles": roles,
        # The judge panel as bound (a list makes a panel); unbound: the evaluated model.
        "judges": ", ".join(logs.bound_models(log, "judge") or [model])
        if task in JUDGED_TASKS
        else "",
        "config": config_key(task, spec.task_version, model, model_roles, args, metadata),
    }


def _read_eval(path: str) -> dict[str, Any] | str:
    """The run of one log, or why it is not an AgentSense log."""
    log = logs.header(path)
    task = logs.task_of(log)
    if task not in TASK_KINDS or "protocol" not in (log.eval.metadata or {}):
        return f"{Path(path).name} (task {log.eval.task.split('/')[-1]!r})"
    return _eval_row(log)


def _scoring(names: list[str], scorer: str | None) -> str:
    if scorer is not None or len(names) == 1:
        return scorer or names[0]
    if not names:
        return "none"
    earlier = ", ".join(reversed(names[:-1]))
    return f"{names[-1]} (newest), then {earlier} for the keys it lacks"


def setup(metadata: Mapping[str, Any], model: str) -> dict[str, str]:
    """How a sample was played and judged, from its score metadata: the judge panel, the cast
    (character -> model, the evaluated model named as such, so two models' runs compare) and the
    pairing (character -> sender / receiver / character)."""
    cast = {
        str(name): EVALUATED if played == model else str(played)
        for name, played in (metadata.get(CAST) or {}).items()
    }
    return {
        "judges": panel(metadata),
        "cast": json.dumps(cast, sort_keys=True),
        "pairing": json.dumps(metadata.get(ROLES) or {}, sort_keys=True, default=str),
    }


def _summary_row(
    path: str, item: EvalSampleSummary, run: dict[str, Any], scored: Scored
) -> dict[str, Any]:
    """A scene's score values from its summary (compare reads no more)."""
    values, metadata = scored
    template = (item.metadata or {}).get("template_id")
    return {
        "log": path,
        "id": str(item.id),
        "epoch": int(item.epoch),
        "template_id": None if template is None else str(template),
        **{name: as_float(values[name]) for name in SCORE_KEYS if name in values},
        **setup(metadata, run["model"]),
    }


def _add_sample(
    log: LogData, path: str, item: EvalSample | EvalSampleSummary, scorer: str | None
) -> None:
    """The rows of one sample (a summary: its scene's score values only)."""
    run = log.run
    if isinstance(item, EvalSample):
        log.rows["calls"] += call_rows(path, item)
        log.rows["values"] += value_rows(path, item)
    scored = logs.merged_scores(item.scores, scorer)
    values, metadata = scored
    if item.error or not values:
        log.skipped += 1
        return
    if run["task"] in JUDGED_TASKS and isinstance(metadata.get(JUDGES), dict):
        # The panel that scored (re-judging with `inspect score` keeps the log's roles).
        run["judges"] = panel(metadata)
    key = (str(item.id), int(item.epoch))
    if not isinstance(item, EvalSample):
        log.rows["scenes"].append(_summary_row(path, item, run, scored))
        log.signatures[key] = signature(values)
        return
    context = sample_context(path, item, run, scored)
    if context is None:
        log.skipped += 1
        return
    log.signatures[key] = signature(values)
    log.rows["scenes"].append(scene_row(context, run["rounds"]))
    log.rows["goals"] += goal_rows(context)
    log.rows["mcqs"] += mcq_rows(context)
    log.rows["answers"] += answer_rows(context)


def _in_plan_order(log: LogData, planned: list[Any] | None) -> None:
    """The pooled rows by the plan's sample order, then epoch: the template order a run's
    variance bootstrap numbers its clusters by."""
    place = {str(sample): k for k, sample in enumerate(planned or [])}
    for name in POOLED:
        log.rows[name].sort(key=lambda row: (place.get(row["id"], len(place)), row["epoch"]))


def _read_log(path: str, scorer: str | None, full: bool) -> LogData | str:
    run = _read_eval(path)
    if isinstance(run, str):
        return run
    log = LogData(run, [], rows={name: [] for name in (*FRAMES, *POOLED)})
    names: dict[str, None] = {}
    for item in logs.samples(path) if full else logs.summaries(path):
        names.update(dict.fromkeys(logs.scoring_names(item.scores)))
        _add_sample(log, path, item, scorer)
    _in_plan_order(log, logs.header(path).eval.dataset.sample_ids)
    log.scorers = list(names)
    log.run["scoring"] = _scoring(log.scorers, scorer)
    if scorer is not None and scorer not in names:
        return LogData(log.run, log.scorers)  # left out by `read_logs`
    return log


# --- reading many logs: once each per process, in worker processes when there is much to read ---

ReadKey = tuple[str, tuple[int, int], str | None, bool]  # path, its stamp, scorer, full
# The logs read in this process, while their files are unchanged (callers must not mutate them),
# the newest READ_KEPT kept.
_READ: dict[ReadKey, LogData | str] = {}
READ_KEPT = 256
# Below this many bytes of logs, reading them here is quicker than starting worker processes;
# a log is read at about 1 s per 1.6 MB on disk.
PARALLEL_BYTES = 8 * 1024 * 1024
# At most this many by default: a worker holds about 150 MB of its own while it reads, and a
# big machine's cores would multiply that (`--processes N` goes further).
MAX_PROCESSES = 4


def default_processes(paths: Sequence[str]) -> int:
    """Processes worth reading these logs whole in: one per core this process may run on, at
    most one per log and MAX_PROCESSES, when they are PARALLEL_BYTES or more on disk; else 1
    (this process)."""
    if sum(logs.stamp(path)[1] for path in paths) < PARALLEL_BYTES:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, len(paths), MAX_PROCESSES))


def _read_key(key: ReadKey) -> LogData | str:
    """One log as rows (a worker process's job: module level, so it can be pickled)."""
    path, _, scorer, full = key
    return _read_log(path, scorer, full)


def read_each(
    paths: Sequence[str], scorer: str | None, full: bool, pool: Executor | None = None
) -> list[LogData | str]:
    """Each log as rows (or why it is not an AgentSense log), read once per process while its
    file is unchanged; those not read yet by `pool`'s workers if given, else here. The rows are
    the same either way."""
    keys = [(path, logs.stamp(path), scorer, full) for path in paths]
    todo = [key for key in dict.fromkeys(keys) if key not in _READ]
    if pool is not None and len(todo) > 1:
        # Biggest first, so no worker is left with a big log at the end.
        todo.sort(key=lambda key: -key[1][1])
        reads = list(pool.map(_read_key, todo))
    else:
        reads = [_read_key(key) for key in todo]
    _READ.update(zip(todo, reads, strict=True))
    found = [_READ[key] for key in keys]
    for old in list(_READ)[: max(0, len(_READ) - READ_KEPT)]:
        del _READ[old]
    return found


def read_log(path: str, scorer: str | None = None, full: bool = True) -> LogData | str:
    """One log as rows (cached while the file is unchanged; callers must not mutate it)."""
    return read_each([path], scorer, full)[0]


def read_logs(
    inputs: Sequence[str],
    scorer: str | None = None,
    full: bool = True,
    pool: Executor | None = None,
) -> tuple[list[LogData], list[str]]:
    """The AgentSense logs among the inputs, and notes on those left out."""
    paths = logs.log_paths(inputs)
    found, foreign, notes = [], [], []
    for read in read_each(paths, scorer, full, pool):
        if isinstance(read, str):
            foreign.append(read)
        elif scorer is not None and scorer not in read.scorers:
            notes.append(
                f"{read.name}: no scoring named {scorer!r} "
                f"(it has {', '.join(read.scorers) or 'none'}); left out."
            )
        else:
            found.append(read)
    if not found:
        if foreign:
            raise ReportError(
                f"Not AgentSense logs the report reads ({READ_TASKS}): " + ", ".join(foreign) + "."
            )
        raise ReportError(
            f"No log has a scoring named {scorer!r}: " + " ".join(notes).replace("; left out.", ".")
        )
    if foreign:
        notes.insert(0, f"Left out, not logs of {READ_TASKS}: " + ", ".join(foreign) + ".")
    return found, notes


# --- frames ------------------------------------------------------------------------------------


def _frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=list(columns))


def _reading_notes(
    found: list[LogData], evals: pd.DataFrame, scored: set[Any], scorer: str | None
) -> list[str]:
    notes = [
        f"{log.name}: {log.skipped} sample(s) with an error or no score were left out."
        for log in sorted(found, key=lambda log: log.name)
        if log.skipped
    ]
    notes += [
        f"{Path(str(run['log'])).name}: no scored sample (status {run['status']})."
        for run in records(evals)
        if run["log"] not in scored
    ]
    notes += [
        f"{log.name}: scores from {log.run['scoring']}; choose one scoring with --scorer NAME."
        for log in found
        if scorer is None and len(log.scorers) > 1 and log.run["log"] in set(evals["log"])
    ]
    return notes


def _merged(
    inputs: Sequence[str],
    scorer: str | None,
    prefer_newest: bool,
    full: bool,
    pool: Executor | None = None,
) -> tuple[dict[str, list[dict[str, Any]]], pd.DataFrame, pd.DataFrame, list[str]]:
    """The rows of the logs' runs (logs of one run merged), the runs, the scenes and notes."""
    found, notes = read_logs(inputs, scorer, full, pool)
    if not full:  # compare: labelling logs have no scene scores
        found = [log for log in found if log.run["kind"] != "labelling"]
        if not found:
            raise ReportError("No scored AgentSense run among the logs (only labelling logs).")
    merged = merge_logs(found, prefer_newest)
    evals = pd.DataFrame(merged.runs).sort_values("log").reset_index(drop=True)
    scenes = _frame(merged.rows["scenes"], ["log", "id", "epoch"])
    notes += merged.notes + _reading_notes(found, evals, set(scenes["log"]), scorer)
    return merged.rows, evals, scenes, notes


def load_scores(
    inputs: Sequence[str], scorer: str | None = None, prefer_newest: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Scene score values only (from the sample summaries, no full read), the runs (logs of one
    run merged) and notes: for compare. Labelling logs are left out."""
    _, evals, scenes, notes = _merged(inputs, scorer, prefer_newest, full=False)
    return scenes, evals, notes


def load_runs(
    inputs: Sequence[str],
    scorer: str | None = None,
    prefer_newest: bool = False,
    pool: Executor | None = None,
) -> Runs:
    """Read logs (files or folders) into the report's frames, logs of one run merged; by `pool`'s
    workers if given (`read_each`)."""
    rows, evals, scenes, notes = _merged(inputs, scorer, prefer_newest, True, pool)
    return Runs(
        evals=evals,
        scenes=scenes,
        goals=_frame(
            rows["goals"],
            ["log", "id", "epoch", "character", "category", "role", "player", *GOAL_KEYS],
        ),
        mcqs=_frame(
            rows["mcqs"],
            ["log", "id", "epoch", "asker", "asker_model", "target", "target_model", "correct"],
        ),
        answers=pd.DataFrame(rows["answers"], columns=ANSWER_COLUMNS),
        calls=_frame(rows["calls"], CALL_COLUMNS),
        values=_frame(rows["values"], VALUE_COLUMNS),
        notes=notes,
    )


def goal_answers(paths: Sequence[str]) -> pd.DataFrame:
    """Every goal answer of AgentSense logs (files or folders), with the columns of
    `sample_rows.ANSWER_COLUMNS`."""
    return load_runs(paths).answers


def sample_conversation(path: str, sample_id: str, epoch: int) -> tuple[Scenario, list[Turn]]:
    """One sample's scenario and conversation (the store's `Conversation:turns`), for the few
    samples a caller needs in full (the frames keep neither)."""
    sample = logs.sample(path, sample_id, epoch)
    turns = (sample.store or {}).get(f"{Conversation.__name__}:turns") or []
    return scenario_of(sample.metadata or {}), [Turn.model_validate(turn) for turn in turns]
