"""The report's GCA table: CoSER's metrics per actor model, from `agentsense/gca` logs.

One row per log: the actor (the evaluated model), the critic, the scenes and books scored, and
per metric (the four critic dimensions, their average, BLEU, ROUGE-L) the mean over scenes with
a 95% interval clustered by book, as the log's `stderr(cluster="book")` (docs/gca.md). A scene's
epochs are averaged first; a dimension the critic left unreadable (NaN) is left out of its mean
and counted.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..analysis import logs
from ..analysis.logs import log_name
from ..analysis.stats import Estimate, clustered_mean_ci
from ..gca.scorer import KEYS, SCORE_KEYS
from ..roles import CRITIC_ROLE
from .content import Absent, Content
from .other_logs import OtherLogs, items
from .render import cell, markdown

if TYPE_CHECKING:
    from .document import Report

TASK = "gca"
DIMENSIONS = tuple(KEYS.values())
POINTS = (*DIMENSIONS, "average")  # 0-100 scores; BLEU and ROUGE-L are 0-1
HEADERS = {
    **{key: name for name, key in KEYS.items()},
    "average": "Average",
    "bleu": "BLEU",
    "rouge_l": "ROUGE-L",
}


def scene_frame(path: str) -> tuple[pd.DataFrame, dict[str, str]]:
    """One row per scene (epochs averaged), metrics as fractions; and the log's roles."""
    log = logs.header(path)
    rows = [
        {
            "id": item.id,
            "book": str((item.sample.metadata or {}).get("book", item.id)),
            **{
                key: item.values.get(key, math.nan) / (100.0 if key in POINTS else 1.0)
                for key in SCORE_KEYS
            },
        }
        for item in items(path)
    ]
    roles = {
        "actor": str(log.eval.model),
        "critic": logs.role_model(log, CRITIC_ROLE),
        "dataset": str((log.eval.metadata or {}).get("dataset", "")),
    }
    return pd.DataFrame(rows, columns=["id", "book", *SCORE_KEYS]), roles


def gca_rows(path: str) -> dict[str, Any] | None:
    scenes, roles = scene_frame(path)
    if scenes.empty:
        return None
    estimates = {
        key: clustered_mean_ci(list(scenes[key]), list(scenes["book"])) for key in SCORE_KEYS
    }
    unreadable = int(scenes[list(DIMENSIONS)].isna().to_numpy().sum())
    return {
        "log": log_name(path),
        **roles,
        "scenes": len(scenes),
        "books": int(scenes["book"].nunique()),
        "unreadable": unreadable,
        **estimates,
    }


def gca_table(paths: list[str]) -> pd.DataFrame:
    return pd.DataFrame([row for path in paths if (row := gca_rows(path)) is not None])


def _flat(table: pd.DataFrame) -> pd.DataFrame:
    """Estimates spread into mean / ci_low / ci_high / n, on CoSER's scales (0-100, 0-1)."""
    out = table.drop(columns=list(SCORE_KEYS))
    for key in SCORE_KEYS:
        scale = 100.0 if key in POINTS else 1.0
        estimates: list[Estimate] = list(table[key])
        out[f"{key}_mean"] = [e.mean * scale for e in estimates]
        out[f"{key}_ci_low"] = [e.low * scale for e in estimates]
        out[f"{key}_ci_high"] = [e.high * scale for e in estimates]
        out[f"{key}_n"] = [e.n for e in estimates]
    return out


def _by_book(text: str) -> str:
    """The interval's caveat names the clusters it is computed over here: books."""
    return text.replace("templates", "books").replace("template", "book")


def gca_section(others: OtherLogs, report: Report) -> Content:
    paths = others.of(TASK)
    if not paths:
        return Absent("no agentsense/gca log among the inputs")
    table = gca_table(paths)
    if table.empty:
        return Absent("no agentsense/gca log has a scored scene")
    report.csv(_flat(table), "gca")
    for r in table.itertuples():
        report.runs.append(f"gca {r.actor}: 1 log, {r.scenes} scenes, critic {r.critic}")
    head = ["actor", "critic", "dataset", "scenes", "books", *(HEADERS[k] for k in SCORE_KEYS)]
    rows = [
        [
            others.labelled(str(r["log"]), str(r["actor"])),
            str(r["critic"]),
            str(r["dataset"]),
            str(r["scenes"]),
            str(r["books"]),
            *(_by_book(cell(r[key], percent=key in POINTS)) for key in SCORE_KEYS),
        ]
        for r in table.to_dict("records")
    ]
    unread = int(table["unreadable"].sum())
    note = (
        f"\n\n{unread} dimension score(s) left out: the critic's reply stayed unreadable."
        if unread
        else ""
    )
    return (
        "## Given-Circumstance Acting (CoSER, agentsense/gca)\n\nCoSER's metrics per actor: "
        "the four critic dimensions and their average (0-100, penalty-based with the length "
        "correction) and BLEU / ROUGE-L against the book's conversation (0-1), mean ± 95% CI "
        "clustered by book (scenes of one book are not independent), a scene's epochs averaged "
        "first. Scores move with the critic model: compare rows with the same critic "
        "(docs/gca.md). Columns in `gca.csv`.\n\n" + markdown(head, rows) + note
    )
