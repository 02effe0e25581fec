"""`agentsense report`: logs -> report.md, CSV tables, PNG figures and figures.json, one folder.

The sections are listed in `SECTIONS` (title -> function), in report order, each in a module of
`report.sections`.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import sys
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from agentsense.analysis.log_reader import Runs, default_processes, load_runs
from agentsense.analysis.logs import log_paths, records
from agentsense.report.document import NO_RUN, Absent, Content, Inputs, Report, ReportOptions
from agentsense.report.frames import Units, build_units
from agentsense.report.labels import apply_labels, read_labels
from agentsense.report.other_logs import OtherLogs, split_logs
from agentsense.report.out_folder import check_out
from agentsense.report.paper import TITLE as PAPER_TITLE
from agentsense.report.paper import paper_section
from agentsense.report.register import evaluation_report_section
from agentsense.report.sections.breakdowns import (
    SCENE_FACTORS,
    attack_section,
    category_section,
    overconfidence_section,
    pairs_section,
    scene_section,
)
from agentsense.report.sections.judges import human_labels_section, reliability_section
from agentsense.report.sections.other_tasks import (
    construction_section,
    gca_section,
    judge_check_section,
)
from agentsense.report.sections.profile import profile_section
from agentsense.report.sections.profile_sensitivity import sensitivity_section
from agentsense.report.sections.runs import (
    notes_section,
    run_line,
    runs_section,
    statistics_section,
    unfinished_banner,
    unfinished_lines,
)
from agentsense.report.sections.scans import scans_section
from agentsense.report.sections.scores import (
    baselines_section,
    labelling_section,
    leakage_section,
    repeated_section,
    table_one_section,
    table_two_section,
    uncertainty_section,
)
from agentsense.report.sections.sotopia import sotopia_section
from agentsense.report.sections.usage import usage_section
from agentsense.report.sections.variance_components import variance_section


@dataclass(frozen=True)
class LogSection:
    """A section of the logs that are not model runs (judge_check, construct, gca): it needs no
    run, so a report of such logs alone has it."""

    read: Callable[[OtherLogs, Report], Content]

    def __call__(self, inputs: Inputs) -> Content:
        return self.read(inputs.others, inputs.report)


SECTIONS: tuple[tuple[str, Callable[[Inputs], Content]], ...] = (
    ("Runs", runs_section),
    ("Notes", notes_section),
    ("Table 1", table_one_section),
    ("Evaluation report", evaluation_report_section),
    ("Leakage baseline", leakage_section),
    ("Table 2", table_two_section),
    ("Repeated runs", repeated_section),
    (PAPER_TITLE, paper_section),
    ("Goal categories", category_section),
    ("Over-confidence", overconfidence_section),
    *((label, scene_section(by, label, name, figure)) for by, label, name, figure in SCENE_FACTORS),
    ("Sender × receiver", pairs_section),
    ("Attacker and defender", attack_section),
    ("Profile sensitivity", sensitivity_section),
    ("Judge reliability", reliability_section),
    ("Judges against human labels", human_labels_section),
    ("Judge check", LogSection(judge_check_section)),
    ("Trivial baselines", baselines_section),
    ("Uncertainty", uncertainty_section),
    ("Variance components", variance_section),
    ("Cost and tokens", usage_section),
    ("Transcript scans", scans_section),
    ("Labelling", labelling_section),
    ("Construction", LogSection(construction_section)),
    ("GCA", LogSection(gca_section)),
    ("Sotopia", LogSection(sotopia_section)),
    ("Social-intelligence profile", LogSection(profile_section)),
    ("Statistics", statistics_section),
)


def _no_nan(value: object) -> object:
    """JSON has no NaN: missing numbers become null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {key: _no_nan(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_no_nan(item) for item in value]
    return value


def _left_out(report: Report) -> str:
    lines = [f"- {line}" for line in report.left_out()]
    return "## Left out\n\n" + "\n".join(lines) if lines else ""


# What a worker process needs, imported once in the server it is forked from.
PRELOAD = ["agentsense.analysis.log_reader", "agentsense.report.plots"]


@dataclass(frozen=True)
class Loaded:
    """The logs as a report reads them: the model runs and their analysis units (None: only
    judge_check, construct or gca logs) and the other logs by task."""

    runs: Runs | None
    units: Units | None
    others: OtherLogs


def load_inputs(
    inputs: Sequence[str], options: ReportOptions, pool: Executor | None = None
) -> Loaded:
    """The logs read (by `pool`'s workers, if given), their runs and analysis units."""
    main, others = split_logs(log_paths(inputs))
    runs = None
    if not others.any:
        runs = load_runs(inputs, options.scorer, options.prefer_newest, pool)
    elif main:
        # Foreign logs go along, so the report notes them as it always does.
        runs = load_runs(main + others.foreign, options.scorer, options.prefer_newest, pool)
    if options.labels is not None and runs is not None:
        apply_labels(runs, read_labels(options.labels))
    units = build_units(runs, options.allow_mixed) if runs is not None else None
    return Loaded(runs, units, others)


def report_data(
    loaded: Loaded,
    options: ReportOptions,
    titles: Collection[str] | None = None,
    pool: Executor | None = None,
) -> Report:
    """What the report renders, no file written (figures are drawn if `options.figures`, by
    `pool`'s workers if given): the sections (all, or those titled in `titles`), their tables
    (`frames`), the Markdown, the run lines and notes."""
    runs, units, others = loaded.runs, loaded.units, loaded.others
    report = Report(options.out, draw=options.figures, pool=pool)
    given = Inputs(runs, units, options, report, others) if runs and units else None
    parts = ["# AgentSense report"]
    for title, section in SECTIONS:
        if titles is not None and title not in titles:
            continue
        if isinstance(section, LogSection):
            content = section.read(others, report)
        else:
            content = section(given) if given is not None else Absent(NO_RUN)
        if isinstance(content, Absent):
            report.absent[title] = content.reason
        else:
            report.sections.append(title)
            parts.append(content)
    left_out = _left_out(report)
    if left_out:
        # After the runs: what this report cannot show, and why.
        parts.insert(2 if "Runs" in report.sections else 1, left_out)
    report.unfinished = unfinished_lines(units.runs) if units is not None else []
    report.unfinished += others.banner
    if report.unfinished:
        # First thing a reader sees: these numbers cover only part of the plan.
        parts.insert(1, unfinished_banner(report.unfinished))
    others_runs = report.runs
    report.runs = [run_line(run) for run in records(units.runs)] if units is not None else []
    report.runs += others_runs
    report.notes = list(runs.notes) if runs is not None else []
    if others.foreign and runs is None:
        names = ", ".join(Path(path).name for path in others.foreign)
        report.notes.insert(0, f"Left out, not logs of an AgentSense task: {names}.")
    report.markdown = report.finish("\n\n".join(parts) + "\n")
    return report


@contextmanager
def worker_pool(processes: int) -> Iterator[Executor | None]:
    """`processes` worker processes reading the logs and drawing the figures (None for 1)."""
    if processes <= 1:
        yield None
        return
    pool = ProcessPoolExecutor(processes, mp_context=_start_method())
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _start_method() -> multiprocessing.context.BaseContext:
    """Fork where it is safe, on Linux with no other thread running in this process: the
    workers share its imports (no import again, less memory). Else forkserver or spawn, whose
    workers import the reader and plots once, and the calling script again, as
    `multiprocessing` does (a script needs its `if __name__ == "__main__":`)."""
    methods = multiprocessing.get_all_start_methods()
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def write_report(inputs: Sequence[str], options: ReportOptions) -> Report:
    check_out(options.out)
    processes = options.processes or default_processes(log_paths(inputs))
    with worker_pool(processes) as pool:
        loaded = load_inputs(inputs, options, pool)
        (options.out / "figures").mkdir(parents=True, exist_ok=True)
        report = report_data(loaded, options, pool=pool)
    for name, frame in report.frames.items():
        frame.to_csv(options.out / f"{name}.csv", index=False)
    for name, text in report.files.items():
        (options.out / name).parent.mkdir(parents=True, exist_ok=True)
        (options.out / name).write_text(text, encoding="utf-8")
    (options.out / "report.md").write_text(report.markdown, encoding="utf-8")
    (options.out / "figures.json").write_text(
        json.dumps(_no_nan([asdict(f) for f in report.figures]), indent=1), encoding="utf-8"
    )
    return report
