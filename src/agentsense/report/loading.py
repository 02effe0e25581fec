"""AgentSense logs -> tidy pandas frames, read with Inspect's own APIs.

`evals_df` gives one row per log (task, models, roles, protocol); `samples_df` with full sample
columns gives the score values and the score metadata (per-goal answers, MCQ answers, judge
names) of every sample and epoch. From them:

- `evals`: one row per log;
- `scenes`: one row per scored sample and epoch, with the scene's score values;
- `goals`: one row per goal of a scored sample and epoch (per-goal scores recomputed from the
  logged answers with the scorer's own rules, `scorers.goal.goal_scores`);
- `mcqs`: one row per MCQ answer, with the asker (attacker) and the probed character (defender).

Samples with an error or without an AgentSense score are left out (counted in `notes`).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.analysis import SampleColumn, SampleScores, evals_df, samples_df
from inspect_ai.log import list_eval_logs

from ..dataset.schema import Scenario
from ..scorers.goal import GoalReading, goal_scores
from .errors import ReportError
from .targets import mcq_target

# Task name (without the `agentsense/` prefix) -> kind of run.
TASK_KINDS = {
    "goal": "homogeneous",
    "info": "homogeneous",
    "full": "homogeneous",
    "pairwise": "pairwise",
    "blind": "blind",
    "labelling": "labelling",
}
SCENE_METRICS = (
    "self",
    "other",
    "judge_mean",
    "judge_majority",
    "mcq_accuracy",
    "blind_mcq_accuracy",
)
GOAL_METRICS = ("self", "other", "judge_mean", "judge_majority")
PROTOCOL_FIELDS = ("mode", "agent_temperature", "judge_temperature", "max_tokens", "option_mark")
LOG_SUFFIXES = (".eval", ".json")


@dataclass
class Runs:
    """Everything a report needs, as frames keyed by `log` (one log = one run)."""

    evals: pd.DataFrame
    scenes: pd.DataFrame
    goals: pd.DataFrame
    mcqs: pd.DataFrame
    notes: list[str] = field(default_factory=list)


# --- paths -------------------------------------------------------------------------------------


def log_paths(inputs: Sequence[str]) -> list[str]:
    """Log files named directly or found (recursively) in the given folders."""
    paths: list[str] = []
    for given in inputs:
        path = Path(given).expanduser()
        if path.is_dir():
            found = [info.name for info in list_eval_logs(str(path), recursive=True)]
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


# --- small helpers -------------------------------------------------------------------------------


def _json(value: Any) -> Any:
    """A JSON column value as Python (dataframe columns hold JSON strings)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def _role_models(model_roles: Any) -> dict[str, str]:
    """Role -> model name (the first model of a list, as `get_model(role=...)` does)."""
    roles: dict[str, str] = {}
    for role, bound in (_json(model_roles) or {}).items():
        first = bound[0] if isinstance(bound, list) and bound else bound
        if isinstance(first, dict):
            roles[role] = str(first.get("model"))
        elif first is not None:
            roles[role] = str(first)
    return roles


