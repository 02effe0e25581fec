"""What the log reader takes from an Inspect log: task kinds, score keys, columns, JSON values.

The frames of `inspect_ai.analysis` hold JSON strings and NaN where a log has nothing; the
helpers here turn them back into Python values. A sample's scorings are `score_<name>` columns,
read in log order (`inspect score --action append` adds one last).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd
from inspect_ai.analysis import SampleColumn, SampleScores

from agentsense.sense.score_keys import CAST, JUDGES, ROLES
from agentsense.tasks import RUN_KINDS, TASKS

# Task name (without the `agentsense/` prefix) -> kind of run, from the task table.
TASK_KINDS = {row.name: row.log_kind for row in TASKS if row.log_kind in RUN_KINDS}
NO_ROUNDS = ("blind", "script_prediction")
READ_TASKS = ", ".join(f"agentsense/{task}" for task in TASK_KINDS)
PROTOCOL_FIELDS = ("mode", "agent_temperature", "judge_temperature", "max_tokens", "option_mark")
LOG_SUFFIXES = (".eval", ".json")


# --- values of dataframe columns -----------------------------------------------------------------


def json_value(value: Any) -> Any:
    """A JSON column value as Python (dataframe columns hold JSON strings)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a frame as dicts with string keys."""
    return [{str(key): value for key, value in row.items()} for row in frame.to_dict("records")]


def short_task(name: str) -> str:
    return name.split("/")[-1]


def as_float(value: Any) -> float:
    return math.nan if value is None else float(value)


def missing(value: Any) -> bool:
    return value is None or (not isinstance(value, (list, dict, str)) and bool(pd.isna(value)))


# --- sample columns and scorings -----------------------------------------------------------------

SAMPLE_COLUMNS = [
    SampleColumn("id", path="id", required=True, type=str),
    SampleColumn("epoch", path="epoch", required=True),
    SampleColumn("error", path="error", default=""),
    SampleColumn("metadata_*", path="metadata"),
    SampleColumn("scenario", path="metadata.scenario", full=True),
    *SampleScores,
]
_DETAIL_SUFFIXES = ("_explanation", "_metadata", "_answer", "_reason")


def score_names(row: Mapping[str, Any]) -> list[str]:
    """The scorings of a sample in log order (`inspect score --action append` adds one last)."""
    return [
        column.removeprefix("score_")
        for column in row
        if column.startswith("score_")
        and not column.endswith(_DETAIL_SUFFIXES)
        and isinstance(json_value(row[column]), dict)
    ]


def merged_scores(
    row: Mapping[str, Any], scorer: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Score values and score metadata of a sample: of `scorer` only, or of all its scorings,
    a later one (e.g. appended by `inspect score --action append`) overriding an earlier one."""
    values: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for name in score_names(row):
        if scorer is None or name == scorer:
            values.update(json_value(row[f"score_{name}"]))
            metadata.update(json_value(row.get(f"score_{name}_metadata")) or {})
    return values, metadata


def score_values(scores: Any) -> dict[str, Any]:
    """A sample's `scores` mapping -> {scorer: value}, for one `score_*` column per scorer."""
    return {name: score["value"] for name, score in dict(scores).items()}


# The score metadata compare checks (who played, who judged); the rest is not read there.
SETUP_KEYS = (JUDGES, CAST, ROLES)


def score_setups(scores: Any) -> dict[str, Any]:
    """A sample's `scores` -> {scorer: value, "<scorer>_metadata": JSON of its SETUP_KEYS}."""
    setups = {
        f"{name}_metadata": json.dumps(
            {key: (score.get("metadata") or {}).get(key) for key in SETUP_KEYS}
        )
        for name, score in dict(scores).items()
    }
    return {**score_values(scores), **setups}


SCORE_COLUMNS = [
    SampleColumn("id", path="id", required=True, type=str),
    SampleColumn("epoch", path="epoch", required=True),
    SampleColumn("error", path="error", default=""),
    SampleColumn("score_*", path="scores", value=score_setups),
    # The cluster of compare's clustered intervals (sample summaries keep scalar metadata).
    SampleColumn("template_id", path="metadata.template_id", default=None),
]
JUDGED_TASKS = ("goal", "full", "pairwise")
EVALUATED = "<evaluated model>"


def panel(metadata: Mapping[str, Any]) -> str:
    """The judge panel named in a score's metadata ("" when no judge scored it)."""
    judges = metadata.get(JUDGES)
    return ", ".join(map(str, judges.values())) if isinstance(judges, dict) else ""


def setup(metadata: Mapping[str, Any], model: str) -> dict[str, str]:
    """How a sample was played and judged, from its score metadata: the judge panel, the cast
    (character -> model, the evaluated model named as such, so two models' runs compare) and the
    pairing (character -> sender / receiver / character)."""
    cast = {
        str(name): EVALUATED if played == model else str(played)
        for name, played in (metadata.get(CAST) or {}).items()
    }
    return {
        "judges": panel(metadata),
        "cast": json.dumps(cast, sort_keys=True),
        "pairing": json.dumps(metadata.get(ROLES) or {}, sort_keys=True, default=str),
    }
