"""Every figure shows what its table reports: the report's tables (report.md and the CSVs) and
its figures' data (figures.json, what each PNG was drawn from) are read back and compared."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from agentsense.analysis.stats import std_ci
from agentsense.cli import main


@pytest.fixture(scope="module")
def report(kind_logs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("figures-agree")
    logs = [str(kind_logs[kind]) for kind in ("goal", "full", "pairwise")]
    assert main(["report", *logs, "--out", str(out)]) == 0
    return out


def figure(out: Path, file: str) -> dict[str, Any]:
    records = json.loads((out / "figures.json").read_text(encoding="utf-8"))
    (record,) = [r for r in records if r["file"] == file]
    return dict(record)


def section_table(out: Path, title: str) -> list[list[str]]:
    """The first Markdown table of a report.md section, header first."""
    text = (out / "report.md").read_text(encoding="utf-8")
    section = text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return [rows[0], *rows[2:]]  # without the |---| line


def test_the_profile_sensitivity_figure_plots_the_tables_std(report: Path) -> None:
    (panel,) = figure(report, "sensitivity.png")["panels"]
    head, *rows = section_table(report, "Profile sensitivity")
    assert head[0] == "template" and len(rows) == len(panel["x"])
    tests = pd.read_csv(report / "sensitivity_tests.csv")
    compared = 0
    for row, x in zip(rows, panel["x"], strict=True):
        assert x.rstrip("*") == row[0]
        for group, cell in zip(head[1:], row[1:], strict=True):
            plotted = panel["series"][group][panel["x"].index(x)]
            if cell == "–":
                assert plotted is None or plotted["mean"] is None
                continue
            # The table's number, as shown (in %, one decimal) and as written to the CSV.
            assert f"{plotted['mean'] * 100:.1f}" == cell
            tested = tests[(tests["group"] == group) & (tests["template_id"].astype(str) == row[0])]
            assert math.isclose(plotted["mean"], float(tested["std"].iloc[0]))
            assert plotted["low"] <= plotted["mean"] <= plotted["high"]
            compared += 1
    assert compared >= 2  # several runs and templates, not a vacuous pass


def test_std_interval_is_the_chi_square_interval() -> None:
    # n = 3, s = 1: sqrt(2 / chi2.ppf(0.975, 2)) and sqrt(2 / chi2.ppf(0.025, 2)), by hand.
    spread = std_ci([0.0, 1.0, 2.0])
    assert spread.mean == 1.0 and spread.n == 3
    assert math.isclose(spread.low, math.sqrt(2 / 7.377758908227871))
    assert math.isclose(spread.high, math.sqrt(2 / 0.05063561596857975))
    assert math.isnan(std_ci([0.5]).mean)
