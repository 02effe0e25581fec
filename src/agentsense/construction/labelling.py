"""Role labelling: a model labels a scene's type, its goals' categories and its characters' roles.

Asked of the model bound to the role `labeller` (required; temperature 0):

- the scenario type, one of the 3 of App. B.2 (`SCENARIO_TYPE_PROMPT`);
- the category of every goal, one of the 8 of App. B.3 (`GOAL_CATEGORY_PROMPT`);
- sender or receiver for every character, with the paper's Prompt 19 (`SENDER_RECEIVER_PROMPT`).

The readers of the replies (`parse_type`, `parse_categories`, `parse_roles`) also serve the
construction pipeline's labels stage (`construction/build.py`). The scorer reports agreement with
the labels the record already has (NaN where it has none). The task is `agentsense/labelling`.
"""

from __future__ import annotations

import json
import math
from typing import Any

from inspect_ai.model import ChatMessageUser, GenerateConfig, ModelOutput, get_model
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, store_as
from pydantic import Field

from agentsense.engine.reply_json import NoJSON, reply_json
from agentsense.engine.roles import LABELLER_ROLE, RECEIVER_ROLE, SENDER_ROLE
from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.prompts import (
    GOAL_CATEGORIES,
    SCENARIO_TYPES,
    goal_category_prompt,
    scenario_type_prompt,
    sender_receiver_prompt,
)
from agentsense.sense.score_keys import (
    CATEGORY_AGREEMENT,
    ROLE_AGREEMENT,
    TYPE_AGREEMENT,
)

ROLES = (SENDER_ROLE, RECEIVER_ROLE)


class SceneLabels(StoreModel):
    scenario_type: str | None = None
    categories: dict[str, dict[str, str | None]] = Field(default_factory=dict)
    roles: dict[str, str | None] = Field(default_factory=dict)
    replies: dict[str, str] = Field(default_factory=dict)


def numbered_goals(scene: Scenario) -> list[tuple[str, str]]:
    return [(c.name, goal.goal) for c in scene.characters for goal in c.goals]


# --- parsing -----------------------------------------------------------------------------------


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply (models often wrap it in prose or code fences)."""
    try:
        value: dict[str, Any] = reply_json(text, objects_only=True)
    except NoJSON:
        return None
    return value


def _pick(value: Any, choices: list[str]) -> str | None:
    """The choice named by `value` (case-insensitive, exact first, then contained)."""
    text = str(value or "").strip().lower()
    exact = [c for c in choices if c.lower() == text]
    contained = [c for c in choices if c.lower() in text]
    if exact:
        return exact[0]
    return contained[0] if len(contained) == 1 else None


def parse_type(reply: str) -> str | None:
    data = first_json_object(reply) or {}
    return _pick(data.get("type", reply), list(SCENARIO_TYPES))


def parse_categories(reply: str, goals: list[tuple[str, str]]) -> dict[str, dict[str, str | None]]:
    data = first_json_object(reply) or {}
    labelled: dict[str, dict[str, str | None]] = {}
    for i, (name, goal) in enumerate(goals, start=1):
        labelled.setdefault(name, {})[goal] = _pick(data.get(str(i)), list(GOAL_CATEGORIES))
    return labelled


def parse_roles(reply: str, names: list[str]) -> dict[str, str | None]:
    data = {str(k).strip().lower(): v for k, v in (first_json_object(reply) or {}).items()}
    return {name: _pick(data.get(name.lower()), list(ROLES)) for name in names}


# --- solver and scorer -------------------------------------------------------------------------


@solver
def label_scene(max_tokens: int = 512) -> Solver:
    config = GenerateConfig(temperature=0.0, max_tokens=max_tokens)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scene = scenario_of(state.metadata)
        # Required: labels from the evaluated model by accident would look like real labels.
        model = get_model(role=LABELLER_ROLE, required=True)

        async def ask(prompt: str) -> str:
            output = await model.generate([ChatMessageUser(content=prompt)], config=config)
            return output.completion or ""

        labels = store_as(SceneLabels)
        goals = {c.name: [goal.goal for goal in c.goals] for c in scene.characters}
        replies = {
            "type": await ask(scenario_type_prompt(scene.background, scene.description)),
            "categories": await ask(goal_category_prompt(scene.background, numbered_goals(scene))),
            "roles": await ask(sender_receiver_prompt(goals)),
        }
        labels.replies = replies
        labels.scenario_type = parse_type(replies["type"])
        labels.categories = parse_categories(replies["categories"], numbered_goals(scene))
        labels.roles = parse_roles(replies["roles"], scene.names)
        state.output = ModelOutput.from_content(
            model=str(model), content=json.dumps(_labels_json(labels))
        )
        return state

    return solve


def _labels_json(labels: SceneLabels) -> dict[str, Any]:
    return {
        "scenario_type": labels.scenario_type,
        "categories": labels.categories,
        "roles": labels.roles,
    }


def _share(pairs: list[tuple[Any, Any]]) -> float:
    """Share of labels equal to the reference, over the items that have a reference."""
    scored = [given == reference for given, reference in pairs if reference is not None]
    return sum(scored) / len(scored) if scored else math.nan


def agreement(scene: Scenario, labels: SceneLabels) -> dict[str, float]:
    categories = [
        (labels.categories.get(c.name, {}).get(g.goal), g.category)
        for c in scene.characters
        for g in c.goals
    ]
    roles = [(labels.roles.get(name), (scene.roles or {}).get(name)) for name in scene.names]
    return {
        TYPE_AGREEMENT: _share([(labels.scenario_type, scene.scenario_type)]),
        CATEGORY_AGREEMENT: _share(categories),
        ROLE_AGREEMENT: _share(roles),
    }


def agreement_scorer() -> Scorer:
    """Agreement of the labels with those already in the record (NaN where there are none)."""

    async def score(state: TaskState, target: Target) -> Score:
        labels = store_as(SceneLabels)
        return Score(
            value=agreement(scenario_of(state.metadata), labels),  # type: ignore[arg-type]
            metadata={"labels": _labels_json(labels)},
        )

    return score
