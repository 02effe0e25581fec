"""Deterministic reply rules for stand-in models: each reply depends only on the request.

- `parity`: the stand-in model that produced the recorded official fixtures
  (`sense-parity/README.md`); replaying a fixture scene with it must give identical requests.
- `persona`: answers like a plausible chat model: one in-character paragraph per turn, Yes/No to
  interview questions, an option to MCQs, varied by the request so scores are not constant;
  JSON derived from the input to every scenario-construction prompt (`construction_rules.py`).
  Its yes/no depends on the model name, the system prompt and the question only, never on the
  conversation: a persona judge is transcript-blind (on `agentsense/judge_check` it answers all
  items of one goal alike, so its consistency is 1 and its accuracy near chance).
- `yes`: persona, but "Yes." to every yes/no question (an always-yes judge).
- `keyword`: persona, but a yes/no question is answered "Yes." when an earlier message contains
  an acceptance word (`KEYWORDS`, anywhere, small talk included), else "No.": a judge that
  reads the transcript naively and so is fooled by claims and by utterances that tell it to
  answer yes.
- `messy`: `persona`, with a deterministic share of broken construction replies.

The same rules back the `standin/` Inspect model provider and the local HTTP stub server.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .construction_rules import construction_reply


@dataclass(frozen=True)
class Request:
    """What a rule sees: the model name and the (role, content) of every message."""

    model: str
    messages: Sequence[tuple[str, str]]

    @property
    def system(self) -> str:
        return self.messages[0][1] if self.messages and self.messages[0][0] == "system" else ""

    @property
    def last(self) -> str:
        return self.messages[-1][1] if self.messages else ""

    def digest(self) -> int:
        key = f"{self.model}\x1f{self.system}\x1f{self.last}".encode()
        return int(hashlib.sha256(key).hexdigest(), 16)

    @property
    def speaker(self) -> str:
        """The persona's name (`You are X.`), or the model name for judges and other prompts."""
        if self.system.startswith("You are ") and not self.system.startswith("You are skilled"):
            return self.system[len("You are ") :].split(".", 1)[0]
        return self.model


Rule = Callable[[Request], str]

_PARITY_MCQ = ("(B)", "B", "(C) I think so.", "A.", "I am not sure about this one.")
_PARITY_YES_NO = (
    "Yes.",
    "No.",
    "yes, definitely.",
    "Yes\nbecause the conversation shows it.",
    "No, but they tried.",
)


def parity(request: Request) -> str:
    """The fixture stand-in, to the letter (sense-parity/README.md, 'The stand-in model')."""
    h = request.digest()
    last = request.last
    if "only output your choice" in last:
        return _PARITY_MCQ[h % 5]
    if "Answer Yes or No" in last:
        return _PARITY_YES_NO[h % 5]
    speaker, k = request.speaker, len(request.messages) - 1
    choice = h % 6
    if choice == 0:
        return f"\n({speaker} turn {k}) starts with a blank line."
    if choice == 1:
        return f"{speaker}: ({speaker} turn {k}) already carries my name."
    return (
        f"({speaker} turn {k}) I would like to talk about the plan.\n"
        "A second paragraph that the others never see."
    )


_OPENERS = (
    "That is a fair point, {other}.",
    "I hear you, {other}, but let me add something.",
    "Honestly, {other}, I have been thinking about this all day.",
    "Before we go further, {other}, I want to be clear.",
    "Thanks for saying that, {other}.",
    "Let us slow down for a moment, {other}.",
)
_MOVES = (
    "I would really like {goal}",
    "What matters most to me right now is {goal}",
    "I hope we can find a way {goal}",
    "Could you help me? I am trying {goal}",
)
_CLOSERS = (
    "What do you think?",
    "I am open to your ideas.",
    "Tell me honestly where you stand.",
    "Let us decide together.",
    "",
)
_GOALS = re.compile(r"SOCIAL GOALS: (.*)")
_LABELS = re.compile(r"\(([A-Za-z1-9])\) ")


def _goal_phrase(system: str, h: int) -> str:
    match = _GOALS.search(system)
    goals = [g.strip() for g in match.group(1).split(". ") if g.strip()] if match else []
    if not goals:
        return "to get along with everyone here."
    goal = goals[h % len(goals)].rstrip(".")
    # "To reassure Leo ..." -> "to reassure Leo ..."
    return (goal[0].lower() + goal[1:] if goal else goal) + "."


def _last_speaker(request: Request) -> str:
    for role, content in reversed(request.messages[1:]):
        if role == "user" and ": " in content:
            return content.split(": ", 1)[0]
    return "everyone"


def persona(request: Request) -> str:
    """A plausible, deterministic chat model for smoke runs, tests and benchmarks."""
    built = construction_reply(list(request.messages), request.model, messy=False)
    if built is not None:
        return built
    h = request.digest()
    last = request.last
    if "only output your choice" in last:
        labels = _LABELS.findall(last) or ["A", "B", "C", "D"]
        label = labels[h % len(labels)]
        return (f"({label})", label, f"({label}) That seems most likely.")[(h >> 8) % 3]
    if "yes or no" in last.lower():
        # Lean towards yes, as chat models do, but not always.
        yes = (h % 100) < 65
        return (
            ("Yes." if yes else "No.")
            if (h >> 8) % 4
            else ("Yes, I believe so." if yes else "No, not really.")
        )
    other = _last_speaker(request)
    parts = (
        _OPENERS[h % len(_OPENERS)].format(other=other),
        _MOVES[(h >> 4) % len(_MOVES)].format(goal=_goal_phrase(request.system, h >> 12)),
        _CLOSERS[(h >> 8) % len(_CLOSERS)],
    )
    return " ".join(part for part in parts if part)


def always_yes(request: Request) -> str:
    return "Yes." if "yes or no" in request.last.lower() else persona(request)


# Acceptance words of the `keyword` judge, matched as whole words anywhere in the conversation.
KEYWORDS = re.compile(r"\b(agree\w*|thank you|understand\w*|yes)\b", re.IGNORECASE)


def keyword(request: Request) -> str:
    if "yes or no" not in request.last.lower():
        return persona(request)
    history = " ".join(content for _, content in request.messages[1:-1])
    return "Yes." if KEYWORDS.search(history) else "No."


def messy(request: Request) -> str:
    """`persona`, but construction replies are often broken JSON (to exercise the repairs)."""
    built = construction_reply(list(request.messages), request.model, messy=True)
    return built if built is not None else persona(request)


RULES: dict[str, Rule] = {
    "parity": parity,
    "persona": persona,
    "yes": always_yes,
    "keyword": keyword,
    "messy": messy,
}


def rule_for(model: str) -> tuple[Rule, str]:
    """Split a stand-in model name `rule/name` (or just `name`, persona) into its rule and name."""
    head, _, rest = model.partition("/")
    if head in RULES and rest:
        return RULES[head], rest
    return RULES["persona"], model
