"""Characters: the original characters' attributes (Prompt 13) and relationship (Prompt 14),
which attributes may change (Prompt 15), synthesized agents (Prompt 16), and the instantiation
of a template into scenario records (5 per template) in the official schema.
"""

from __future__ import annotations

import random
import re
from typing import Any

from pydantic import BaseModel, Field

from agentsense.construction.private_info import QA, mcq, option_text
from agentsense.construction.prompts import (
    PROFILE_TEMPLATE_EXAMPLE,
    PROMPT_13_ATTRIBUTE_EXTRACTION,
    PROMPT_14_RELATIONSHIP_EXTRACTION,
    PROMPT_15_REPLACEABILITY,
    PROMPT_16_AGENT_SYNTHESIZING,
    compact_json,
    fill_format,
    fill_marks,
)
from agentsense.construction.repair import ParseError, Stage, as_object, extract_json, text_field
from agentsense.construction.templates import fill_slots

ATTRIBUTES_EXAMPLE = "[{# charcater_1 profile}, {# character_2 profile}]"
RELATIONSHIP_EXAMPLE = '{"relationship": "..."}'
REPLACEABILITY_EXAMPLE = '[{"name": "...", "age": "...", "occupation": "...", "gender": "..."}]'
AGENTS_EXAMPLE = '[{"name":agent1, "gender":gender, "age":age, "occupation":occupation}]'
RELATIONSHIPS = ("family", "friend", "romantic", "acquaintance", "stranger")
LEVELS = ("almost", "maybe", "no")
DEMOGRAPHICS = ("gender", "age", "occupation")
# Attributes the profile sentence carries besides the demographics (Prompt 13's template).
TRAITS = ("big_five", "moral_values", "personality_and_values", "decision_making_style")

# Goal interview questions in the wording of the official data (docs/protocol.md §3.2).
SELF_QUESTION = "Has {name} achieved the goal '{goal}' during the conversation? Answer Yes or No."
OTHERS_QUESTION = "In your opinion, has {name} achieved the goal '{goal}'? Answer Yes or No."
JUDGE_QUESTION = (
    "Based on the conversation, has {name} achieved the goal '{goal}'? Answer Yes or No."
)


class Slot(BaseModel):
    """One character position of a template; texts hold slot tokens (`{agent1}`, ...)."""

    token: str
    original: str
    goals: list[str]
    categories: list[str | None] = Field(default_factory=list)
    private_info: str | None = None
    questions: list[QA] = Field(default_factory=list)
    role: str | None = None
    attributes: dict[str, str] = Field(default_factory=dict)
    replaceable: dict[str, str] = Field(default_factory=dict)
    agents: list[dict[str, str]] = Field(default_factory=list)


class Template(BaseModel):
    template_id: str
    source: dict[str, Any]
    background: str
    description: str
    scenario_type: str | None = None
    relationship: Any = None
    slots: list[Slot]


# --- Prompts 13-16 -----------------------------------------------------------------------------


def description_info(background: str, description: str, secrets: dict[str, str]) -> str:
    lines = [background, description]
    lines += [f"Private info of {name}: {text}" for name, text in secrets.items()]
    return " ".join(lines)


def attributes_prompt(info: str, names: list[str]) -> str:
    example = compact_json(PROFILE_TEMPLATE_EXAMPLE)
    return fill_marks(PROMPT_13_ATTRIBUTE_EXTRACTION, [example, info, ", ".join(names)])


def _by_name(value: Any, names: list[str], what: str) -> dict[str, dict[str, Any]]:
    items = value if isinstance(value, list) else [value]
    dicts = [as_object(item, what) for item in items]
    found: dict[str, dict[str, Any]] = {}
    for i, data in enumerate(dicts):
        name = str(data.get("name") or (names[i] if i < len(names) else "")).strip().lower()
        for known in names:
            if known.lower() == name or known.lower() in name:
                found.setdefault(known, data)
    missing = [n for n in names if n not in found]
    if missing:
        raise ParseError(f"no entry for {', '.join(missing)}")
    return found


