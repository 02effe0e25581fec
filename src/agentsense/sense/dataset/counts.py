"""What a dataset holds (paper Table 3, Figure 4a, §3.5): counts per source script or dataset.

A record's *source* is the script it was built from (`source.script`, which `agentsense/construct`
records carry); records without one count under the dataset's name. Per source, and in total:

- `templates` (distinct `template_idx`), `scenarios` (records), `characters` (character entries
  over all scenarios) and `distinct_characters` (distinct name and profile);
- `goals`, and per ERG goal category the goals and the scenarios with at least one such goal
  (Figure 4a: "each scenario may encompass multiple goals"); goals without a category count as
  `uncategorised`;
- scenarios per scenario type (App. B.2; `untyped` without one);
- `scenarios_with_private_info` (a character with a secret, as the paper's 363 of 1,225),
  `characters_with_private_info`, `mcqs` (`info_reason_questions`), `scenarios_with_mcqs`;
- `judge_questions`: the goals' judge questions (what `agentsense annotate` puts on a sheet).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from agentsense.sense.dataset.samples import DEMO, OFFICIAL_NAMES
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.prompts import GOAL_CATEGORIES, SCENARIO_TYPES

TOTAL = "Total"
UNCATEGORISED = "uncategorised"
UNTYPED = "untyped"
COUNT_COLUMNS = [
    "templates",
    "scenarios",
    "characters",
    "distinct_characters",
    "goals",
    "judge_questions",
    *SCENARIO_TYPES,
    UNTYPED,
    "scenarios_with_private_info",
    "characters_with_private_info",
    "mcqs",
    "scenarios_with_mcqs",
]


def erg_need(category: str) -> str:
    """The ERG need of a goal category, as `prompts.GOAL_CATEGORIES` states it ("existence")."""
    found = re.match(r"\((\w+) need\)", GOAL_CATEGORIES[category])
    return found.group(1) if found else ""


def dataset_label(dataset: str) -> str:
    """What records without a source count under: the dataset's name, or the file's stem."""
    return dataset if dataset in (DEMO, *OFFICIAL_NAMES) else Path(dataset).stem


def source_of(scene: Scenario, default: str) -> str:
    source = (scene.model_extra or {}).get("source")
    script = source.get("script") if isinstance(source, dict) else None
    return str(script) if script else default


def _counts(scenes: Sequence[Scenario]) -> dict[str, int]:
    characters = [c for s in scenes for c in s.characters]
    goals = [g for c in characters for g in c.goals]
    types = [s.scenario_type or UNTYPED for s in scenes]
    return {
        "templates": len({str(s.template_idx) for s in scenes}),
        "scenarios": len(scenes),
        "characters": len(characters),
        "distinct_characters": len({(c.name, c.profile) for c in characters}),
        "goals": len(goals),
        "judge_questions": sum(len(g.eval_questions.judge) for g in goals),
        **{kind: types.count(kind) for kind in (*SCENARIO_TYPES, UNTYPED)},
        "scenarios_with_private_info": sum(any(c.secret for c in s.characters) for s in scenes),
        "characters_with_private_info": sum(bool(c.secret) for c in characters),
        "mcqs": sum(len(c.info_reason_questions) for c in characters),
        "scenarios_with_mcqs": sum(s.has_mcq for s in scenes),
    }


def _categories(scenes: Sequence[Scenario]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for category in (*GOAL_CATEGORIES, UNCATEGORISED):

        def held(goal_category: str | None, wanted: str = category) -> bool:
            return (goal_category or UNCATEGORISED) == wanted

        rows.append(
            {
                "need": erg_need(category) if category in GOAL_CATEGORIES else "",
                "category": category,
                "goals": sum(
                    held(g.category) for s in scenes for c in s.characters for g in c.goals
                ),
                "scenarios": sum(
                    any(held(g.category) for c in s.characters for g in c.goals) for s in scenes
                ),
            }
        )
    return rows


def by_source(scenes: Sequence[Scenario], default: str) -> dict[str, list[Scenario]]:
    """The scenes of each source, sources in order of first appearance."""
    groups: dict[str, list[Scenario]] = {}
    for scene in scenes:
        groups.setdefault(source_of(scene, default), []).append(scene)
    return groups


def _with_total(groups: dict[str, list[Scenario]]) -> dict[str, list[Scenario]]:
    if len(groups) == 1:
        return groups
    return {**groups, TOTAL: [scene for part in groups.values() for scene in part]}


def count_table(scenes: Sequence[Scenario], default: str) -> pd.DataFrame:
    """One row per source (and a Total row when there are several), `COUNT_COLUMNS`."""
    groups = _with_total(by_source(scenes, default))
    rows = [{"source": name, **_counts(part)} for name, part in groups.items()]
    return pd.DataFrame(rows, columns=["source", *COUNT_COLUMNS])


def category_table(scenes: Sequence[Scenario], default: str) -> pd.DataFrame:
    """Long: source, need, category, goals, scenarios (Figure 4a), the eight categories in the
    paper's order then `uncategorised`; the Total as a source when there are several."""
    groups = _with_total(by_source(scenes, default))
    rows = [{"source": name, **row} for name, part in groups.items() for row in _categories(part)]
    return pd.DataFrame(rows, columns=["source", "need", "category", "goals", "scenarios"])
