"""The sections of the logs that are not model runs (`other_logs`): *Judge check* (are the
judges fit?), *Construction* (what the scenario builder made) and *GCA* (CoSER's acting).

- Judge check: one row per log and judge (named by its model): the items it answered readably,
  accuracy, the share of "yes" on goals only claimed and on conversations telling the judge to
  say yes (both truly "no"), consistency on perturbed copies and the share of unreadable
  answers: the task's own metrics (`judge_rates`) on the samples of the newest scoring, a
  sample's epochs averaged first (as Inspect's mean reducer) and unreadable verdicts left out
  (as Inspect leaves NaN values out of metrics), so they equal the log's metrics.
- Construction: one row per log and script: the builder model, episodes and scenes found,
  scenes kept and filtered, templates, scenarios and MCQs built, model calls and repairs, items
  dropped (the build's own `BuildResult.counts`, in the score metadata of the newest scoring);
  then the dropped items grouped by stage and reason (every drop in `construction_drops.csv`).
- GCA: one row per log: the actor (the evaluated model), the critic, the scenes and books
  scored, and per metric (the four critic dimensions, their average, BLEU, ROUGE-L) the mean
  over scenes with a 95% interval clustered by book, as the log's `stderr(cluster="book")`
  (docs/gca.md). A scene's epochs are averaged first; a dimension the critic left unreadable
  (NaN) is left out of its mean and counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from typing import Any

import pandas as pd
from inspect_ai.scorer import SampleScore, Score

from agentsense.analysis import logs
from agentsense.analysis.logs import log_name, newest_score, records
from agentsense.analysis.stats import clustered_mean_ci
from agentsense.coser import KEYS, SCORE_KEYS
from agentsense.engine.roles import BUILDER_ROLE, CRITIC_ROLE
from agentsense.report.document import Absent, Content, Report
from agentsense.report.other_logs import Item, OtherLogs, items
from agentsense.report.render import DASH, by_clusters, cell, markdown, missing, percent, spread
from agentsense.report.sections.profile import GCA_AVERAGE
from agentsense.sense.dataset.judge_check_items import CLAIM_CASES, INJECTION_CASES
from agentsense.sense.judge_check import JUDGE_METRICS, UNREADABLE
from agentsense.sense.metrics import nan_mean
from agentsense.sense.score_keys import JUDGES

NO_LOG = "no agentsense/{} log among the inputs"


def read_task(
    others: OtherLogs, task: str, table: Callable[[list[str]], pd.DataFrame], empty: str
) -> tuple[list[str], pd.DataFrame] | Absent:
    """The task's logs and their table, or why the section is left out."""
    paths = others.of(task)
    if not paths:
        return Absent(NO_LOG.format(task))
    frame = table(paths)
    return Absent(empty) if frame.empty else (paths, frame)


def score_rows(
    others: OtherLogs,
    table: pd.DataFrame,
    name: str,
    plain: Sequence[str],
    keys: Sequence[str],
    clusters: str,
    points: Collection[str] = (),
) -> list[list[str]]:
    """The Markdown rows of a benchmark's table (GCA, Sotopia): the row's `name` with how far
    each of its logs got when unfinished, the `plain` columns, then the estimate of each score
    key, its interval clustered by `clusters` (× 100 for the `points` keys)."""
    rows = []
    for r in table.to_dict("records"):
        label = str(r[name])
        for log in str(r["log"]).split(", "):
            label = others.labelled(log, label)
        scores = (by_clusters(cell(r[k], percent=k in points), clusters) for k in keys)
        rows.append([label, *(str(r[column]) for column in plain), *scores])
    return rows


# --- judge check -------------------------------------------------------------------------------

JUDGE_CHECK_COLUMNS = [
    "log",
    "judge",
    "model",
    "items",
    "accuracy",
    "claims",
    "false_yes_claimed",
    "injections",
    "false_yes_injected",
    "perturbed",
    "consistency",
    "unreadable",
]


def _scores(found: list[Item], judge: str) -> list[SampleScore]:
    """The judge's readable verdicts as the task's metrics take them."""
    return [
        SampleScore(
            score=Score(value=item.values[judge]),
            sample_id=item.id,
            sample_metadata=item.sample.metadata,
        )
        for item in found
        if judge in item.values and not math.isnan(item.values[judge])
    ]


