"""`agentsense labels LOG`: the labels of an `agentsense/labelling` log, as a labels file.

Reads what the labelling scorer logged (`label_agreement` score metadata), writes the labels
file `agentsense report --labels` reads, and optionally a labelled copy of the dataset.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..analysis import logs
from ..dataset.samples import scenario_of
from ..dataset.schema import Scenario
from ..errors import ReportError
from .labels import Labels


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
    out.write_text(json.dumps(result.to_json(), indent=1, ensure_ascii=False), encoding="utf-8")
    if dataset_out is not None:
        lines = [
            json.dumps(_labelled_record(scene, labels), ensure_ascii=False)
            for scene, labels in labelled
        ]
        dataset_out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(labelled)
