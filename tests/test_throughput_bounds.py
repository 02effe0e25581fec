"""The schedule bounds of `benchmarks/throughput.py` (`schedule_bounds.py`; arithmetic only: no
timing here), and its reading of a log (`run_logs.py`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"


def benchmark(name: str = "schedule_bounds") -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


# The table (official-throughput.md): scenes, L, calls, bound (to 0.1 s), which one.
CASES = [
    (1, 0.2, 36, 3.0, "critical_path"),
    (24, 1.0, 1161, 26.9, "turns_first"),
    (96, 1.0, 4644, 72.6, "turns_first"),
    (96, 0.2, 4644, 14.5, "turns_first"),
]


@pytest.mark.parametrize(("scenes", "latency", "calls", "bound", "which"), CASES)
def test_the_three_bounds_give_the_reference_figures(
    scenes: int, latency: float, calls: int, bound: float, which: str
) -> None:
    bounds = benchmark().schedule_bounds(14, 15, calls, scenes, 64, latency)
    assert round(bounds.largest, 1) == bound
    assert getattr(bounds, which) == bounds.largest
    assert bounds.call_volume == pytest.approx(calls * latency / 64)


def test_with_fewer_connections_than_scenes_the_volume_dominates() -> None:
    bounds = benchmark().schedule_bounds(14, 15, 1161, 24, 4, 0.2)
    # at C <= scenes the turns-first bound equals the call volume: turns fill every connection
    assert bounds.turns_first == pytest.approx(bounds.call_volume)
    assert bounds.largest == pytest.approx(1161 * 0.2 / 4)


def test_the_benchmark_reads_turns_and_rounds_off_a_real_log(kind_logs: dict[str, Path]) -> None:
    """It reads turns off the solver's own records and rounds off the scorer's span type."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import read_eval_log

    from agentsense_logs import MAX_MESSAGES

    log = read_eval_log(str(kind_logs["full"]))
    assert log.samples
    for sample in log.samples:
        turns, rounds, calls = benchmark("run_logs").sample_rounds(sample.events)
        assert turns == MAX_MESSAGES - 1  # the greeting is scripted, not a call
        assert rounds == 1  # `full` asks goal and MCQ questions in one round
        assert calls == sum(isinstance(e, ModelEvent) for e in sample.events)
        assert calls > turns
