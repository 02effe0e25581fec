"""What a report section gets and writes into: the options of `agentsense report`, the report
being written (its CSVs, figures and section titles) and the `Inputs` every section is given; a
section returns its Markdown, or `Absent` with the reason it is left out."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from agentsense.analysis.log_reader import Runs
from agentsense.analysis.logs import READ_TASKS
from agentsense.analysis.stats import Estimate
from agentsense.report import tables
from agentsense.report.frames import Units
from agentsense.report.other_logs import OtherLogs
from agentsense.report.plots import FigureRecord
from agentsense.sense.score_keys import HEADLINE

NO_RUN = f"no model run among the inputs (a log of {READ_TASKS})"


@dataclass(frozen=True)
class Absent:
    """A section left out, and why (one line in the report and on the console)."""

    reason: str


Content = str | Absent


@dataclass
class ReportOptions:
    out: Path
    allow_mixed: bool = False
    labels: Path | None = None
    annotations: Path | None = None  # a filled `agentsense annotate` sheet (CSV)
    sensitivity_metric: str = HEADLINE  # the paper's primary metric
    alpha: float = 0.05  # the paper's
    scorer: str | None = None  # one scoring of re-judged logs; default: all, newest first
    prefer_newest: bool = False  # conflicting duplicate samples: keep the newest log's
    figures: bool = True
    scan: Path | None = None  # an Inspect Scout scan of the logs (`--scan`)
    # Processes reading the logs and drawing the figures (None: `log_reader.default_processes`;
    # from a script running threads, more than 1 needs `if __name__ == "__main__":`, see
    # `assemble.worker_pool`).
    processes: int | None = 1


@dataclass
class Report:
    """What was written, for the CLI summary and for tests."""

    out: Path
    draw: bool = True
    sections: list[str] = field(default_factory=list)  # titles of the sections written
    absent: dict[str, str] = field(default_factory=dict)  # title -> why it is left out
    figures: list[FigureRecord] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)  # CSV name -> its table
    markdown: str = ""  # report.md
    runs: list[str] = field(default_factory=list)  # one line per run, for the console
    unfinished: list[str] = field(default_factory=list)  # one line per unfinished run
    notes: list[str] = field(default_factory=list)
    # Each benchmark's headline scores per model, for the cross-benchmark profile: column ->
    # model -> its estimates (one per table row: several when a model has several rows),
    # put here by the section that computed them.
    headlines: dict[str, dict[str, list[Estimate]]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # path in the folder -> text to write
    # Draws the figures in worker processes beside the tables when set (`figure`, `finish`).
    pool: Executor | None = None
    drawing: list[tuple[str, Future[FigureRecord]]] = field(default_factory=list)

    def csv(self, frame: pd.DataFrame, name: str) -> None:
        """Keep a table for `<name>.csv` (`write_report` writes it)."""
        self.frames[name] = frame
        self.tables.append(f"{name}.csv")

    def headline(self, column: str, model: str, value: object) -> None:
        if isinstance(value, Estimate) and value.n:
            self.headlines.setdefault(column, {}).setdefault(model, []).append(value)

    def left_out(self) -> list[str]:
        """One line per section left out and why; the sections of model runs in one line when
        there is no model run (a report of judge_check, construct or gca logs alone)."""
        # "Nothing to note" is not worth a line.
        absent = {title: why for title, why in self.absent.items() if title != "Notes"}
        no_run = [title for title, why in absent.items() if why == NO_RUN]
        lines = [f"{', '.join(no_run)}: {NO_RUN}."] if no_run else []
        return lines + [f"{title}: {why}." for title, why in absent.items() if why != NO_RUN]

    def figure(self, name: str, draw: Callable[[Path], FigureRecord]) -> str:
        """Draw `figures/<name>.png` (unless figures are off); its Markdown image link. With a
        `pool`, `draw` (picklable: a module function or a `partial` of one) is sent to it and
        the link is a mark `finish` replaces once the figure is drawn."""
        if not self.draw:
            return ""
        path = self.out / "figures" / f"{name}.png"
        if self.pool is not None:
            self.drawing.append((name, self.pool.submit(draw, path)))
            return _mark(name)
        record = draw(path)
        self.figures.append(record)
        return _link(record)

    def finish(self, markdown: str) -> str:
        """The Markdown with each figure drawn in the pool linked, in the order asked for."""
        for name, future in self.drawing:
            record = future.result()
            self.figures.append(record)
            markdown = markdown.replace(_mark(name), _link(record), 1)
        self.drawing.clear()
        return markdown


def _mark(name: str) -> str:
    return f"\n\n<figure {name} being drawn>"


def _link(record: FigureRecord) -> str:
    return f"\n\n![{record.title}](figures/{record.file})"


@dataclass
class Inputs:
    """What every section gets: the loaded runs, their analysis units, the options and the
    report's Table 1."""

    runs: Runs
    units: Units
    options: ReportOptions
    report: Report
    others: OtherLogs = field(default_factory=OtherLogs)  # judge_check, construct, gca logs

    @cached_property
    def table_one(self) -> pd.DataFrame:
        """Table 1 (`tables.table_one`), computed once per report: its section, the evaluation
        report and the paper's references read the same frame."""
        return tables.table_one(self.units)
