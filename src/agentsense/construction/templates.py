"""Scenario templates: descriptive background (Prompt 3), scenario rewriting (Prompt 5) and
leakage mitigation (Prompts 11-12, then characters replaced by slots).

A `Draft` is a rewritten scenario with the original names; a template is a draft whose
locations are replaced and whose characters are slots (`{agent1}`, ...) for synthesized agents.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from agentsense.construction.prompts import (
    PROMPT_3_DESCRIPTIVE_BACKGROUND,
    PROMPT_5_SCENARIO_REWRITING,
    PROMPT_11_ENTITY_EXTRACTION,
    PROMPT_12_ENTITY_REPLACEMENT,
    compact_json,
    fill_format,
    fill_named,
)
from agentsense.construction.repair import (
    ParseError,
    as_object,
    extract_json,
    text_field,
    text_list,
)
from agentsense.construction.screenplay_scenes import ScreenplayScene

BACKGROUND_EXAMPLE = '{"background": "..."}'
REWRITE_EXAMPLE = (
    '{"background": "...", "description": "...", '
    '"characters": [{"name": "...", "goals": ["...", ...]}, ...]}'
)
ENTITIES_EXAMPLE = '{"characters":[str,str...], "location":[str,str...]}'
REPLACE_EXAMPLE = (
    '{"background_replace_location":str, "description_replace_location":str, '
    '"replace_location_list":[{"original_name":str,"revised_name":str}]}'
)


class CharacterGoals(BaseModel):
    name: str
    goals: list[str]


class Draft(BaseModel):
    background: str
    description: str
    characters: list[CharacterGoals]

    def goals_of(self, name: str) -> list[str]:
        return next(c.goals for c in self.characters if c.name == name)

    @property
    def setting(self) -> dict[str, str]:
        """The two fields most prompts are filled with."""
        return {"background": self.background, "description": self.description}


class Replacement(BaseModel):
    original_name: str
    revised_name: str


class Relocation(BaseModel):
    background: str
    description: str
    replacements: list[Replacement] = Field(default_factory=list)


# --- Prompt 3 ----------------------------------------------------------------------------------


def background_prompt(
    scene: ScreenplayScene, episode_backgrounds: list[str], scene_backgrounds: list[str]
) -> str:
    """Running backgrounds: earlier episodes' and this episode's earlier scenes' Prompt-3 output."""
    scenario = {
        "scene_background": episode_backgrounds,
        "scenario_background": scene_backgrounds,
        "scenario": scene.description,
        "dialog": [line.model_dump() for line in scene.dialog],
    }
    return fill_named(PROMPT_3_DESCRIPTIVE_BACKGROUND, scenario_json_string=compact_json(scenario))


def parse_background(reply: str) -> str:
    return text_field(as_object(extract_json(reply), '"background"'), "background")


# --- Prompt 5 ----------------------------------------------------------------------------------


def rewrite_prompt(
    background: str, scene: ScreenplayScene, characters: list[CharacterGoals]
) -> str:
    scenario = {
        "background": background,
        "description": scene.description,
        "characters": [c.model_dump() for c in characters],
        "dialog": [line.model_dump() for line in scene.dialog],
    }
    return fill_named(PROMPT_5_SCENARIO_REWRITING, scenario_json_string=compact_json(scenario))


def parse_rewrite(reply: str) -> Draft:
    data = as_object(extract_json(reply), '"background", "description" and "characters"')
    characters = data.get("characters")
    if not isinstance(characters, list) or not characters:
        raise ParseError('the key "characters" must hold a non-empty list')
    parsed = [
        CharacterGoals(name=text_field(c, "name"), goals=text_list(c, "goals"))
        for c in (as_object(c, '"name" and "goals"') for c in characters)
    ]
    return Draft(
        background=text_field(data, "background"),
        description=text_field(data, "description"),
        characters=parsed,
    )


def match_characters(draft: Draft, names: list[str]) -> tuple[Draft, list[str]]:
    """Keep the rewrite's characters that are the scene's (case-insensitive); name the missing."""
    by_name = {c.name.strip().lower(): c for c in draft.characters}
    kept = [
        CharacterGoals(name=name, goals=by_name[name.lower()].goals)
        for name in names
        if name.lower() in by_name
    ]
    missing = [name for name in names if name.lower() not in by_name]
    return draft.model_copy(update={"characters": kept}), missing


# --- Prompts 11-12 and slots -------------------------------------------------------------------


def entities_prompt(draft: Draft) -> str:
    return fill_format(PROMPT_11_ENTITY_EXTRACTION, **draft.setting)


def parse_entities(reply: str) -> tuple[list[str], list[str]]:
    data = as_object(extract_json(reply), '"characters" and "location"')
    return text_list(data, "characters"), text_list(data, "location")


def relocation_prompt(draft: Draft, locations: list[str]) -> str:
    locations_json = compact_json(locations)
    return fill_format(
        PROMPT_12_ENTITY_REPLACEMENT, **draft.setting, location_involved=locations_json
    )


def parse_relocation(reply: str) -> Relocation:
    data = as_object(extract_json(reply), '"background_replace_location" and others')
    pairs = data.get("replace_location_list") or []
    if not isinstance(pairs, list):
        raise ParseError('the key "replace_location_list" must hold a list')
    replacements = [
        Replacement(
            original_name=text_field(p, "original_name"), revised_name=text_field(p, "revised_name")
        )
        for p in (as_object(p, '"original_name" and "revised_name"') for p in pairs)
    ]
    return Relocation(
        background=text_field(data, "background_replace_location"),
        description=text_field(data, "description_replace_location"),
        replacements=replacements,
    )


def _word(text: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w{])" + re.escape(text) + r"(?![\w}])", re.I)


def replace_words(text: str, mapping: dict[str, str]) -> str:
    """Whole-word, case-insensitive replacement, longest first (so "Maya Okafor" before "Maya")."""
    for original in sorted(mapping, key=len, reverse=True):
        if original.strip():
            text = _word(original).sub(mapping[original].replace("\\", "\\\\"), text)
    return text


def slot(index: int) -> str:
    return "{agent" + str(index + 1) + "}"


def slot_mapping(names: list[str], mentioned: list[str]) -> dict[str, str]:
    """Each character name, and every longer mention of it (Prompt 11), -> its slot token."""
    mapping: dict[str, str] = {}
    for i, name in enumerate(names):
        mapping[name] = slot(i)
        for mention in mentioned:
            if mention.lower() != name.lower() and _word(name).search(mention):
                mapping[mention] = slot(i)
        for part in name.split():
            if len(part) > 2 and part not in ("Mr.", "Mrs.", "Ms.", "Dr."):
                mapping.setdefault(part, slot(i))
    return mapping


def fill_slots(text: str, names: dict[str, str]) -> str:
    for token, name in names.items():
        text = text.replace(token, name)
    return text


def dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json")
