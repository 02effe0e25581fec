"""Characters as agents: the persona system prompt and the model that plays each character.

Which model plays a character is decided by the scene's `model_roles` binding (character name ->
Inspect model role). Homogeneous tasks bind nobody, so every character is the evaluated model;
the pairwise task binds characters to the roles `sender` / `receiver`. The conversation loop only
calls `character_model`, so new pairing schemes never touch the loop.
"""

from __future__ import annotations

from collections.abc import Mapping

from inspect_ai.model import Model, get_model

from ..dataset.schema import Character, Scenario
from ..prompts import character_system_prompt


def system_prompt(scene: Scenario, character: Character) -> str:
    """The character's persona prompt; it holds only this character's goals and secret."""
    return character_system_prompt(
        name=character.name,
        profile=character.profile,
        background=scene.background,
        description=scene.description,
        goals=[goal.goal for goal in character.goals],
        secret=character.secret,
    )


def character_model(name: str, model_roles: Mapping[str, str | None]) -> Model:
    """The model playing `name`: its bound role's model, else the evaluated model."""
    role = model_roles.get(name)
    # By design an unbound role (sender, receiver) is played by the evaluated model.
    return get_model(role=role, default=get_model()) if role else get_model()
