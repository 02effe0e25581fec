"""The cross-benchmark profile: one row per model, each benchmark's headline score beside the
others (AgentSense goal and info, Sotopia overall and goal, CoSER GCA average).

The numbers are the ones the benchmark's own section computed (`Report.headline`), so the
profile and the tables never disagree; this section only lays them side by side.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from agentsense.report.document import Absent, Content, Report
from agentsense.report.other_logs import OtherLogs
from agentsense.report.render import by_clusters, cell, markdown, spread


@dataclass(frozen=True)
class Column:
    key: str  # the column's name in profile.csv
    benchmark: str
    title: str  # with its unit
    percent: bool  # the estimate is a fraction shown × 100
    clusters: str = "template"  # what its interval is clustered by


GOAL = Column("agentsense_goal", "AgentSense", "AgentSense goal, judge majority (%)", True)
INFO = Column("agentsense_info", "AgentSense", "AgentSense info, MCQ accuracy (%)", True)
SOTOPIA_OVERALL = Column(
    "sotopia_overall", "Sotopia", "Sotopia overall (-4.29..5.71)", False, "environment"
)
SOTOPIA_GOAL = Column("sotopia_goal", "Sotopia", "Sotopia goal (0..10)", False, "environment")
GCA_AVERAGE = Column("gca_average", "CoSER GCA", "CoSER GCA average (0-100)", True, "book")
COLUMNS = (GOAL, INFO, SOTOPIA_OVERALL, SOTOPIA_GOAL, GCA_AVERAGE)
SEVERAL = "several rows"


def profile_table(report: Report) -> pd.DataFrame:
    """model -> column key -> its estimate; None where the model has no such score, SEVERAL
    where the benchmark's table has more than one row for it (other judges or critics)."""
    models = sorted({m for c in COLUMNS for m in report.headlines.get(c.key, {})})
    rows = []
    for model in models:
        row: dict[str, object] = {"model": model}
        for c in COLUMNS:
            found = report.headlines.get(c.key, {}).get(model, [])
            row[c.key] = found[0] if len(found) == 1 else SEVERAL if found else None
        rows.append(row)
    return pd.DataFrame(rows, columns=["model", *(c.key for c in COLUMNS)])


def _cell(value: object, column: Column) -> str:
    """The estimate as its own section shows it, its caveat naming the column's clusters."""
    return by_clusters(cell(value, column.percent, with_n=True), column.clusters)


def profile_section(others: OtherLogs, report: Report) -> Content:
    benchmarks = {c.benchmark for c in COLUMNS if report.headlines.get(c.key)}
    if len(benchmarks) < 2:
        return Absent(
            "fewer than two of AgentSense, Sotopia and CoSER GCA among the inputs: the profile "
            "sets a model's scores on them side by side"
        )
    table = profile_table(report)
    report.csv(spread(table, [c.key for c in COLUMNS]), "profile")
    rows = [
        [str(r["model"]), *(_cell(r[c.key], c) for c in COLUMNS)] for r in table.to_dict("records")
    ]
    return (
        "## Social-intelligence profile\n\nEach model's headline score on every benchmark among "
        "the inputs, mean [95% CI] (n), as its own section computes it: AgentSense on the "
        "homogeneous runs of Table 1 (clustered by template), Sotopia clustered by environment, "
        "GCA by book. The scales differ (in each header); a dash: no run of the model on that "
        f"benchmark; '{SEVERAL}': its section has more than one row for the model (other "
        "judges or critics), read them there. Columns in `profile.csv`.\n\n"
        + markdown(["model", *(c.title for c in COLUMNS)], rows)
    )
