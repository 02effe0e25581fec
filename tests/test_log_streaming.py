"""The report at the benchmark's size (benchmarks/scale.py, docs/throughput.md "Scale"): it reads a
log's samples a batch at a time (`analysis.logs.samples`), so its memory does not grow with the
log and the zip's directory is not parsed once per sample; its PSI bootstrap does work per
template, not per scene."""

from __future__ import annotations

import gc
import shutil
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from inspect_ai.log import EvalSample, read_eval_log

from agentsense.analysis import log_reader, logs
from agentsense.analysis.stats import template_bootstrap_ci
from agentsense.report import tables
from agentsense.sense import metrics


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


def test_the_report_reader_holds_one_batch_at_a_time(
    kind_logs: Mapping[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy of its own, so no cached reading of the shared log answers for it.
    path = str(shutil.copy(kind_logs["full"], tmp_path / "full.eval"))
    held: list[int] = []
    reads: list[int] = []
    add_sample = log_reader._add_sample
    read_batch = logs.read_eval_log_samples_by_id

    def counting(log: Any, path: str, item: Any, scorer: str | None) -> None:
        held.append(live_samples())
        add_sample(log, path, item, scorer)

    def counting_reads(path: str, keys: list[tuple[str | int, int]]) -> list[EvalSample]:
        reads.append(len(keys))
        return read_batch(path, keys)

    monkeypatch.setattr(log_reader, "_add_sample", counting)
    monkeypatch.setattr(logs, "read_eval_log_samples_by_id", counting_reads)
    monkeypatch.setattr(logs, "SAMPLE_BATCH", 2)
    gc.collect()
    before = live_samples()
    (read,), _ = log_reader.read_logs([path])
    in_log = len(read_eval_log(path).samples or [])
    assert in_log >= 4 and len(held) == in_log
    # The batch being read, and none of those before it (read whole: all of them at once).
    assert max(held) - before <= 2
    # One Inspect read per batch (read one by one: one per sample, each parsing the zip's
    # directory again, so the report's reading grew as the scenes squared).
    assert reads == [2] * (in_log // 2) + ([1] if in_log % 2 else [])
    assert len(read.rows["scenes"]) == in_log


def test_psi_bootstrap_takes_each_templates_std_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A draw averages the drawn templates' stds: the bootstrap's work does not grow with the
    scenes (draws x scenes: 1.9 s an estimate at 1,225 scenes), and its numbers are the
    generic ones."""
    rng = np.random.default_rng(3)
    scenes = pd.DataFrame(
        {"template_id": [str(t) for t in range(5) for _ in range(6)], "psi": rng.random(30)}
    )
    groups = tables.template_groups(scenes, "psi")
    generic = template_bootstrap_ci(groups, lambda g: metrics.profile_sensitivity(g, "skip"))
    calls: list[int] = []
    template_std = metrics.template_std

    def counting(values: list[float], short: Any) -> float | None:
        calls.append(len(values))
        return template_std(values, short)

    monkeypatch.setattr(metrics, "template_std", counting)
    assert tables.psi_estimate(scenes, "psi") == generic
    assert calls == [6] * 5


def test_reading_a_log_formats_no_sample(
    kind_logs: Mapping[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before Python 3.13, each `asyncio` run formatted the repr of up to 12 of the samples it
    returned (its SIGINT handler holds the task): a fifth of a log's reading, for nothing."""
    formatted: list[str] = []
    monkeypatch.setattr(EvalSample, "__repr__", lambda self: formatted.append(self.id) or "s")
    path = str(kind_logs["full"])
    assert len(list(logs.samples(path))) >= 4
    assert formatted == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_still_interrupts_a_read(kind_logs: Mapping[str, Path]) -> None:
    def interrupted(path: str) -> None:
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler)
        handler(signal.SIGINT, None)  # what Ctrl-C does while Inspect reads

    with pytest.raises(KeyboardInterrupt):
        logs._read(interrupted, str(kind_logs["full"]))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
