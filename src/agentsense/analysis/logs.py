"""The one way the package opens an Inspect log, and what every reader takes from one.

`header` (cached while the file is unchanged), `samples` (every whole sample, one at a time),
`summaries` (the samples' small summaries) and `sample` (one whole sample) are the only calls
into Inspect's log files; an unreadable file is a `ReportError` naming it. A log's task kind,
the models bound to its roles and a sample's scorings are read here too, so each has one rule.
"""

from __future__ import annotations

import functools
import math
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import pandas as pd
from inspect_ai.log import (
    EvalLog,
    EvalSample,
    EvalSampleSummary,
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample,
    read_eval_log_sample_summaries,
    read_eval_log_samples_by_id,
)
from inspect_ai.scorer import Score

from agentsense.engine.errors import ReportError
from agentsense.sense.score_keys import JUDGES
from agentsense.tasks import RUN_KINDS, TASKS

# Task name (without the `agentsense/` prefix) -> kind of run, for the logs read as runs, from
# the task table.
TASK_KINDS = {row.name: row.log_kind for row in TASKS if row.log_kind in RUN_KINDS}
READ_TASKS = ", ".join(f"agentsense/{task}" for task in TASK_KINDS)
LOG_SUFFIXES = (".eval", ".json")
PREFIX = "agentsense/"


# --- paths -------------------------------------------------------------------------------------


def _local(name: str) -> str:
    """A `file:` URI (as `list_eval_logs` gives) as a plain path."""
    return re.sub(r"^file:(//)?", "", name)


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


def stamp(path: str) -> tuple[int, int]:
    """What changes when the file does (a cache key): modification time and size."""
    file = Path(path)
    return (file.stat().st_mtime_ns, file.stat().st_size) if file.is_file() else (0, 0)


# --- reading -----------------------------------------------------------------------------------

# Samples read at once by `samples`: few enough that memory stays flat (a sample is ~30 KB on
# disk, a few hundred in memory), enough that the log's directory is parsed rarely.
SAMPLE_BATCH = 32
T = TypeVar("T")


def _read(read: Callable[..., T], path: str, *args: Any, **kwargs: Any) -> T:
    """One call into Inspect's log files; an unreadable file is a `ReportError` naming it."""
    try:
        with _own_sigint():
            return read(path, *args, **kwargs)
    except Exception as error:  # Inspect raises many types for unreadable files
        raise ReportError(f"{path}: could not read it as an Inspect log ({error}).") from None


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def _own_sigint() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt, as by default, from a handler of this module's. Why:
    each Inspect read is an `asyncio` run, which before Python 3.13 installs a SIGINT handler
    holding its task and, on leaving, formats its repr, and so the task's result: the repr of
    up to 12 whole samples a read, a fifth of the time a log takes to read. Given a handler
    that is not the default one, `asyncio` installs none."""
    mine = (
        sys.version_info < (3, 13)
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if mine:
        signal.signal(signal.SIGINT, _interrupt)
    try:
        yield
    finally:
        if mine:
            signal.signal(signal.SIGINT, signal.default_int_handler)


@functools.lru_cache(maxsize=512)
def _header(path: str, when: tuple[int, int]) -> EvalLog:
    return _read(read_eval_log, path, header_only=True)


def header(path: str) -> EvalLog:
    """The log without its samples (cached while the file is unchanged; do not mutate it)."""
    return _header(path, stamp(path))


def samples(path: str) -> Iterator[EvalSample]:
    """Every sample the log holds, in Inspect's order (by epoch, then id), SAMPLE_BATCH at a
    time: the report held a log of the benchmark's size (1,225 scenes) whole in 1.9 GB, so a
    caller keeps what it needs of each sample and lets it go. A batch is one Inspect read (the
    zip's directory parsed once per batch; read one by one, once per sample, which grows as
    scenes squared). The samples are those the file holds, one per (id, epoch) as
    `read_eval_log` gives them (its summaries list them; Inspect's `read_eval_log_samples`
    yields only the planned ones). A JSON log is parsed whole to read any one sample, so it is
    read once."""
    if Path(path).suffix == ".json":
        yield from _read(read_eval_log, path).samples or []
        return
    unique = {(str(item.id), item.epoch): item for item in summaries(path)}.values()
    keys = [(item.id, item.epoch) for item in sorted(unique, key=_inspect_order)]
    for start in range(0, len(keys), SAMPLE_BATCH):
        yield from _read(read_eval_log_samples_by_id, path, keys[start : start + SAMPLE_BATCH])


def _inspect_order(item: EvalSampleSummary) -> tuple[int, str]:
    """Inspect's sample order (`sort_samples`): epoch, then id (numbers zero-filled)."""
    return item.epoch, item.id if isinstance(item.id, str) else str(item.id).zfill(20)


