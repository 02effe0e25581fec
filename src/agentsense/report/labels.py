"""Labels for datasets without categories: goal categories, scenario types and sender/receiver
roles, as a JSON file keyed by scene id (its format: docs/analysis.md, *agentsense/labelling*).

`agentsense labels LOG` writes one from an `agentsense/labelling` log (the `label_agreement` score
metadata), and optionally a labelled copy of the dataset (with the roles the pairwise task needs).
In a report, labels take precedence over the categories and types in the records.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from agentsense.analysis import logs
from agentsense.analysis.log_reader import Runs
from agentsense.engine.errors import ReportError
from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.dataset.schema import Scenario


@dataclass
class Labels:
    scenario_types: dict[str, str] = field(default_factory=dict)
    goal_categories: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    roles: dict[str, dict[str, str]] = field(default_factory=dict)


def read_labels(path: Path) -> Labels:
    if not path.is_file():
        raise ReportError(f"{path}: no such labels file.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise ReportError(f"{path}: not a JSON labels file ({error}).") from None
    if not isinstance(data, dict) or not set(data) & {"scenario_types", "goal_categories", "roles"}:
        raise ReportError(
            f"{path}: expected an object with scenario_types, goal_categories and/or roles."
        )
    return Labels(
        scenario_types={str(k): str(v) for k, v in (data.get("scenario_types") or {}).items()},
        goal_categories={str(k): v for k, v in (data.get("goal_categories") or {}).items()},
        roles={str(k): v for k, v in (data.get("roles") or {}).items()},
    )


def _category(labels: Labels, row: pd.Series) -> Any:
    by_goal = labels.goal_categories.get(str(row["id"]), {}).get(str(row["character"]), {})
    return by_goal.get(str(row["goal"]), row["category"])


def apply_labels(runs: Runs, labels: Labels) -> None:
    """Fill or override scenario types and goal categories from `labels` (in place)."""
    if labels.scenario_types and not runs.scenes.empty:
        runs.scenes["scenario_type"] = [
            labels.scenario_types.get(str(i), t)
            for i, t in zip(runs.scenes["id"], runs.scenes["scenario_type"], strict=True)
        ]
    if labels.goal_categories and not runs.goals.empty:
        runs.goals["category"] = runs.goals.apply(lambda row: _category(labels, row), axis=1)


# --- a labelling log -> a labels file -------------------------------------------------------------


def _read_labelled(log: str) -> list[tuple[Scenario, dict[str, Any]]]:
    """The first epoch of every labelled scene, with the labels the scorer logged."""
    if not Path(log).is_file():
        raise ReportError(f"{log}: no such log file.")
    if logs.task_of(logs.header(log)) != "labelling":
        raise ReportError(f"{log}: not an agentsense/labelling log (no label_agreement scores).")
    scenes = []
    for sample in logs.samples(log):
        score = (sample.scores or {}).get("label_agreement")
        labels = (score.metadata or {}).get("labels") if score is not None else None
        if sample.epoch == 1 and labels:
            scenes.append((scenario_of(sample.metadata or {}), labels))
    return scenes


def _labelled_record(scene: Scenario, labels: dict[str, Any]) -> dict[str, Any]:
    record = scene.model_dump(mode="json", by_alias=True, exclude_none=True)
    record["scenario_type"] = labels.get("scenario_type") or record.get("scenario_type")
    roles = labels.get("roles") or {}
    if all(roles.get(name) for name in scene.names):
        record["roles"] = roles
    for character in record["characters"]:
        for goal in character["goals"]:
            goal["category"] = (labels.get("categories") or {}).get(character["name"], {}).get(
                goal["goal"]
            ) or goal.get("category")
    return record


def export_labels(log: str, out: Path, dataset_out: Path | None = None) -> int:
    """Write a labelling log's labels as JSON (and optionally a labelled JSONL); returns scenes."""
    labelled = _read_labelled(log)
    result = Labels()
    for scene, labels in labelled:
        key = str(scene.sample_idx)
        if labels.get("scenario_type"):
            result.scenario_types[key] = labels["scenario_type"]
        result.goal_categories[key] = {
            name: {g: c for g, c in goals.items() if c}
            for name, goals in (labels.get("categories") or {}).items()
        }
        result.roles[key] = {
            name: role for name, role in (labels.get("roles") or {}).items() if role
        }
    out.write_text(json.dumps(asdict(result), indent=1, ensure_ascii=False), encoding="utf-8")
    if dataset_out is not None:
        lines = [
            json.dumps(_labelled_record(scene, labels), ensure_ascii=False)
            for scene, labels in labelled
        ]
        dataset_out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(labelled)
