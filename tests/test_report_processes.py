"""The report in worker processes (`agentsense report --processes N`, by default one per core, at
most 4, for 8 MB of logs or more): the logs are read and the figures drawn in other processes, and
every file it writes is the one the report written in one process writes, byte for byte."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from agentsense.analysis import log_reader
from agentsense.analysis.log_merge import LogData
from agentsense.cli import main
from agentsense.engine.errors import ReportError
from agentsense.report import assemble
from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions

KINDS = ("full", "pairwise", "blind")  # every figure the report draws from model runs


# inspect-viz names the page's elements at random: it differs between any two reports.
RANDOM = {"scores_by_model.html"}


def written(folder: Path) -> dict[str, bytes]:
    files = (p for p in folder.rglob("*") if p.is_file() and p.name not in RANDOM)
    return {str(p.relative_to(folder)): p.read_bytes() for p in files}


def shown(read: LogData | str) -> str:
    return (
        repr((read.run, read.rows, read.signatures, read.skipped))
        if isinstance(read, LogData)
        else read
    )


@pytest.fixture(params=["fork", "forkserver"])
def start_method(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each way the workers may start (`assemble._start_method` picks by the running threads)."""
    method = str(request.param)
    if method not in multiprocessing.get_all_start_methods():
        pytest.fail(f"{method} is not available here: the report's workers are untested")
    context = multiprocessing.get_context(method)
    monkeypatch.setattr(assemble, "_start_method", lambda: context)
    return method


@pytest.fixture
def fresh_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Nothing read before counts: every log is read again, by whoever the test says."""
    monkeypatch.setattr(log_reader, "_READ", {})
    yield


def test_the_report_in_workers_is_the_report_in_one_process(
    kind_logs: Mapping[str, Path], tmp_path: Path, start_method: str, fresh_reads: None
) -> None:
    logs = [str(kind_logs[kind]) for kind in KINDS]
    one = write_report(logs, ReportOptions(out=tmp_path / "one", processes=1))
    log_reader._READ.clear()  # the second report reads every log again, in the workers
    two = write_report(logs, ReportOptions(out=tmp_path / "two", processes=2))
    assert len(two.figures) == len(one.figures) >= 5
    assert [f.file for f in two.figures] == [f.file for f in one.figures]
    assert "being drawn" not in two.markdown
    files = written(tmp_path / "one")
    assert sum(name.endswith(".png") for name in files) == len(one.figures)
    assert written(tmp_path / "two") == files


def test_logs_read_in_workers_are_kept_as_if_read_here(
    kind_logs: Mapping[str, Path], start_method: str, fresh_reads: None
) -> None:
    paths = [str(kind_logs[kind]) for kind in ("full", "blind", "info")]
    with assemble.worker_pool(2) as pool:
        in_workers = log_reader.read_each(paths, None, True, pool)
    log_reader._READ.clear()
    here = log_reader.read_each(paths, None, True)
    assert all(isinstance(read, LogData) and read.rows["scenes"] for read in in_workers)
    # By repr: NaN is not equal to itself, and the rows hold some (unknown tokens, no vote).
    assert [shown(read) for read in in_workers] == [shown(read) for read in here]
    # Read once: asked again, the kept reading answers, without a worker.
    again = log_reader.read_each(paths, None, True)
    assert all(a is b for a, b in zip(again, here, strict=True))


def test_a_log_a_worker_cannot_read_is_named_and_nothing_else_is_lost(
    kind_logs: Mapping[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    fresh_reads: None,
) -> None:
    broken = str(kind_logs["blind"])
    read_log = log_reader._read_log

    def failing(path: str, scorer: str | None, full: bool) -> LogData | str:
        if path == broken:
            raise ReportError(f"{path}: could not read it as an Inspect log (a test's damage).")
        return read_log(path, scorer, full)

    # Forked workers carry the patched reader (forkserver's would import the module afresh).
    monkeypatch.setattr(log_reader, "_read_log", failing)
    monkeypatch.setattr(assemble, "_start_method", lambda: multiprocessing.get_context("fork"))
    out = tmp_path / "report"
    logs = [str(kind_logs["full"]), broken]
    assert main(["report", *logs, "--out", str(out), "--processes", "2"]) == 2
    err = capsys.readouterr().err
    assert f"{broken}: could not read it as an Inspect log (a test's damage)." in err
    assert "Traceback" not in err
    assert not (out / "report.md").exists()


def test_processes_must_be_one_or_more(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("0", "-1", "two"):
        with pytest.raises(SystemExit) as exit_:
            main(["report", str(tmp_path), "--out", str(tmp_path / "r"), "--processes", bad])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert f"argument --processes: {bad!r} is not a whole number of 1 or more" in err


def test_worker_processes_by_default_only_when_the_logs_are_big(tmp_path: Path) -> None:
    cores = len(os.sched_getaffinity(0))

    def logs_of(*sizes: int) -> list[str]:
        paths = []
        for k, size in enumerate(sizes):
            path = tmp_path / f"{len(sizes)}-{k}.eval"
            with path.open("wb") as file:
                file.truncate(size)  # sparse: the size is all `default_processes` reads
            paths.append(str(path))
        return paths

    limit, most = log_reader.PARALLEL_BYTES, log_reader.MAX_PROCESSES
    assert log_reader.default_processes(logs_of(limit // 3, limit // 3)) == 1
    assert log_reader.default_processes(logs_of(limit)) == 1  # one log: one process reads it
    assert log_reader.default_processes(logs_of(*[limit // 8] * 8)) == min(cores, 8, most)
    assert log_reader.default_processes(logs_of(limit // 2, limit // 2)) == min(cores, 2)


def test_a_big_machine_gets_a_few_workers_not_one_per_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)))
    paths = []
    for k in range(28):
        path = tmp_path / f"{k}.eval"
        with path.open("wb") as file:
            file.truncate(2 * 1024 * 1024)
        paths.append(str(path))
    assert log_reader.default_processes(paths) == log_reader.MAX_PROCESSES == 4


def test_no_fork_while_another_thread_runs() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert assemble._start_method().get_start_method() != "fork"
    finally:
        stop.set()
        thread.join()
    # On Linux, a process running no other thread forks (its workers share what it imported).
    code = "from agentsense.report import assemble; print(assemble._start_method())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "ForkContext" in done.stdout


def test_the_command_picks_its_workers_by_the_logs_size(
    kind_logs: Mapping[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`agentsense report` without `--processes` asks `default_processes`; with it, not."""
    asked: list[int] = []
    pool = assemble.worker_pool

    def counting(processes: int) -> Any:
        asked.append(processes)
        return pool(processes)

    monkeypatch.setattr(assemble, "worker_pool", counting)
    logs = [str(kind_logs[kind]) for kind in ("full", "blind")]
    args = ["report", *logs, "--no-figures"]
    assert main([*args, "--out", str(tmp_path / "small")]) == 0
    monkeypatch.setattr(log_reader, "PARALLEL_BYTES", 0)  # as if the logs were big
    assert main([*args, "--out", str(tmp_path / "big")]) == 0
    assert main([*args, "--out", str(tmp_path / "one"), "--processes", "1"]) == 0
    cores = len(os.sched_getaffinity(0))
    assert asked == [1, min(cores, 2, log_reader.MAX_PROCESSES), 1]
    assert "Wrote" in capsys.readouterr().out