def summaries(path: str) -> list[EvalSampleSummary]:
    """The samples' summaries: scores, scalar metadata and errors, without the transcript."""
    return _read(read_eval_log_sample_summaries, path)


def sample(path: str, sample_id: str, epoch: int) -> EvalSample:
    """One whole sample, read alone (for the few a caller needs in full)."""
    return _read(read_eval_log_sample, path, id=sample_id, epoch=epoch)


# --- what a log says ---------------------------------------------------------------------------


def task_of(log: EvalLog) -> str:
    """The task's name without the `agentsense/` prefix."""
    return (log.eval.task_registry_name or log.eval.task).split("/")[-1]


def is_agentsense(log: EvalLog) -> bool:
    """A log of one of this package's tasks (they record `eval_version` in the eval metadata)."""
    name = log.eval.task_registry_name or log.eval.task
    return name.startswith(PREFIX) and "eval_version" in (log.eval.metadata or {})


def bound_models(log: EvalLog, role: str) -> list[str]:
    """The models bound to `role` (a list makes a panel); none when the role is unbound."""
    bound = (log.eval.model_roles or {}).get(role)
    listed = bound if isinstance(bound, list) else [bound] if bound else []
    return [str(config.model) for config in listed]


def role_model(log: EvalLog, role: str) -> str:
    """The model bound to `role` (the first of a list, as `get_model(role=...)`), else the
    evaluated model."""
    return next(iter(bound_models(log, role)), str(log.eval.model))


def log_name(path: str) -> str:
    return Path(path).name


# --- a sample's scorings -----------------------------------------------------------------------


def merged_scores(
    scores: Mapping[str, Score] | None, scorer: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Score values and score metadata of a sample's dict scores: of `scorer` only, or of all
    its scorings in log order, a later one (`inspect score --action append`) overriding."""
    values: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for name, score in (scores or {}).items():
        if isinstance(score.value, dict) and (scorer is None or name == scorer):
            values.update(score.value)
            metadata.update(score.metadata or {})
    return values, metadata


def scoring_names(scores: Mapping[str, Score] | None) -> list[str]:
    """The scorings with dict scores, in log order."""
    return [name for name, score in (scores or {}).items() if isinstance(score.value, dict)]


def newest_score(sample: EvalSample) -> tuple[str, Score] | None:
    """A sample's last scoring (`inspect score --action append` adds one last); None when it
    failed or has no score."""
    if sample.error or not sample.scores:
        return None
    name = list(sample.scores)[-1]
    return name, sample.scores[name]


def panel(metadata: Mapping[str, Any]) -> str:
    """The judge panel named in a score's metadata ("" when no judge scored it)."""
    judges = metadata.get(JUDGES)
    return ", ".join(map(str, judges.values())) if isinstance(judges, dict) else ""


# --- frames ------------------------------------------------------------------------------------


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a frame as dicts with string keys."""
    return [{str(key): value for key, value in row.items()} for row in frame.to_dict("records")]


def missing(value: Any) -> bool:
    return value is None or (not isinstance(value, (list, dict, str)) and bool(pd.isna(value)))


def as_float(value: Any) -> float:
    return math.nan if value is None else float(value)


def as_int(value: Any) -> int | None:
    return None if missing(value) else int(value)
