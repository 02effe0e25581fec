"""Logs of the project's tasks that are not model runs of the benchmark: `judge_check` (are the
judges fit?), `construct` (what the scenario builder made) and `gca` (CoSER's acting). Each has
its own report section; conversation, blind and labelling logs are read by `analysis.log_reader`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.scorer import Score

from ..analysis.log_fields import TASK_KINDS, short_task
from ..errors import ReportError
from ..metrics import nan_mean

OTHER_TASKS = ("judge_check", "construct", "gca")
PREFIX = "agentsense/"


@dataclass
class OtherLogs:
    """task -> the paths of its logs (sorted), and the paths of no AgentSense task at all."""

    paths: dict[str, list[str]] = field(default_factory=dict)
    foreign: list[str] = field(default_factory=list)

    def of(self, task: str) -> list[str]:
        return self.paths.get(task, [])

    @property
    def any(self) -> bool:
        return any(self.paths.values())


def _task(path: str) -> str | None:
    """The AgentSense task of a log (None: another eval's, or unreadable: the reader says which)."""
    try:
        header = read_eval_log(path, header_only=True)
    except Exception:  # Inspect raises many types for unreadable files
        return None
    name = header.eval.task_registry_name or header.eval.task
    if not name.startswith(PREFIX) or "eval_version" not in (header.eval.metadata or {}):
        return None
    return short_task(name)


def split_logs(paths: Sequence[str]) -> tuple[list[str], OtherLogs]:
    """The model-run logs (for `analysis.log_reader`) and the others, by task."""
    runs: list[str] = []
    others = OtherLogs()
    for path in paths:
        task = _task(path)
        if task in OTHER_TASKS:
            others.paths.setdefault(task, []).append(path)
        elif task in TASK_KINDS:
            runs.append(path)
        else:
            others.foreign.append(path)
    for listed in others.paths.values():
        listed.sort()
    return runs, others


def read_full(path: str) -> EvalLog:
    try:
        return read_eval_log(path)
    except Exception as error:  # Inspect raises many types for unreadable files
        raise ReportError(f"{path}: could not read it as an Inspect log ({error}).") from None


def log_name(path: str) -> str:
    return Path(path).name


def role_model(log: EvalLog, role: str) -> str:
    """The model bound to `role` (the first of a list), else the evaluated model."""
    bound = (log.eval.model_roles or {}).get(role)
    first = bound[0] if isinstance(bound, list) and bound else bound
    return str(getattr(first, "model", None) or log.eval.model)


def newest_score(sample: EvalSample) -> tuple[str, Score] | None:
    """A sample's last scoring (`inspect score --action append` adds one last); None when it
    failed or has no score."""
    if sample.error or not sample.scores:
        return None
    name = list(sample.scores)[-1]
    return name, sample.scores[name]


@dataclass
class Item:
    """One sample of a log, its epochs averaged key by key (newest scoring)."""

    id: str
    sample: EvalSample  # the first epoch (metadata, score metadata)
    score: Score
    values: dict[str, float]


def items(log: EvalLog) -> list[Item]:
    """The scored samples of a log with dict scores, each epoch counted once per item."""
    epochs: dict[str, list[dict[str, float]]] = defaultdict(list)
    first: dict[str, tuple[EvalSample, Score]] = {}
    for sample in log.samples or []:
        scored = newest_score(sample)
        if scored is None or not isinstance(scored[1].value, dict):
            continue
        key = str(sample.id)
        epochs[key].append({k: float(v) for k, v in scored[1].value.items()})  # type: ignore[arg-type]
        first.setdefault(key, (sample, scored[1]))
    return [
        Item(
            key,
            *first[key],
            {name: nan_mean([e[name] for e in rows if name in e]) for name in rows[0]},
        )
        for key, rows in epochs.items()
    ]