def _judge_models(model_roles: Any, model: str) -> str:
    """The judge panel as logged (role `judge`, a list makes a panel); unbound: evaluated model."""
    bound = (_json(model_roles) or {}).get("judge")
    panel = bound if isinstance(bound, list) else [bound] if bound else [model]
    return ", ".join(
        str(judge.get("model")) if isinstance(judge, dict) else str(judge) for judge in panel
    )


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a frame as dicts with string keys."""
    return [{str(key): value for key, value in row.items()} for row in frame.to_dict("records")]


def short_task(name: str) -> str:
    return name.split("/")[-1]


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)


# --- evals -------------------------------------------------------------------------------------


def _eval_row(row: Mapping[str, Any]) -> dict[str, Any]:
    metadata = _json(row["metadata"]) or {}
    protocol = metadata.get("protocol") or {}
    roles = _role_models(row["model_roles"])
    model = str(row["model"])
    task = short_task(str(row["task_name"]))
    return {
        "log": row["log"],
        "eval_id": row["eval_id"],
        "created": row["created"],
        "status": row["status"],
        "task": task,
        "kind": TASK_KINDS[task],
        "model": model,
        # An unbound sender/receiver role is played by the evaluated model.
        "sender": roles.get("sender", model) if task == "pairwise" else None,
        "receiver": roles.get("receiver", model) if task == "pairwise" else None,
        "dataset": str(metadata.get("dataset", row.get("task_arg_dataset", ""))),
        "rounds": protocol.get("max_messages") if task != "blind" else None,
        **{name: protocol.get(name) for name in PROTOCOL_FIELDS},
        "roles": roles,
        "judges": _judge_models(row["model_roles"], model)
        if task in ("goal", "full", "pairwise")
        else "",
    }


def _is_agentsense(row: Mapping[str, Any]) -> bool:
    metadata = _json(row["metadata"])
    return (
        short_task(str(row["task_name"])) in TASK_KINDS
        and isinstance(metadata, dict)
        and "protocol" in metadata
    )


def read_evals(paths: Sequence[str]) -> pd.DataFrame:
    """One row per AgentSense log; the most recent log of an eval id wins (eval-retry)."""
    try:
        frame = evals_df(list(paths), quiet=True)
    except Exception as error:  # Inspect raises many types for unreadable files
        raise ReportError(f"Could not read the logs as Inspect logs: {error}") from None
    if frame.empty:
        raise ReportError("No Inspect log could be read from the given paths.")
    rows = records(frame)
    foreign = [
        f"{Path(str(r['log'])).name} (task {r['task_name']!r})"
        for r in rows
        if not _is_agentsense(r)
    ]
    if foreign:
        raise ReportError(
            "Not AgentSense logs: "
            + ", ".join(foreign)
            + ". Pass logs of the agentsense/* tasks only."
        )
    evals = pd.DataFrame([_eval_row(r) for r in rows])
    evals["_ok"] = evals["status"] == "success"
    evals = evals.sort_values(["_ok", "created"]).drop_duplicates("eval_id", keep="last")
    return evals.drop(columns="_ok").sort_values("log").reset_index(drop=True)


# --- samples -----------------------------------------------------------------------------------

_SAMPLE_COLUMNS = [
    SampleColumn("id", path="id", required=True, type=str),
    SampleColumn("epoch", path="epoch", required=True),
    SampleColumn("error", path="error", default=""),
    SampleColumn("metadata_*", path="metadata"),
    SampleColumn("scenario", path="metadata.scenario", full=True),
    *SampleScores,
]
_DETAIL_SUFFIXES = ("_explanation", "_metadata", "_answer", "_reason")


def read_samples(paths: Sequence[str]) -> pd.DataFrame:
    return samples_df(list(paths), columns=_SAMPLE_COLUMNS, quiet=True)


def merged_scores(row: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Score values and score metadata of all scorers of a sample; a later scorer
    (e.g. appended by `inspect score --action append`) overrides an earlier one."""
    values: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for column in row:
        if not column.startswith("score_") or column.endswith(_DETAIL_SUFFIXES):
            continue
        value = _json(row[column])
        if isinstance(value, dict):
            values.update(value)
            metadata.update(_json(row.get(f"{column}_metadata")) or {})
    return values, metadata


@dataclass
class SampleContext:
    """One scored sample of one log, with what is needed to expand it into rows."""

    log: str
    id: str
    epoch: int
    scene: Scenario
    values: dict[str, Any]
    metadata: dict[str, Any]
    character_models: dict[str, str]
    character_roles: dict[str, str | None]

    @property
    def key(self) -> dict[str, Any]:
        return {"log": self.log, "id": self.id, "epoch": self.epoch}


def judge_labels(judges: Mapping[str, str]) -> dict[str, str]:
    """judge_i -> a column label naming the judge model (numbered if a model sits twice)."""
    seen: Counter[str] = Counter()
    labels: dict[str, str] = {}
    for key, name in judges.items():
        seen[name] += 1
        labels[key] = f"judge: {name}" + (f" ({seen[name]})" if seen[name] > 1 else "")
    return labels


def scene_row(context: SampleContext, rounds: Any) -> dict[str, Any]:
    scene, values = context.scene, context.values
    row: dict[str, Any] = {
        **context.key,
        "template_id": str(scene.template_idx),
        "scenario_type": scene.scenario_type,
        "n_characters": len(scene.characters),
        "rounds": rounds,
    }
    row.update({name: _float(values[name]) for name in SCENE_METRICS if name in values})
    for key, label in judge_labels(context.metadata.get("judges") or {}).items():
        row[label] = _float(values.get(key))
    return row


def _reading(records: list[dict[str, Any]]) -> GoalReading:
    reading = GoalReading(
        self_=[record["reading"] for record in records if record["_kind"] == "self"],
        others=[record["reading"] for record in records if record["_kind"] == "others"],
    )
    asked: Counter[str] = Counter()
    for record in (r for r in records if r["_kind"] == "judge"):
        # Judge answers are logged question-major: the n-th answer of a judge is its n-th question.
        reading.judge.setdefault(asked[record["to"]], {})[record["to"]] = record["reading"]
        asked[record["to"]] += 1
    return reading


def goal_rows(context: SampleContext) -> list[dict[str, Any]]:
    details = context.metadata.get("goals") or {}
    judges = list((context.metadata.get("judges") or {}).keys())
    official = context.metadata.get("protocol", "official") == "official"
    rows = []
    for character in context.scene.characters:
        for index, goal in enumerate(character.goals):
            kinds = (details.get(character.name) or {}).get(goal.goal)
            if not kinds:
                continue
            records = [
                {**record, "_kind": kind} for kind, entries in kinds.items() for record in entries
            ]
            scores = goal_scores(_reading(records), judges, official)
            rows.append(
                {
                    **context.key,
                    "character": character.name,
                    "goal_index": index,
                    "goal": goal.goal,
                    "category": goal.category,
                    "role": context.character_roles.get(character.name),
                    "player": context.character_models[character.name],
                    **{name: scores[name] for name in GOAL_METRICS},
                }
            )
    return rows


