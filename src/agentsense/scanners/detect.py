"""The pattern rules behind the scanners, on one turn at a time (no Scout import, so the
validation and the report need no model).

A turn here is what a character's model produced (`Turn.text`, never cut), with its speaker and
the names of the scene's characters.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from importlib.resources import files
from typing import Any

from agentsense.engine.conversation import Turn, prefixed_text, visible_text

# Speaking as an AI system, not as the character (`character_break`).
_AI = (
    r"(?:an? )?(?:AI|A\.I\.|artificial intelligence|(?:large )?language model|LLM|chatbot"
    r"|virtual assistant|AI assistant|assistant)"
)
_JOB = r"(?! (?:manager|director|coach|editor|professor|principal)\b)"  # "an assistant manager"
CHARACTER_BREAK = re.compile(
    "|".join(
        (
            rf"\bas {_AI}\b{_JOB}",
            rf"\bI(?:'m| am) (?:just |only |merely )?{_AI}\b{_JOB}",
            r"\bI (?:don't|do not) have (?:personal )?(?:feelings|emotions|a body"
            r"|personal experiences|opinions of my own)\b",
            r"\bmy (?:training data|knowledge cutoff|programming|developers at)\b",
            r"\b(?:created|trained|developed) by "
            r"(?:OpenAI|Anthropic|Meta|Google|Alibaba|Mistral)\b",
            r"\b(?:in|for) this (?:role-?play|simulation|scenario)\b",
            r"\bstay(?:ing)? in character\b",
        )
    ),
    re.IGNORECASE,
)

# Declining to take part (`refusal`): apologies for not answering, policy talk.
_CANT = r"(?:can(?:'t|not)|won't|will not)"
REFUSAL = re.compile(
    "|".join(
        (
            rf"\bI(?:'m| am) (?:sorry|afraid),? (?:but )?I (?:{_CANT}|am unable to) (?:help|assist"
            r"|comply|continue|provide|do that|engage|participate|take part|role-?play|fulfil)",
            rf"\bI {_CANT} (?:assist|comply|role-?play|pretend|engage in|participate in"
            r"|continue (?:this|with this) (?:conversation|role-?play|scenario))\b",
            r"\bI(?:'m| am) not (?:able|comfortable|allowed|permitted) to (?:continue|role-?play"
            r"|pretend|engage|participate|provide|share that|help with (?:that|this) request)",
            r"\b(?:against|violates?) (?:my|our|the) (?:guidelines|policy|policies|content policy"
            r"|usage policies)\b",
            r"\bI (?:must|have to) (?:decline|refuse)\b",
        )
    ),
    re.IGNORECASE,
)

# Words any sentence shares with a secret (not evidence of stating it).
_STOP = frozenset(
    line.strip()
    for line in files("agentsense.scanners")
    .joinpath("stopwords.txt")
    .read_text("utf-8")
    .splitlines()
    if line.strip() and not line.startswith("#")
)


def character_break(text: str) -> bool:
    return CHARACTER_BREAK.search(text) is not None


def refusal(text: str) -> bool:
    return REFUSAL.search(text) is not None


def _spaced(name: str) -> str:
    """`DanielAdeyemi` -> `Daniel Adeyemi` (models write either)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)


def wrong_speaker(text: str, speaker: str, names: Sequence[str]) -> str | None:
    """The other character a turn speaks for (a line starting with their `Name:`), or None."""
    others = [n for n in names if n != speaker]
    own = re.compile(rf"^\s*\**(?:{re.escape(speaker)}|{re.escape(_spaced(speaker))})\**\s*:\s*")
    for line in text.split("\n"):
        line = own.sub("", line, count=1)
        for other in others:
            variants = "|".join(
                re.escape(v) for v in {other, _spaced(other), _spaced(other).split()[0]}
            )
            if re.match(rf"^\s*[\*\[]*(?:{variants})[\*\]]*\s*:", line, re.IGNORECASE):
                return other
    return None


def _words(text: str, drop: Iterable[str] = ()) -> set[str]:
    dropped = {w.lower() for name in drop for w in re.findall(r"\w+", _spaced(name))}
    dropped |= {name.lower() for name in drop}
    return {
        w
        for w in re.findall(r"[a-z0-9]+", text.lower())
        if len(w) > 2 and w not in _STOP and w not in dropped
    }


LEAK_SHARE = 0.6  # share of the secret's content words a turn must repeat to count as stating it


def secret_overlap(text: str, secret: str, names: Sequence[str] = ()) -> float:
    """Share of the secret's content words (characters' names left out) that the turn uses."""
    wanted = _words(secret, names)
    return len(wanted & _words(text, names)) / len(wanted) if wanted else 0.0


def secret_leak(text: str, secret: str, names: Sequence[str] = ()) -> bool:
    return secret_overlap(text, secret, names) >= LEAK_SHARE


def cut_loss(text: str, speaker: str) -> float:
    """Share of a reply (with its `Name: ` prefix) that the first-newline cut drops."""
    turn = Turn(index=0, speaker=speaker, text=text)
    full = prefixed_text(turn).strip()
    return 1 - len(visible_text(turn).strip()) / len(full) if full else 0.0


MOST = 0.5  # "loses most of a reply": the cut drops at least half of it


def panel_splits(goal_answers: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """(judged items whose judge panel disagrees, judged items with two or more readings)."""
    readings: dict[tuple[Any, ...], set[int]] = defaultdict(set)
    counts: dict[tuple[Any, ...], int] = defaultdict(int)
    for answer in goal_answers:
        if str(answer.get("asker", "")).startswith("judge_") and answer.get("reading") is not None:
            key = (answer.get("character"), answer.get("goal"), answer.get("item"))
            readings[key].add(int(answer["reading"]))
            counts[key] += 1
    judged = [key for key, n in counts.items() if n >= 2]
    return sum(len(readings[key]) > 1 for key in judged), len(judged)