def parse_attributes(names: list[str]) -> Any:
    def parse(reply: str) -> dict[str, dict[str, str]]:
        found = _by_name(extract_json(reply), names, "one profile object per character")
        return {
            n: {str(k): str(v) for k, v in d.items() if v not in (None, "")}
            for n, d in found.items()
        }

    return parse


def relationship_prompt(info: str, names: list[str]) -> str:
    return fill_marks(PROMPT_14_RELATIONSHIP_EXTRACTION, [info, ", ".join(names)])


def parse_relationship(reply: str) -> str | dict[str, str]:
    value = as_object(extract_json(reply), '"relationship"').get("relationship")
    if isinstance(value, str) and value.strip().lower() in RELATIONSHIPS:
        return value.strip().lower()
    if isinstance(value, dict) and all(
        str(v).strip().lower() in RELATIONSHIPS for v in value.values()
    ):
        return {str(k): str(v).strip().lower() for k, v in value.items()}
    raise ParseError(f'"relationship" must be one of {", ".join(RELATIONSHIPS)} (or a map of them)')


def replaceability_prompt(info: str, relationship: object, profiles: dict[str, Any]) -> str:
    characters = compact_json([{"name": n, **p} for n, p in profiles.items()])
    return fill_marks(PROMPT_15_REPLACEABILITY, [info, compact_json(relationship), characters])


def parse_replaceability(names: list[str]) -> Any:
    def parse(reply: str) -> dict[str, dict[str, str]]:
        found = _by_name(extract_json(reply), names, "one object per character")
        labels: dict[str, dict[str, str]] = {}
        for name, data in found.items():
            labels[name] = {}
            for key in DEMOGRAPHICS:
                level = str(data.get(key, "")).strip().lower()
                if level not in LEVELS:
                    raise ParseError(f'"{key}" of {name} must be one of almost, maybe, no')
                labels[name][key] = level
        return labels

    return parse


def candidate(level: str, original: str) -> str:
    """Prompt 15's label -> Prompt 16's requirement: keep, stay close, or free."""
    if level == "no" or not original:
        return original or "any"
    return f"similar to {original}" if level == "maybe" else "any"


def agents_prompt(num: int, attributes: dict[str, str], replaceable: dict[str, str]) -> str:
    wanted = {
        k: candidate(replaceable.get(k, "almost"), attributes.get(k, "")) for k in DEMOGRAPHICS
    }
    return fill_format(
        PROMPT_16_AGENT_SYNTHESIZING,
        num=num,
        cand_gender=wanted["gender"],
        cand_age=wanted["age"],
        cand_occupation=wanted["occupation"],
    )


def parse_agents(num: int) -> Any:
    def parse(reply: str) -> list[dict[str, str]]:
        value = extract_json(reply)
        items = value if isinstance(value, list) else [value]
        agents = []
        for item in items:
            data = as_object(item, '"name", "gender", "age" and "occupation"')
            agent = {key: text_field(data, key) for key in ("name", *DEMOGRAPHICS) if key != "age"}
            agent["age"] = str(data.get("age", "")).strip()
            if not camel(agent["name"]):
                raise ParseError(f"the name {agent['name']!r} has no letters")
            agents.append(agent)
        if len(agents) < num:
            raise ParseError(f"expected {num} profiles, found {len(agents)}")
        return agents[:num]

    return parse


ATTRIBUTES = "E1 attributes (Prompt 13)"
RELATIONSHIP = Stage("E2 relationship (Prompt 14)", parse_relationship, RELATIONSHIP_EXAMPLE)
REPLACEABILITY = "E3 replaceability (Prompt 15)"
AGENTS = "E4 agent synthesis (Prompt 16)"


# --- instantiation -----------------------------------------------------------------------------


