"""The report reads a log's samples one at a time (`analysis.logs.samples`), so its memory does not
grow with the log: a 1,225-scene run read whole is GBs of transcripts (benchmarks/scale.py)."""

from __future__ import annotations

import gc
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalSample, read_eval_log

from agentsense.analysis import log_reader, logs


def live_samples() -> int:
    """Whole samples alive in this process now."""
    return sum(1 for item in gc.get_objects() if isinstance(item, EvalSample))


def test_samples_are_the_logs_samples_in_inspects_order(kind_logs: Mapping[str, Path]) -> None:
    for kind in ("full", "pairwise"):
        path = str(kind_logs[kind])
        whole = read_eval_log(path).samples or []
        streamed = list(logs.samples(path))
        assert len(whole) > 1
        assert [(s.id, s.epoch) for s in streamed] == [(s.id, s.epoch) for s in whole]
        assert [s.scores for s in streamed] == [s.scores for s in whole]
        assert [len(s.events) for s in streamed] == [len(s.events) for s in whole]


def test_the_report_reader_holds_one_sample_at_a_time(
    kind_logs: Mapping[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy of its own, so no cached reading of the shared log answers for it.
    path = str(shutil.copy(kind_logs["full"], tmp_path / "full.eval"))
    held: list[int] = []
    add_sample = log_reader._add_sample

    def counting(log: Any, path: str, item: Any, scorer: str | None) -> None:
        held.append(live_samples())
        add_sample(log, path, item, scorer)

    monkeypatch.setattr(log_reader, "_add_sample", counting)
    gc.collect()
    before = live_samples()
    (read,), _ = log_reader.read_logs([path])
    in_log = len(read_eval_log(path).samples or [])
    assert in_log >= 4 and len(held) == in_log
    # The sample being read, and none of those before it (read whole: all of them at once).
    assert max(held) - before == 1
    assert len(read.rows["scenes"]) == in_log
