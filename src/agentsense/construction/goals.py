"""Social goals: extraction (Prompt 4) and filtering (Prompt 6), and the goal text rules.

A goal is one sentence in the form "To xxx." (Prompt 6). Goals of one character must differ:
the official consumer keys its interview questions by goal text, so duplicates would collide.
"""

from __future__ import annotations

from agentsense.construction.prompts import (
    PROMPT_4_GOAL_EXTRACTION,
    PROMPT_6_GOAL_FILTERING,
    compact_json,
    fill_named,
)
from agentsense.construction.repair import (
    ParseError,
    Stage,
    as_object,
    extract_json,
    text_field,
    text_list,
)
from agentsense.construction.templates import Draft

GOALS_EXAMPLE = '{"name": "...", "goals": ["...", ...]}'
FILTER_EXAMPLE = '{"examination": "...", "update": "..."}'


def normal_goal(text: str) -> str | None:
    """`to share it` -> `To share it.`; None if it is not an infinitive goal sentence."""
    goal = " ".join(text.split()).strip("'\" ")
    if not goal.lower().startswith("to ") or len(goal) < 6:
        return None
    goal = "To " + goal[3:]
    return goal if goal.endswith((".", "!", "?")) else goal + "."


def distinct(goals: list[str]) -> list[str]:
    return list(dict.fromkeys(goals))


def parse_goals(reply: str) -> list[str]:
    goals = text_list(as_object(extract_json(reply), '"name" and "goals"'), "goals")
    if not goals:
        raise ParseError('the "goals" list is empty')
    return goals


def parse_update(reply: str) -> str:
    """Prompt 6's `update`: the kept or rewritten goal, or "" to remove it."""
    data = as_object(extract_json(reply), '"examination" and "update"')
    return text_field(data, "update", empty_ok=True)


EXTRACT = Stage("B1 goal extraction (Prompt 4)", parse_goals, GOALS_EXAMPLE)
FILTER = Stage("B3 goal filtering (Prompt 6)", parse_update, FILTER_EXAMPLE)


def extraction_prompt(character: str, background: str, description: str, dialog: object) -> str:
    scenario = {"background": background, "description": description, "dialog": dialog}
    return fill_named(
        PROMPT_4_GOAL_EXTRACTION, character=character, scenario_json_string=compact_json(scenario)
    )


def filter_prompt(draft: Draft, name: str, goals: list[str], goal: str) -> str:
    """The official `04_filter_goal.py` L78-85 input: names joined by "/", the goal in context."""
    scenario = {
        "background": draft.background,
        "description": draft.description,
        "characters": "/".join(c.name for c in draft.characters),
        "current_character": name,
        "goals": goals,
        "current_goal": goal,
    }
    return fill_named(
        PROMPT_6_GOAL_FILTERING,
        scenario_with_current_character_goal_json_string=compact_json(scenario),
    )