def camel(name: str) -> str:
    """`Alice Greene` -> `AliceGreene`: names are sent as the OpenAI `name` ([A-Za-z0-9_-]+)."""
    words = re.findall(r"[A-Za-z0-9]+", name)
    return "".join(w[:1].upper() + w[1:] for w in words)


def agent_names(template: Template, k: int) -> dict[str, str]:
    """Slot token -> this scenario's name, unique and never an original character's name."""
    banned = {camel(s.original).lower() for s in template.slots}
    banned |= {part.lower() for s in template.slots for part in s.original.split()}
    names: dict[str, str] = {}
    for i, slot in enumerate(template.slots):
        base = camel(slot.agents[k]["name"]) or f"Agent{i + 1}"
        name, n = base, 2
        while name.lower() in banned or name in names.values():
            name, n = f"{base}{n}", n + 1
        names[slot.token] = name
    return names


def profile_text(agent: dict[str, str], traits: dict[str, str]) -> str:
    """The profile as labelled facts, which reads the same whatever values a model returns.

    The character prompt reads "You are {name}. {profile}"; text ends without a doubled period.
    """
    facts = {key: agent.get(key, "") for key in ("age", "gender", "occupation")}
    facts |= {key: traits.get(key, "") for key in TRAITS}
    return " ".join(
        f"{key.replace('_', ' ').capitalize()}: {option_text(value)}."
        for key, value in facts.items()
        if value
    )


def _questions(name: str, goal: str, others: list[str]) -> dict[str, Any]:
    return {
        "self": [{"obj": name, "question": SELF_QUESTION.format(name=name, goal=goal)}],
        "others": [
            {"obj": other, "question": OTHERS_QUESTION.format(name=name, goal=goal)}
            for other in others
        ],
        "judge": [{"obj": "judge", "question": JUDGE_QUESTION.format(name=name, goal=goal)}],
    }


def instantiate(template: Template, k: int, seed: int, n_options: int) -> dict[str, Any]:
    """Scenario `k` of a template: slots filled with agent set `k`, in the official schema."""
    names = agent_names(template, k)
    sample_idx = f"{template.template_id}-{k + 1}"
    rng = random.Random(f"{seed}/{sample_idx}")
    characters = []
    for slot in template.slots:
        name = names[slot.token]
        others = [names[s.token] for s in template.slots if s is not slot]
        traits = {key: fill_slots(v, names) for key, v in slot.attributes.items()}
        goals = []
        for goal, category in zip(
            slot.goals, slot.categories or [None] * len(slot.goals), strict=False
        ):
            text = fill_slots(goal, names)
            entry: dict[str, Any] = {"goal": text, "eval_questions": _questions(name, text, others)}
            if category:
                entry["category"] = category
            goals.append(entry)
        asked = [
            mcq(_filled(qa, names), n_options, rng)
            for owner in template.slots
            if owner is not slot
            for qa in owner.questions
        ]
        characters.append(
            {
                "name": name,
                "profile": profile_text(slot.agents[k], traits),
                "goals": goals,
                "private_info": option_text(fill_slots(slot.private_info, names))
                if slot.private_info
                else None,
                "info_reason_questions": asked,
            }
        )
    record: dict[str, Any] = {
        "sample_idx": sample_idx,
        "template_idx": template.template_id,
        "scenario_type": template.scenario_type,
        "background": fill_slots(template.background, names),
        "description": fill_slots(template.description, names),
        "characters": characters,
        "source": template.source,
    }
    roles = {names[s.token]: s.role for s in template.slots if s.role}
    if len(roles) == len(template.slots):
        record["roles"] = roles
    return record


def _filled(qa: QA, names: dict[str, str]) -> QA:
    return QA(
        role=fill_slots(qa.role, names),
        question=fill_slots(qa.question, names),
        explanation=fill_slots(qa.explanation, names),
        answer=fill_slots(qa.answer, names),
        negatives=[fill_slots(n, names) for n in qa.negatives],
    )