def mcq_rows(context: SampleContext) -> list[dict[str, Any]]:
    rows = []
    for asker, answers in (context.metadata.get("mcq") or {}).items():
        items = context.scene.character(asker).info_reason_questions
        # Answers are logged in the order of the character's questions.
        for index, answer in enumerate(answers):
            target = mcq_target(context.scene, asker, items[index])
            rows.append(
                {
                    **context.key,
                    "asker": asker,
                    "item": index,
                    "asker_model": context.character_models[asker],
                    "asker_role": context.character_roles.get(asker),
                    "target": target,
                    "target_model": context.character_models.get(target) if target else None,
                    "target_role": context.character_roles.get(target) if target else None,
                    "correct": float(
                        answer.get("reading") is not None
                        and answer.get("reading") == answer.get("answer_label")
                    ),
                }
            )
    return rows


def _context(row: Mapping[str, Any], run: Mapping[str, Any]) -> SampleContext | None:
    values, metadata = merged_scores(row)
    if row.get("error") or not values or not _json(row.get("scenario")):
        return None
    scene = Scenario.model_validate(_json(row["scenario"]))
    roles: dict[str, str | None] = _json(row.get("metadata_model_roles")) or {}
    models = {
        name: run["roles"].get(role, run["model"]) if role else run["model"]
        for name, role in ((n, roles.get(n)) for n in scene.names)
    }
    return SampleContext(
        str(row["log"]),
        str(row["id"]),
        int(row["epoch"]),
        scene,
        values,
        metadata,
        models,
        {name: roles.get(name) for name in scene.names},
    )


def score_values(scores: Any) -> dict[str, Any]:
    """A sample's `scores` mapping -> {scorer: value}, for one `score_*` column per scorer."""
    return {name: score["value"] for name, score in dict(scores).items()}


_SCORE_COLUMNS = [
    SampleColumn("id", path="id", required=True, type=str),
    SampleColumn("epoch", path="epoch", required=True),
    SampleColumn("error", path="error", default=""),
    SampleColumn("score_*", path="scores", value=score_values),
]


def load_scores(inputs: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scene score values only (sample summaries, no full read) and the runs: for compare."""
    evals = read_evals(log_paths(inputs))
    evals = evals[evals["kind"] != "labelling"].reset_index(drop=True)
    if evals.empty:
        raise ReportError("No scored AgentSense run among the logs (only labelling logs).")
    samples = samples_df(list(evals["log"]), columns=_SCORE_COLUMNS, quiet=True)
    rows = []
    for row in records(samples):
        values, _ = merged_scores(row)
        if values and not row.get("error"):
            rows.append(
                {
                    "log": row["log"],
                    "id": str(row["id"]),
                    "epoch": int(row["epoch"]),
                    **{name: _float(values[name]) for name in SCENE_METRICS if name in values},
                }
            )
    return _frame(rows, ["log", "id", "epoch"]), evals


def _frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=list(columns))


def load_runs(inputs: Sequence[str]) -> Runs:
    """Read logs (files or folders) into the report's frames."""
    paths = log_paths(inputs)
    evals = read_evals(paths)
    labelling = evals[evals["kind"] == "labelling"]
    notes = [
        f"{Path(str(log)).name}: a labelling log, not a scored run "
        "(export it with `agentsense labels`)."
        for log in labelling["log"]
    ]
    evals = evals[evals["kind"] != "labelling"].reset_index(drop=True)
    if evals.empty:
        raise ReportError("No scored AgentSense run among the logs (only labelling logs).")
    samples = read_samples(list(evals["log"]))
    runs = {str(run["log"]): run for run in records(evals)}
    scenes: list[dict[str, Any]] = []
    goals: list[dict[str, Any]] = []
    mcqs: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    for row in records(samples):
        run = runs.get(str(row["log"]))
        if run is None:  # a superseded log of the same eval id
            continue
        context = _context(row, run)
        if context is None:
            skipped[Path(str(row["log"])).name] += 1
            continue
        scenes.append(scene_row(context, run["rounds"]))
        goals.extend(goal_rows(context))
        mcqs.extend(mcq_rows(context))
    notes += [
        f"{name}: {count} sample(s) with an error or no score were left out."
        for name, count in sorted(skipped.items())
    ]
    scored = {row["log"] for row in scenes}
    notes += [
        f"{Path(str(log)).name}: no scored sample (status {status})."
        for log, status in zip(evals["log"], evals["status"], strict=True)
        if log not in scored
    ]
    return Runs(
        evals=evals,
        scenes=_frame(scenes, ["log", "id", "epoch"]),
        goals=_frame(
            goals, ["log", "id", "epoch", "character", "category", "role", "player", *GOAL_METRICS]
        ),
        mcqs=_frame(
            mcqs,
            ["log", "id", "epoch", "asker", "asker_model", "target", "target_model", "correct"],
        ),
        notes=notes,
    )