def judge_rows(path: str) -> list[dict[str, Any]]:
    """One row per judge of one judge_check log."""
    found = items(path)
    judges: dict[str, str] = {}
    for item in found:
        judges.update((item.score.metadata or {}).get(JUDGES) or {})
    keys = sorted({k for item in found for k in item.values if not k.startswith(UNREADABLE)})
    rows = []
    for judge in keys:
        scores = _scores(found, judge)
        read = {str(s.sample_id) for s in scores}
        cases = [str((s.sample_metadata or {}).get("case")) for s in scores]
        rows.append(
            {
                "log": log_name(path),
                "judge": judge,
                "model": judges.get(judge, ""),
                "items": len(scores),
                "claims": sum(case in CLAIM_CASES for case in cases),
                "injections": sum(case in INJECTION_CASES for case in cases),
                "perturbed": sum((s.sample_metadata or {}).get("original") in read for s in scores),
                **{
                    name: rate(scores) if scores else math.nan
                    for name, rate in JUDGE_METRICS.items()
                },
                "unreadable": nan_mean(
                    [item.values.get(UNREADABLE + judge, math.nan) for item in found]
                ),
            }
        )
    return rows


def judge_check_table(paths: list[str]) -> pd.DataFrame:
    rows = [row for path in paths for row in judge_rows(path)]
    return pd.DataFrame(rows, columns=JUDGE_CHECK_COLUMNS)


def _share(value: object, n: object) -> str:
    """The share in % and its n."""
    return DASH if missing(value) else f"{percent(value)} (n={n})"


def judge_check_section(others: OtherLogs, report: Report) -> Content:
    read = read_task(
        others, "judge_check", judge_check_table, "no judge_check log has a scored sample"
    )
    if isinstance(read, Absent):
        return read
    paths, table = read
    report.csv(table, "judge_check")
    for path in paths:
        part = table[table["log"] == log_name(path)]
        judges = ", ".join(str(m) for m in part["model"])
        report.runs.append(
            f"judge_check {judges or '(no judge)'}: 1 log, {int(part['items'].max() or 0)} items"
        )
    rows = [
        [
            others.labelled(str(r.log), str(r.log)),
            str(r.model or r.judge),
            str(r.items),
            percent(r.accuracy),
            _share(r.false_yes_claimed, r.claims),
            _share(r.false_yes_injected, r.injections),
            _share(r.consistency, r.perturbed),
            percent(r.unreadable),
        ]
        for r in table.itertuples()
    ]
    head = [
        "log",
        "judge",
        "items",
        "accuracy %",
        "false yes, claims % ↓",
        "false yes, injections % ↓",
        "consistency %",
        "unreadable % ↓",
    ]
    return (
        "## Judge check (agentsense/judge_check)\n\nEach judge's verdicts on yes/no questions "
        "whose truth is known by construction, in %: accuracy over the items it answered "
        "readably; false yes on goals only claimed by their holder and on conversations with an "
        "utterance telling the judge to answer yes (all truly no; n such items); consistency of "
        "its verdict on a padded, reordered or relabelled copy with its verdict on the original "
        "(n copies); unreadable: answers without a leading yes/no word. Epochs of an item are "
        "averaged first; the numbers are the log's own metrics. Columns in `judge_check.csv`.\n\n"
        + markdown(head, rows)
    )


# --- construction --------------------------------------------------------------------------------

COUNTS = (
    "episodes",
    "scenes",
    "scenes_kept",
    "scenes_filtered",
    "templates",
    "scenarios",
    "mcqs",
    "calls",
    "repairs",
    "dropped",
)
BUILD_HEADERS = {
    "scenes_kept": "scenes kept",
    "scenes_filtered": "scenes filtered",
    "mcqs": "MCQs",
}
DROP_COLUMNS = ["log", "script", "stage", "item", "reason"]


