"""Logs of the project's tasks that are not model runs of the benchmark: `judge_check` (are the
judges fit?), `construct` (what the scenario builder made) and `gca` (CoSER's acting). Each has
its own report section; conversation, blind and labelling logs are read by `analysis.log_reader`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.scorer import Score

from agentsense.analysis import logs
from agentsense.analysis.log_merge import finish_hint, planned_keys, scored_run, shortfall
from agentsense.analysis.logs import TASK_KINDS, log_name, newest_score
from agentsense.engine.errors import ReportError
from agentsense.sense.metrics import nan_mean
from agentsense.tasks import RUN_KINDS, TASKS

# The tasks whose logs have a report section of their own, from the task table, and what one
# sample of each is, in "9 of 24 scenes".
OTHER_TASKS = tuple(row.name for row in TASKS if row.log_kind not in RUN_KINDS)
UNITS = {row.name: row.unit for row in TASKS if row.name in OTHER_TASKS}


@dataclass
class OtherLogs:
    """task -> the paths of its logs (sorted), and the paths of no AgentSense task at all; the
    logs that did not finish their plan, by file name -> how far each got."""

    paths: dict[str, list[str]] = field(default_factory=dict)
    foreign: list[str] = field(default_factory=list)
    unfinished: dict[str, str] = field(default_factory=dict)
    banner: list[str] = field(default_factory=list)  # a line per unfinished log, with the fix

    def of(self, task: str) -> list[str]:
        return self.paths.get(task, [])

    def labelled(self, name: str, text: str) -> str:
        """A table cell of the log `name`, with how far the log got when it is unfinished."""
        short = self.unfinished.get(name)
        return text if short is None else f"{text} [{short}]"

    @property
    def any(self) -> bool:
        return any(self.paths.values())


def _header(path: str) -> EvalLog | None:
    """The header of an AgentSense task's log (None: another eval's, or unreadable: the reader
    says which)."""
    try:
        header = logs.header(path)
    except ReportError:
        return None
    return header if logs.is_agentsense(header) else None


def _shortfall(path: str, header: EvalLog, task: str) -> str | None:
    """How far the log got against its plan (analysis.log_merge), None when it finished."""
    plan = planned_keys(header.eval.dataset.sample_ids, header.eval.config.epochs)
    scored = [(str(s.id), s.epoch) for s in logs.summaries(path) if s.scores and not s.error]
    return shortfall(scored_run(header.status, plan, scored), UNITS[task])


def split_logs(paths: Sequence[str]) -> tuple[list[str], OtherLogs]:
    """The model-run logs (for `analysis.log_reader`) and the others, by task."""
    runs: list[str] = []
    others = OtherLogs()
    for path in paths:
        header = _header(path)
        task = None if header is None else logs.task_of(header)
        if header is not None and task in OTHER_TASKS:
            others.paths.setdefault(task, []).append(path)
            short = _shortfall(path, header, task)
            if short is not None:
                name = log_name(path)
                others.unfinished[name] = f"{task} {short}"
                others.banner.append(
                    f"{task} {header.eval.model} ({name}): {short}; "
                    f"{finish_hint(header.status, name)}."
                )
        elif task in TASK_KINDS:
            runs.append(path)
        else:
            others.foreign.append(path)
    for listed in others.paths.values():
        listed.sort()
    return runs, others


@dataclass
class Item:
    """One sample of a log, its epochs averaged key by key (newest scoring)."""

    id: str
    sample: EvalSample  # the first epoch (metadata, score metadata)
    score: Score
    values: dict[str, float]


def items(path: str) -> list[Item]:
    """The scored samples of a log with dict scores, each epoch counted once per item."""
    epochs: dict[str, list[dict[str, float]]] = defaultdict(list)
    first: dict[str, tuple[EvalSample, Score]] = {}
    for sample in logs.samples(path):
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
