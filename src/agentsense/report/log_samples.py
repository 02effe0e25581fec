"""Whole samples of a run's logs, streamed, for the sections that need more than the score
summaries `analysis.log_reader` reads (every scoring of a sample; every model event)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.log import EvalSample, read_eval_log_samples

SampleRows = Callable[[EvalSample, str], list[dict[str, Any]]]  # (sample, log path) -> rows


@functools.lru_cache(maxsize=128)
def _cached(
    path: str, stamp: tuple[int, int], rows_of: SampleRows, columns: tuple[str, ...]
) -> pd.DataFrame:
    rows = [
        row
        for sample in read_eval_log_samples(path, all_samples_required=False)
        for row in rows_of(sample, path)
    ]
    return pd.DataFrame(rows, columns=list(columns))


def sample_frame(path: str, rows_of: SampleRows, columns: Sequence[str]) -> pd.DataFrame:
    """`rows_of` applied to every sample of one log (cached while the file is unchanged;
    callers must not mutate the frame)."""
    stat = Path(path).stat()
    return _cached(path, (stat.st_mtime_ns, stat.st_size), rows_of, tuple(columns))


def run_paths(run: dict[str, Any], paths: Sequence[str]) -> list[str]:
    """The log files a merged run was made of, among the report's inputs."""
    names = set(run.get("log_files") or [Path(str(run["log"])).name])
    return [path for path in paths if Path(path).name in names]
