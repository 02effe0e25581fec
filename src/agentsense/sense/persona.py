"""Characters as agents: the persona system prompt and the model that plays each character.

Which model plays a character is decided by the scene's `model_roles` binding (character name ->
Inspect model role). Homogeneous tasks bind nobody, so every character is on the role
`character` (unbound: the evaluated model); the pairwise task binds characters to the roles
`sender` / `receiver` (`role_binding`). The conversation loop only calls `character_model`, so
new pairing schemes never touch the loop.
"""

from __future__ import annotations

from agentsense.engine.roles import RECEIVER_ROLE, SENDER_ROLE
from agentsense.sense.dataset.schema import Character, Scenario
from agentsense.sense.prompts import character_system_prompt


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


def has_both_roles(scene: Scenario) -> bool:
    """Official `label_role.py`: keep a scene only if its labels are exactly {sender, receiver}."""
    return scene.roles is not None and set(scene.roles.values()) == {SENDER_ROLE, RECEIVER_ROLE}


def role_binding(scene: Scenario) -> dict[str, str | None]:
    """Character -> model role: its sender/receiver label (official: non-senders receive)."""
    roles = scene.roles or {}
    return {
        name: SENDER_ROLE if roles.get(name) == SENDER_ROLE else RECEIVER_ROLE
        for name in scene.names
    }
