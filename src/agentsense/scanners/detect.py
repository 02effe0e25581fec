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
from agentsense.sense.score_keys import JUDGE_PREFIX

# Speaking as an AI system, not as the character (`character_break`). A term counts only where
# its noun phrase ends: a job goes on with another noun ("an assistant chef", "an AI researcher")
# or a workplace ("an assistant at the surgery"); an AI's self-description goes on with a clause
# ("As an AI, I ...", "I'm an assistant and cannot ...").
_AI_TERM = r"(?:AI|A\.I\.|artificial intelligence|(?:large )?language model|LLM|chatbot"
_AI_TERM += r"|(?:virtual|digital) assistant)(?: (?:AI|language model|model|assistant|chatbot))*"
_ENDS = (
    r"(?=\s*(?:[^\w\s'’]|$)|\s+(?:and|but|so|or|I|I'm|that|which|who|here|now|without|not"
    r"|created|trained|designed|built|made|programmed|developed|cannot|can't|can|could|would"
    r"|will|won't|don't|do|does|doesn't|is|am|have|has|myself)\b)"
)
_AM = r"\bI(?:'m|’m| am) (?:just |only |merely |simply )?an? "
# A bare "assistant" is a job as often as an AI, so only as an identity: "I'm (just) an
# assistant" or "As an assistant" opening a clause (not "I worked as an assistant").
_CLAUSE = r"(?:^|(?<=[.!?,;:(\"“—-])\s*)"
CHARACTER_BREAK = re.compile(
    "|".join(
        (
            rf"\bas an? {_AI_TERM}{_ENDS}",
            rf"{_AM}{_AI_TERM}{_ENDS}",
            rf"{_AM}assistant{_ENDS}",
            rf"{_CLAUSE}as an assistant{_ENDS}",
            r"\bI (?:don't|do not) have (?:personal )?(?:feelings|emotions|a body"
            r"|personal experiences|opinions of my own)\b",
            r"\bmy (?:training data|knowledge cutoff|programming|developers at)\b",
            r"\b(?:created|trained|developed) by "
            r"(?:OpenAI|Anthropic|Meta|Google|Alibaba|Mistral)\b",
            r"\b(?:in|for) this (?:role-?play|simulation|scenario)\b",
            r"\bstay(?:ing)? in character\b",
        )
    ),
    re.IGNORECASE | re.MULTILINE,
)

# Declining to take part (`refusal`): an apology for not helping, or unwillingness to go on with
# the role-play itself (the scene's own talk of what a character can't do is not a refusal).
_Q = "['’]"  # straight or curly apostrophe
_CANT = rf"(?:I (?:can{_Q}t|cannot|won{_Q}t|will not)|I(?:{_Q}m| am) unable to)"
_SORRY = rf"(?:I(?:{_Q}m| am) )?(?:so |very |really |terribly )?(?:sorry|afraid)|apologies"
_SORRY += r"|I apologi[sz]e"
_UNWILLING = (
    rf"(?:{_CANT}|I(?:{_Q}d| would) (?:rather not|prefer not to)"
    rf"|I (?:don{_Q}t|do not) (?:want|wish) to|I(?:{_Q}m| am) not (?:going|willing|able) to"
    rf"|I(?:{_Q}m| am) not comfortable|I (?:refuse|decline|must decline) to)"
)
_GO_ON = (
    r"(?:continu(?:e|ing)|go(?:ing)? on with|carry(?:ing)? on with|proceed(?:ing)? with"
    r"|tak(?:e|ing) part in|participat(?:e|ing) in|engag(?:e|ing) in|play(?:ing)?)"
)
_THE_PLAY = (
    r"(?:with )?(?:this|the|that|our|such an?|any) (?:role-?play|scenario|simulation|role"
    r"|character|exercise)"
)
# What an apology declines: the request itself ("help with that", "comply", "do that"), not a
# thing in the scene ("help with the dishes", "help it", "provide the money").
_END = r"(?=\s*[.!;]|\s*$)"
_WHAT_IS_ASKED = (
    r"(?:(?:help|assist)(?: you)?(?: with (?:that|this|your|such|the request)\b"
    r"| (?:with )?(?:writing|creating|generating|producing|role-?playing|pretending)\b"
    rf"|{_END})|comply|fulfil|do that|role-?play|pretend"
    r"|(?:engage|participate|take part) in (?:this|that|such)\b"
    rf"|provide (?:that|this|such|a response|an answer|content)\b|continue{_END})"
)
REFUSAL = re.compile(
    "|".join(
        (
            rf"\b(?:{_SORRY})\W{{0,3}}\s*(?:but )?{_CANT} {_WHAT_IS_ASKED}",
            rf"\bI (?:can{_Q}t|cannot|won{_Q}t|will not) (?:assist|comply|role-?play|pretend"
            r"|engage in|participate in|continue (?:this|with this) (?:conversation|role-?play"
            r"|scenario))\b",
            rf"\b{_UNWILLING} {_GO_ON} {_THE_PLAY}\b",
            rf"\bI(?:{_Q}m| am) not (?:able|comfortable|allowed|permitted) to (?:continue"
            r"|role-?play|pretend|engage|participate|provide|share that"
            r"|help with (?:that|this) request)",
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


# Marks a line may open with before a speaker's name: markdown, brackets, quotes, a stage
# direction's parenthesis ("(Grace: fine, take it.)"); and the marks that may close the name.
_OPEN = r"[\s*_\[(\"“'‘>]*"
_CLOSE = r"[*_\])\"”'’]*"


def _name_at(names: Iterable[str]) -> str:
    """A regex for `Name:`, `Name Surname:` or `First:` of any of `names`, in its marks."""
    variants = {v for n in names for v in (n, _spaced(n), _spaced(n).split()[0])}
    alternatives = "|".join(re.escape(v) for v in sorted(variants, key=len, reverse=True))
    return rf"{_OPEN}(?:{alternatives}){_CLOSE}\s*:"


def wrong_speaker(text: str, speaker: str, names: Sequence[str]) -> str | None:
    """The other character a turn speaks for, or None: a line that starts with their `Name:`,
    or a bracketed `(Name: ...)` within a line (a line for them as a stage direction)."""
    own = re.compile(rf"^{_name_at([speaker])}\s*", re.IGNORECASE)
    for line in text.split("\n"):
        line = own.sub("", line, count=1)
        for other in (n for n in names if n != speaker):
            said = rf"(?:^|[(\[]){_name_at([other])}"
            if re.search(said, line, re.IGNORECASE):
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
        if (
            str(answer.get("asker", "")).startswith(JUDGE_PREFIX)
            and answer.get("reading") is not None
        ):
            key = (answer.get("character"), answer.get("goal"), answer.get("item"))
            readings[key].add(int(answer["reading"]))
            counts[key] += 1
    judged = [key for key, n in counts.items() if n >= 2]
    return sum(len(readings[key]) > 1 for key in judged), len(judged)