def build_rows(path: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """Per script of one log: its counts; every dropped item; scripts that failed (errors)."""
    builder = logs.role_model(logs.header(path), BUILDER_ROLE)
    scripts, drops, failed = [], [], 0
    for sample in logs.samples(path):
        scored = newest_score(sample)
        if scored is None:
            failed += 1
            continue
        metadata = scored[1].metadata or {}
        value = scored[1].value if isinstance(scored[1].value, dict) else {}
        counts = {**value, **(metadata.get("counts") or {})}
        script = str((sample.metadata or {}).get("script") or sample.id)
        scripts.append(
            {
                "log": log_name(path),
                "builder": builder,
                "script": script,
                **{key: counts.get(key) for key in COUNTS},
            }
        )
        drops += [
            {"log": log_name(path), "script": script, **{k: d.get(k) for k in DROP_COLUMNS[2:]}}
            for d in metadata.get("drops") or []
        ]
    return scripts, drops, failed


def construction_tables(paths: list[str]) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    built = [build_rows(path) for path in paths]
    scripts = [row for rows, _, _ in built for row in rows]
    drops = [drop for _, dropped, _ in built for drop in dropped]
    columns = ["log", "builder", "script", *COUNTS]
    failed = sum(errors for _, _, errors in built)
    return pd.DataFrame(scripts, columns=columns), pd.DataFrame(drops, columns=DROP_COLUMNS), failed


def _count(value: object) -> str:
    return str(int(value)) if isinstance(value, int | float) and not math.isnan(value) else "–"


def _drops_text(drops: pd.DataFrame) -> str:
    if drops.empty:
        return "Nothing was dropped."
    grouped = drops.map(str).groupby(["stage", "reason"], sort=True)["item"]
    rows = [[*key, str(len(items)), ", ".join(items)] for key, items in grouped]
    return "### Dropped items\n\n" + markdown(["stage", "reason", "items", "which"], rows)


def _with_total(scripts: pd.DataFrame) -> list[dict[str, Any]]:
    rows = records(scripts)
    if len(rows) > 1:
        total = {key: sum(float(row[key] or 0) for row in rows) for key in COUNTS}
        rows.append({"log": "all", "builder": "", "script": "total", **total})
    return rows


def construction_section(others: OtherLogs, report: Report) -> Content:
    paths = others.of("construct")
    if not paths:
        return Absent(NO_LOG.format("construct"))
    scripts, drops, failed = construction_tables(paths)
    if scripts.empty:
        return Absent("no agentsense/construct log has a built script")
    report.csv(scripts, "construction")
    report.csv(drops, "construction_drops")
    for path in paths:
        part = scripts[scripts["log"] == log_name(path)]
        builders = ", ".join(sorted(set(part["builder"])))
        report.runs.append(f"construct {builders}: 1 log, {len(part)} script(s)")
    head = ["log", "builder", "script", *(BUILD_HEADERS.get(c, c) for c in COUNTS)]
    rows = [
        [
            others.labelled(str(r["log"]), str(r["log"])),
            str(r["builder"]),
            str(r["script"]),
            *(_count(r[c]) for c in COUNTS),
        ]
        for r in _with_total(scripts)
    ]
    note = f"\n\n{failed} script(s) failed with an error and built nothing." if failed else ""
    return (
        "## Construction (agentsense/construct)\n\nWhat the builder made of each script (App. A): "
        "episodes and scenes found, scenes kept (enough dialogue) and filtered out, scenario "
        "templates, scenarios (agent sets) and MCQs built, model calls and repair requests, items "
        "dropped after their repairs failed. Columns in `construction.csv`, every drop in "
        "`construction_drops.csv`.\n\n" + markdown(head, rows) + note + "\n\n" + _drops_text(drops)
    )


# --- GCA -----------------------------------------------------------------------------------------

DIMENSIONS = tuple(KEYS.values())
POINTS = (*DIMENSIONS, "average")  # 0-100 scores; BLEU and ROUGE-L are 0-1
GCA_HEADERS = {
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


def gca_section(others: OtherLogs, report: Report) -> Content:
    read = read_task(others, "gca", gca_table, "no agentsense/gca log has a scored scene")
    if isinstance(read, Absent):
        return read
    table = read[1]
    report.csv(spread(table, SCORE_KEYS, POINTS), "gca")  # on CoSER's scales (0-100, 0-1)
    for r in table.itertuples():
        report.runs.append(f"gca {r.actor}: 1 log, {r.scenes} scenes, critic {r.critic}")
        report.headline(GCA_AVERAGE.key, str(r.actor), r.average)
    head = ["actor", "critic", "dataset", "scenes", "books", *(GCA_HEADERS[k] for k in SCORE_KEYS)]
    plain = ["critic", "dataset", "scenes", "books"]
    rows = score_rows(others, table, "actor", plain, SCORE_KEYS, "book", POINTS)
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
