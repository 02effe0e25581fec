"""Labels for datasets without categories: goal categories, scenario types, sender/receiver roles.

A labels file is JSON, keyed by scene id (`sample_idx`, as a string):

    {"scenario_types": {"101": "personal domain", ...},
     "goal_categories": {"101": {"DanielAdeyemi": {"To explain ...": "Information Provision"}}},
     "roles": {"101": {"DanielAdeyemi": "sender", "GraceAdeyemi": "receiver"}}}

`agentsense labels LOG` writes one from an `agentsense/labelling` log. In a report, labels take
precedence over the categories and types in the records. Roles only matter for running the
pairwise task (`agentsense labels --dataset-out` writes them into a copy of the dataset).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentsense.engine.errors import ReportError

if TYPE_CHECKING:  # pandas only for type checking: reading a labels file needs none
    import pandas as pd

    from agentsense.analysis.log_reader import Runs


@dataclass
class Labels:
    scenario_types: dict[str, str] = field(default_factory=dict)
    goal_categories: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    roles: dict[str, dict[str, str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario_types": self.scenario_types,
            "goal_categories": self.goal_categories,
            "roles": self.roles,
        }


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
