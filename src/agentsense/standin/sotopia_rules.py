"""The stand-in's answers to Sotopia's prompts (`agentsense/sotopia`), told apart by their text.

An agent prompt gets an action JSON (mostly `speak`; from turn 4 on, sometimes `leave`); an
evaluator prompt gets a score in range for every agent and dimension. Model names select faults:
one containing `broken` never answers JSON; `fenced` wraps it in a ```json fence; `outofrange`
(a judge) gives agent 1 a goal of 11. Deterministic given the request.
"""

from __future__ import annotations

import hashlib
import json
import re

from agentsense.sotopia.prompts import RANGES

AGENT = re.compile(r"^Imagine you are (.+?), your task is to act/speak")
TURN = re.compile(r"You are at Turn #(\d+)\.")
EVALUATOR = "Based on previous interactions, evaluate how well participants achieve their goals."
AGENTS = re.compile(r"There are exactly (\d+) agents\.")
_LINES = (
    "I think we can sort this out if we are both honest about what we need.",
    "Could you tell me a bit more about your side of this?",
    "I see your point, but this matters a lot to me.",
    "What if we split it, and I make it up to you next time?",
    "Thanks for hearing me out. I appreciate it.",
)
_GESTURES = ("nods slowly", "smiles and leans in", "crosses arms, thinking")
_DEEDS = ("pours two cups of coffee", "checks the calendar on the phone")


def _hash(*parts: str) -> int:
    return int(hashlib.sha256("\x1f".join(parts).encode()).hexdigest(), 16)


def _json(model: str, body: dict[str, object]) -> str:
    text = json.dumps(body)
    return f"```json\n{text}\n```" if "fenced" in model else text


def _action(model: str, prompt: str) -> str:
    if "broken" in model:
        return "I would rather just say what I think."
    turn = int(m.group(1)) if (m := TURN.search(prompt)) else 0
    h = _hash(model, prompt)
    if turn >= 4 and h % 4 == 0:
        return _json(model, {"action_type": "leave", "argument": ""})
    kind = h >> 4
    body: dict[str, object]
    if kind % 7 == 1:
        body = {"action_type": "non-verbal communication", "argument": _GESTURES[kind % 3]}
    elif kind % 7 == 2:
        body = {"action_type": "action", "argument": _DEEDS[kind % 2]}
    else:
        body = {"action_type": "speak", "argument": _LINES[kind % len(_LINES)]}
    return _json(model, body)


def _evaluation(model: str, prompt: str) -> str:
    if "broken" in model:
        return "Both agents did reasonably well, I would say."
    agents = int(m.group(1)) if (m := AGENTS.search(prompt)) else 2
    evaluations: dict[str, dict[str, list[object]]] = {}
    for i in range(1, agents + 1):
        scores: dict[str, list[object]] = {}
        for name, (low, high) in RANGES.items():
            value = low + _hash(model, prompt, str(i), name) % (high - low + 1)
            scores[name] = [f"agent_{i} on {name}: judged from the episode.", value]
        evaluations[f"agent_{i}"] = scores
    if "outofrange" in model:
        evaluations["agent_1"]["goal"] = ["agent_1 reached every goal and more.", 11]
    return _json(model, {"evaluations": evaluations})


def sotopia_reply(model: str, prompt: str) -> str | None:
    """The reply to a Sotopia agent or evaluator prompt, or None for any other prompt."""
    if AGENT.match(prompt):
        return _action(model, prompt)
    if EVALUATOR in prompt and '"evaluations"' in prompt:
        return _evaluation(model, prompt)
    return None
