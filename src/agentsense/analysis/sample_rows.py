"""One scored sample of a log -> its rows: the scene row, one row per goal, one per MCQ answer.

The goal and MCQ rows come from the score metadata the scorers log (`goal_scores`,
`mcq_answers`); the goal answers are expanded by `answers.answer_rows`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentsense.analysis.baselines import scene_baselines
from agentsense.analysis.log_fields import as_float, json_value, merged_scores
from agentsense.analysis.mcq_target import mcq_target
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.protocol import Protocol
from agentsense.sense.score_keys import (
    GOAL_KEYS,
    GOAL_SCORES,
    JUDGES,
    MCQ_ANSWERS,
    PROTOCOL,
    SCORE_KEYS,
)


@dataclass
class SampleContext:
    """One scored sample of one log, with what is needed to expand it into rows."""

    log: str
    id: str
    epoch: int
    scene: Scenario
    values: dict[str, Any]
    metadata: dict[str, Any]
    character_models: dict[str, str]
    character_roles: dict[str, str | None]

    @property
    def key(self) -> dict[str, Any]:
        return {"log": self.log, "id": self.id, "epoch": self.epoch}


def judge_labels(judges: Mapping[str, str]) -> dict[str, str]:
    """judge_i -> a column label naming the judge model (numbered if a model sits twice)."""
    seen: Counter[str] = Counter()
    labels: dict[str, str] = {}
    for key, name in judges.items():
        seen[name] += 1
        labels[key] = f"judge: {name}" + (f" ({seen[name]})" if seen[name] > 1 else "")
    return labels


def scene_row(context: SampleContext, rounds: Any) -> dict[str, Any]:
    scene, values = context.scene, context.values
    row: dict[str, Any] = {
        **context.key,
        # The file this sample was read from (merging renames `log` to the run's newest log).
        "source_log": context.log,
        "template_id": str(scene.template_idx),
        "scenario_type": scene.scenario_type,
        "n_characters": len(scene.characters),
        "rounds": rounds,
    }
    row.update({name: as_float(values[name]) for name in SCORE_KEYS if name in values})
    for key, label in judge_labels(context.metadata.get(JUDGES) or {}).items():
        row[label] = as_float(values.get(key))
    protocol = Protocol.model_validate({"mode": context.metadata.get(PROTOCOL) or "official"})
    judges = list(context.metadata.get(JUDGES) or {})
    scored = {name: row[name] for name in SCORE_KEYS if name in row}
    row.update(scene_baselines(scene, judges, protocol, scored))
    return row


def goal_rows(context: SampleContext) -> list[dict[str, Any]]:
    """One row per goal, with the per-goal scores the scorer logged (`goal_scores`)."""
    logged = {
        (row["character"], row["goal"]): row for row in context.metadata.get(GOAL_SCORES) or []
    }
    rows = []
    for character in context.scene.characters:
        for index, goal in enumerate(character.goals):
            scores = logged.get((character.name, index + 1))  # goals are logged from 1
            if scores is None:
                continue
            rows.append(
                {
                    **context.key,
                    "character": character.name,
                    "goal_index": index,
                    "goal": goal.goal,
                    "category": goal.category,
                    "role": context.character_roles.get(character.name),
                    "player": context.character_models[character.name],
                    **{name: as_float(scores[name]) for name in GOAL_KEYS},
                }
            )
    return rows


def mcq_rows(context: SampleContext) -> list[dict[str, Any]]:
    """One row per MCQ answer the scorer logged (`mcq_answers`, MCQs numbered from 1)."""
    rows = []
    for answer in context.metadata.get(MCQ_ANSWERS) or []:
        asker, index = str(answer["character"]), int(answer["mcq"]) - 1
        items = context.scene.character(asker).info_reason_questions
        target = mcq_target(context.scene, asker, items[index])
        rows.append(
            {
                **context.key,
                "asker": asker,
                "item": index,
                "asker_model": context.character_models[asker],
                "asker_role": context.character_roles.get(asker),
                "target": target,
                "target_model": context.character_models.get(target) if target else None,
                "target_role": context.character_roles.get(target) if target else None,
                "correct": float(bool(answer["right"])),
            }
        )
    return rows


def sample_context(
    row: Mapping[str, Any], run: Mapping[str, Any], scorer: str | None = None
) -> SampleContext | None:
    values, metadata = merged_scores(row, scorer)
    if row.get("error") or not values or not json_value(row.get("scenario")):
        return None
    scene = Scenario.model_validate(json_value(row["scenario"]))
    roles: dict[str, str | None] = json_value(row.get("metadata_model_roles")) or {}
    models = {
        name: run["roles"].get(role, run["model"]) if role else run["model"]
        for name, role in ((n, roles.get(n)) for n in scene.names)
    }
    return SampleContext(
        str(row["log"]),
        str(row["id"]),
        int(row["epoch"]),
        scene,
        values,
        metadata,
        models,
        {name: roles.get(name) for name in scene.names},
    )
