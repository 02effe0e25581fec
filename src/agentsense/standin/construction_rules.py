"""Stand-in answers to the construction prompts (`agentsense/construct`), derived from the input.

Each answer is schema-valid JSON built from what the prompt holds (the script text, the dialogue,
the goals), so the whole pipeline runs offline in seconds with plausible content. The `messy`
rule (`standin/messy/<name>`) breaks a deterministic share of first replies (truncated JSON,
missing keys, prose with no JSON) and some repairs too, to exercise the repair and drop paths.
It is a stand-in, not a language model: what it builds says the plumbing works.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from agentsense.construction import prompts as cp
from agentsense.construction.screenplay import parse_text
from agentsense.construction.screenplay_scenes import by_headings
from agentsense.construction.script_elements import render
from agentsense.sense.prompts import GOAL_CATEGORIES, SCENARIO_TYPES

_SECRET = re.compile(
    r"(?:haven't|have not|never|didn't|did not) told (?:anyone|anybody|you|him|her|them)"
    r"(?: yet)?,? (?:that )?([^.!?]+)",
    re.I,
)
_STOP = set(
    [
        "about",
        "after",
        "again",
        "being",
        "could",
        "doing",
        "every",
        "first",
        "going",
        "great",
        "their",
        "there",
        "these",
        "thing",
        "think",
        "those",
        "where",
        "which",
        "while",
        "would",
        "yours",
        "years",
        "still",
        "never",
        "right",
        "maybe",
        "should",
        "really",
        "whole",
        "today",
        "tonight",
    ]
)
_FIRST = ("Alice", "Jonas", "Amara", "Diego", "Hana", "Luca", "Noor", "Felix", "Ines", "Kwame")
_LAST = ("Greene", "Moreau", "Okoro", "Lindqvist", "Castro", "Haddad", "Novak", "Reyes", "Sato")
_JOBS = ("teacher", "nurse", "electrician", "librarian", "chef", "accountant", "florist", "driver")
_TRAITS = (
    "Openness: high; Conscientiousness: high; Extraversion: low",
    "Openness: medium; Agreeableness: high; Neuroticism: low",
    "Extraversion: high; Agreeableness: medium; Conscientiousness: low",
)
_VALUES = ("Care", "Fairness", "Loyalty", "Authority", "Liberty")
_STYLES = ("Analytical", "Intuitive", "Directive", "Conceptual")
_PLACES = ("Linden Street Cafe", "Harbour Road Deli", "Marlow Lane Kitchen", "Elm Court Diner")


def _h(*parts: str) -> int:
    return int(hashlib.sha256("\x1f".join(parts).encode()).hexdigest(), 16)


def _after(text: str, start: str, end: str) -> str:
    head = text.split(start, 1)[1] if start in text else text
    return head.split(end, 1)[0].strip() if end else head.strip()


def _input_json(prompt: str) -> dict[str, Any]:
    """Prompts 3-6 end with "Output a JSON document like `...`. " and the input JSON."""
    data = json.loads(prompt.rsplit("`. ", 1)[1])
    return data if isinstance(data, dict) else {}


def _fenced(value: object) -> str:
    return "```json\n" + json.dumps(value, ensure_ascii=False) + "\n```"


_Answer = Callable[[str], str]
# The rule of each construction prompt, by how the prompt starts (in the order they are tried).
_ROUTES: list[tuple[str, _Answer]] = []


def _answers(start: str) -> Callable[[_Answer], _Answer]:
    """Route the prompts that start with `start` to the decorated rule."""

    def route(rule: _Answer) -> _Answer:
        _ROUTES.append((start, rule))
        return rule

    return route


# --- A: division and background ----------------------------------------------------------------


@_answers(cp.PROMPT_1_EPISODES_DIVISION[:120])
def _episodes(prompt: str) -> str:
    _, elements = parse_text(_after(prompt, "###Script: ", " Please return the results"))
    parts = [render(episode) for episode in by_headings(elements)]
    return _fenced([{f"episode{i}": p for i, p in enumerate(parts, start=1)}])


@_answers(cp.PROMPT_2_SCENES_DIVISION[:120])
def _scenes(prompt: str) -> str:
    """Long episodes are cut in two at the action line closest to the middle speech."""
    _, elements = parse_text(_after(prompt, "###Episode: ", " Please return the results"))
    speeches = [i for i, e in enumerate(elements) if e.kind == "dialogue"]
    parts = [elements]
    if len(speeches) > 24:
        middle = speeches[len(speeches) // 2]
        cuts = [i for i, e in enumerate(elements) if e.kind == "action" and i > speeches[0]]
        cut = min(cuts, key=lambda i: abs(i - middle)) if cuts else middle
        parts = [elements[:cut], elements[cut:]]
    return _fenced([{f"scene{i}": render(p) for i, p in enumerate(parts, start=1)}])


def _place(heading: str) -> tuple[str, str]:
    bits = [b.strip() for b in re.sub(r"^\S+\s+", "", heading).split(" - ") if b.strip()]
    place = bits[0].title() if bits else "a quiet place"
    time = bits[-1].lower() if len(bits) > 1 else "the day"
    return place, time


def _names(dialog: Any) -> list[str]:
    return list(dict.fromkeys(str(d["role"]) for d in dialog if isinstance(d, dict)))


def _heading(description: str) -> str:
    """The upper-case words a scene description starts with (its heading)."""
    words: list[str] = []
    for word in description.split():
        if word != word.upper() or (words and word.endswith(".") and len(word) > 4):
            break
        words.append(word)
    return " ".join(words)


@_answers(cp.PROMPT_3_DESCRIPTIVE_BACKGROUND[:60])
def _background(prompt: str) -> str:
    data = _input_json(prompt)
    place, time = _place(_heading(str(data.get("scenario", ""))))
    names = _names(data.get("dialog", []))
    before = " ".join(str(b) for b in data.get("scenario_background", []))
    text = f"It is {time} at {place}. {' and '.join(names)} are together."
    if before:
        text += " Earlier: " + before.split(". ")[0].rstrip(".") + "."
    return json.dumps({"background": text})


# --- B: goals ----------------------------------------------------------------------------------


_PRONOUNS = {"we": "they", "our": "their", "us": "them", "i": "they", "my": "their", "me": "them"}


def _third(clause: str) -> str:
    """Reported speech: "we are closing" -> "they are closing"."""
    words = clause.strip().split()
    return " ".join(_PRONOUNS.get(w.lower(), w) for w in words)


def _topic(dialog: list[dict[str, str]], names: list[str]) -> str:
    known = {n.lower() for n in names}
    words = Counter(
        w.lower()
        for d in dialog
        for w in re.findall(r"\b(?:the|a|our|your|this|that) ([a-z]{4,})", d["content"], re.I)
        if w.lower() not in _STOP and w.lower() not in known
    )
    return words.most_common(1)[0][0] if words else "plans"


@_answers(cp.PROMPT_4_GOAL_EXTRACTION[:60])
def _goals(prompt: str) -> str:
    name = _after(prompt, "**", "**")
    data = _input_json(prompt)
    dialog = [d for d in data.get("dialog", []) if isinstance(d, dict)]
    names = _names(dialog)
    other = next((n for n in names if n != name), "the others")
    mine = " ".join(d["content"] for d in dialog if d["role"] == name)
    topic = _topic(dialog, names)
    goals = [f"To find out what {other} really thinks about the {topic}."]
    secret = _SECRET.search(mine)
    if secret:
        goals.insert(0, f"To keep {other} from learning that {_third(secret.group(1))}.")
    if re.search(r"\b(help|favour|favor)\b", mine, re.I):
        goals.append(f"To get {other}'s help with the {topic}.")
    if re.search(r"\bsorry\b", mine, re.I):
        goals.append(f"To resolve the disagreement with {other}.")
    goals.append(f"To keep a good relationship with {other}.")
    return json.dumps({"name": name, "goals": goals})


@_answers(cp.PROMPT_5_SCENARIO_REWRITING[:60])
def _rewrite(prompt: str) -> str:
    data = _input_json(prompt)
    characters = data.get("characters", [])
    names = [str(c["name"]) for c in characters]
    background = str(data.get("background", ""))
    description = f"{' and '.join(names)} talk before the day's work begins."
    return json.dumps(
        {"background": background, "description": description, "characters": characters}
    )


@_answers(cp.PROMPT_6_GOAL_FILTERING[:60])
def _filter(prompt: str) -> str:
    goal = str(_input_json(prompt).get("current_goal", ""))
    keep = "really thinks" not in goal or "relationship" not in goal
    update = goal.replace(" really ", " ") if keep else ""
    return json.dumps(
        {"examination": "The goal is social, specific and observable.", "update": update}
    )


# --- C: private information --------------------------------------------------------------------


def _characters(prompt: str) -> list[dict[str, Any]]:
    value = ast.literal_eval(
        _after(prompt, "###Characters: ", " Please try" if "Please try" in prompt else "")
    )
    return value if isinstance(value, list) else []


def _hidden(characters: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    found = []
    for c in characters:
        for goal in c.get("goals", []):
            match = re.match(r"To keep (\S+) from learning that (.+?)\.?$", str(goal))
            if match:
                found.append((str(c["name"]), match.group(1), match.group(2)))
    return found


@_answers(cp.PROMPT_7_CASE_VALIDATION[:60])
def _validate(prompt: str) -> str:
    return "Yes." if _hidden(_characters(prompt)) else "No."


@_answers(cp.PROMPT_8_PRIVATE_INFO_GENERATION[:60])
def _qa(prompt: str) -> str:
    pairs = [
        {
            "role": owner,
            "question": f"What is {owner} keeping from {other}?",
            "explanation": f"{owner} knows that {secret} and has not told anyone.",
            "answer": secret[0].upper() + secret[1:] + ".",
        }
        for owner, other, secret in _hidden(_characters(prompt))
    ]
    return _fenced(pairs)


@_answers(cp.PROMPT_9_NEGATIVE_OPTIONS[:60])
def _options(prompt: str) -> str:
    answer = _after(prompt, "###Answer: ", " Please return the results").rstrip(".")
    negated = re.sub(r"\b(are|is|will|has|have)\b", r"\1 not", answer, count=1)
    if negated == answer:
        negated = "It is not true that " + answer[0].lower() + answer[1:]
    options = {
        "option1": negated + ".",
        "option2": "They are planning a surprise for the whole street.",
        "option3": "They are worried about an old friend who moved away.",
    }
    return _fenced([options])


@_answers(cp.PROMPT_10_NEGATIVE_OPTIONS_REPHRASING[:60])
def _rephrase(prompt: str) -> str:
    negatives = json.loads(_after(prompt, "### negative options: ", " ### answer:"))
    return _fenced(
        {"negative_options": [f"{n.rstrip('.')}, as far as anyone knows." for n in negatives]}
    )


# --- D: leakage --------------------------------------------------------------------------------


@_answers(cp.PROMPT_11_ENTITY_EXTRACTION[:60])
def _entities(prompt: str) -> str:
    text = _after(prompt, "## background: ", " Output in the following")
    locations = re.findall(r" at ((?:[A-Z][a-z]+ ?)+)", text)
    names = re.findall(r"\b([A-Z][a-z]+) (?:and|are|talk)\b", text)
    return json.dumps(
        {
            "characters": list(dict.fromkeys(names)),
            "location": list(dict.fromkeys(loc.strip() for loc in locations)),
        }
    )


@_answers(cp.PROMPT_12_ENTITY_REPLACEMENT[:60])
def _relocate(prompt: str) -> str:
    background = _after(prompt, "## background: ", " ## description:")
    description = _after(prompt, "## description: ", " ## location involved:")
    locations = json.loads(_after(prompt, "## location involved: ", " Output in the following"))
    pairs = []
    for location in locations:
        new = _PLACES[_h(location) % len(_PLACES)]
        pairs.append({"original_name": location, "revised_name": new})
        background, description = (
            background.replace(location, new),
            description.replace(location, new),
        )
    return json.dumps(
        {
            "background_replace_location": background,
            "description_replace_location": description,
            "replace_location_list": pairs,
        }
    )


# --- E: agents ---------------------------------------------------------------------------------


@_answers("Template Example: ")
def _attributes(prompt: str) -> str:
    names = [n.strip() for n in _after(prompt, "Characters: ", " Instruction:").split(",")]
    info = _after(prompt, "Description Information: ", " Characters:")
    profiles = []
    for name in names:
        h = _h(name)
        secret = re.search(rf"Private info of {re.escape(name)}: ([^.]+)", info)
        profiles.append(
            {
                "name": name,
                "gender": ("woman", "man", "non-binary")[h % 3],
                "age": str(25 + h % 40),
                "occupation": ("baker", "shop owner", "event organiser", "student")[h % 4],
                "big_five": _TRAITS[h % len(_TRAITS)],
                "moral_values": _VALUES[h % len(_VALUES)],
                "personality_and_values": f"{name} is warm but stubborn.",
                "decision_making_style": _STYLES[h % len(_STYLES)],
                "secret": secret.group(1) if secret else "None",
            }
        )
    return _fenced(profiles)


@_answers("Description Information: ")
def _relationship(prompt: str) -> str:
    info = _after(prompt, "Description Information: ", " Characters:").lower()
    kind = "family" if re.search(r"\b(dad|mum|mother|father|sister)\b", info) else "friend"
    return _fenced({"relationship": kind})


@_answers("[Descrpition Info]: ")
def _replaceability(prompt: str) -> str:
    relationship = _after(prompt, "[Relationship]: ", " [Characters]:")
    characters = json.loads(_after(prompt, "[Characters]: ", " [Instructions]:"))
    fixed = "no" if any(k in relationship for k in ("family", "romantic")) else "almost"
    labels = [
        {"name": c["name"], "age": "maybe", "occupation": "almost", "gender": fixed}
        for c in characters
    ]
    return _fenced(labels)


@_answers("Please generate ")
def _agents(prompt: str) -> str:
    num = int(_after(prompt, "Please generate ", " diverse"))
    gender = _after(prompt, "Gender: ", " Age:")
    age = _after(prompt, "Age: ", " Occupation:")
    occupation = _after(prompt, "Occupation: ", " Please return")
    h = _h(gender, age, occupation)
    base = int(re.sub(r"\D", "", age) or 35)
    profiles = [
        {
            "name": f"{_FIRST[(h + i) % len(_FIRST)]} {_LAST[(h // 7 + i) % len(_LAST)]}",
            "gender": gender if gender != "any" else ("woman", "man", "non-binary")[(h + i) % 3],
            "age": str(base + (i % 5) - 2)
            if "similar" in age or age.isdigit()
            else str(22 + (h + 9 * i) % 45),
            "occupation": occupation
            if occupation not in ("any", "") and "similar" not in occupation
            else _JOBS[(h + i) % len(_JOBS)],
        }
        for i in range(num)
    ]
    return _fenced(profiles)


# --- labelling prompts (scenario type, goal categories, roles) ---------------------------------


@_answers("You are an excellent sociologist good at classifying")
def _type(prompt: str) -> str:
    text = prompt.lower()
    kind = (
        "small society"
        if re.search(r"shop|bakery|office|school|cafe|deli", text)
        else "personal domain"
    )
    return json.dumps({"type": kind if kind in SCENARIO_TYPES else "personal domain"})


_CATEGORY_RULES = (
    ("keep .* from learning", "Information Provision"),
    ("find out|learn", "Information Acquisition"),
    ("help", "Cooperation"),
    ("resolve", "Conflict Resolution"),
    ("relationship", "Relationship Maintenance"),
)


def _categories(prompt: str) -> str:
    goals = re.findall(r"^(\d+)\. [^:]+: (.*)$", prompt, re.M)
    labels = {}
    for number, goal in goals:
        labels[number] = next(
            (c for p, c in _CATEGORY_RULES if re.search(p, goal)), "Relationship Building"
        )
    assert all(c in GOAL_CATEGORIES for c in labels.values())
    return json.dumps(labels)


@_answers(cp.PROMPT_19_ROLES[:60])
def _roles(prompt: str) -> str:
    data = json.loads(_after(prompt, "assign each one the appropriate role: ", " Please return"))
    roles = {}
    for name, goals in data.items():
        text = " ".join(goals)
        roles[name] = (
            "receiver"
            if re.search(r"find out|learn what", text) and "keep" not in text
            else "sender"
        )
    return json.dumps(roles)


# --- dispatch ----------------------------------------------------------------------------------


def answer(prompt: str) -> str | None:
    """The stand-in answer to a construction prompt, or None if `prompt` is not one."""
    if "Following the ERG theory" in prompt:  # starts like Prompt 4
        return _categories(prompt)
    for start, rule in _ROUTES:
        if prompt.startswith(start):
            return rule(prompt)
    return None


def _broken(reply: str, h: int) -> str:
    kind = h % 3
    if kind == 0:
        return reply[: max(1, len(reply) // 2)]  # cut off mid-document
    if kind == 1:
        return "Sure! Here is what you asked for, as requested."  # no JSON at all
    return re.sub(r'"\w+":', '"unexpected":', reply, count=3)  # wrong keys


def construction_reply(messages: list[tuple[str, str]], model: str, messy: bool) -> str | None:
    """Answer the first user message; repairs (later turns) get the same answer.

    `messy`: about a third of first replies are broken, and a few items stay broken through
    every repair (so the build drops them and says so).
    """
    first = next((text for role, text in messages if role == "user"), "")
    reply = answer(first)
    if reply is None or not messy or reply in ("Yes.", "No."):
        return reply
    h = _h(model, first)
    attempt = sum(role == "assistant" for role, _ in messages)
    stubborn = h % 17 == 0
    if (attempt == 0 and h % 3 == 0) or stubborn:
        return _broken(reply, h >> 4)
    return reply
