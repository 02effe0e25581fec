"""The Sotopia section: SOTOPIA-EVAL's seven dimensions and their mean per model
(`agentsense/sotopia` logs), each on its own range, clustered by environment."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import pandas as pd

from agentsense.analysis import logs
from agentsense.analysis.logs import log_name
from agentsense.analysis.stats import Bounds, clustered_mean_ci
from agentsense.engine.roles import CHARACTER_ROLE, JUDGE_ROLE
from agentsense.report.document import Absent, Content, Report
from agentsense.report.other_logs import OtherLogs, items
from agentsense.report.render import markdown, spread
from agentsense.report.sections.other_tasks import read_task, score_rows
from agentsense.report.sections.profile import SOTOPIA_GOAL, SOTOPIA_OVERALL
from agentsense.sense.metrics import nan_mean
from agentsense.sotopia import KEYS, SCORE_KEYS
from agentsense.sotopia.prompts import RANGES

# Each score key's range; `overall` is the mean of the seven, so its range is theirs averaged.
BOUNDS: dict[str, Bounds] = {
    KEYS[name]: (float(lo), float(hi)) for name, (lo, hi) in RANGES.items()
}
BOUNDS["overall"] = (
    sum(lo for lo, _ in RANGES.values()) / len(RANGES),
    sum(hi for _, hi in RANGES.values()) / len(RANGES),
)
HEADERS = {KEYS[name]: KEYS[name].replace("_", " ") for name in RANGES} | {"overall": "overall"}


def episode_frame(paths: list[str]) -> pd.DataFrame:
    """One row per episode of the logs (its epochs, and its runs in several logs, averaged), a
    dimension the judges left unreadable as NaN."""
    runs: dict[str, list[dict[str, float]]] = defaultdict(list)
    environments: dict[str, str] = {}
    for path in paths:
        for item in items(path):
            runs[item.id].append(item.values)
            environments[item.id] = str((item.sample.metadata or {}).get("environment", item.id))
    rows = [
        {
            "id": key,
            "environment": environments[key],
            **{k: nan_mean([v.get(k, math.nan) for v in values]) for k in SCORE_KEYS},
        }
        for key, values in runs.items()
    ]
    return pd.DataFrame(rows, columns=["id", "environment", *SCORE_KEYS])


def _setting(path: str) -> tuple[str, str, str]:
    """What a row of the table is: the model, its judges and the dataset."""
    header = logs.header(path)
    judges = ", ".join(logs.bound_models(header, JUDGE_ROLE)) or str(header.eval.model)
    dataset = str((header.eval.metadata or {}).get("dataset", ""))
    return logs.role_model(header, CHARACTER_ROLE), judges, dataset


def _distinct(paths: list[str]) -> list[str]:
    """One path per run: a log given twice (or copied) counts once."""
    seen: dict[str, str] = {}
    for path in paths:
        seen.setdefault(logs.header(path).eval.eval_id, path)
    return sorted(seen.values())


def sotopia_rows(setting: tuple[str, str, str], paths: list[str]) -> dict[str, Any] | None:
    episodes = episode_frame(paths)
    if episodes.empty:
        return None
    clusters = list(episodes["environment"])
    model, judges, dataset = setting
    return {
        "log": ", ".join(log_name(path) for path in paths),
        "model": model,
        "judges": judges,
        "dataset": dataset,
        "logs": len(paths),
        "episodes": len(episodes),
        "environments": int(episodes["environment"].nunique()),
        "unreadable": int(episodes[list(SCORE_KEYS)].isna().to_numpy().sum()),
        **{
            key: clustered_mean_ci(list(episodes[key]), clusters, BOUNDS[key]) for key in SCORE_KEYS
        },
    }


def sotopia_table(paths: list[str]) -> pd.DataFrame:
    """A row per model, judges and dataset, pooling its logs (shards, retries, repeats)."""
    groups: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for path in _distinct(paths):
        groups[_setting(path)].append(path)
    rows = [sotopia_rows(setting, group) for setting, group in sorted(groups.items())]
    return pd.DataFrame([row for row in rows if row is not None])


def sotopia_section(others: OtherLogs, report: Report) -> Content:
    read = read_task(
        others, "sotopia", sotopia_table, "no agentsense/sotopia log has a scored episode"
    )
    if isinstance(read, Absent):
        return read
    table = read[1]
    report.csv(spread(table, SCORE_KEYS), "sotopia")
    for r in table.to_dict("records"):
        count, model = int(r["logs"]), str(r["model"])
        logs_text = f"{count} log{'s' if count > 1 else ''}"
        report.runs.append(
            f"sotopia {model}: {logs_text}, {r['episodes']} episodes, judges {r['judges']}"
        )
        report.headline(SOTOPIA_OVERALL.key, model, r["overall"])
        report.headline(SOTOPIA_GOAL.key, model, r["goal"])
    head = ["model", "judges", "dataset", "episodes", "environments"]
    head += [f"{HEADERS[k]} ({BOUNDS[k][0]:.3g}..{BOUNDS[k][1]:.3g})" for k in SCORE_KEYS]
    plain = ["judges", "dataset", "episodes", "environments"]
    rows = score_rows(others, table, "model", plain, SCORE_KEYS, "environment")
    unread = int(table["unreadable"].sum())
    note = (
        f"\n\n{unread} episode score(s) left out: every judge's value for the dimension was "
        "unreadable or out of range (NaN, never 0; docs/sotopia.md)."
        if unread
        else ""
    )
    return (
        "## Sotopia (agentsense/sotopia)\n\nSOTOPIA-EVAL per model: each dimension on its own "
        "range (in the header), an episode's value the mean over its agents and judges, and "
        "overall the mean of the seven; mean [95% CI] clustered by environment (episodes of one "
        "environment are not independent). Scores move with the judge model: compare rows with "
        "the same judges. A row pools a model's logs with the same judges and data (shards, "
        "retries; a log given twice counts once). Columns in `sotopia.csv`.\n\n"
        + markdown(head, rows)
        + note
    )
