"""The answer rule of script prediction: which title a reply names, and whether it is the truth.

The paper gives no rule (docs/leakage.md). A reply names one title: the first quoted or
emphasised span (`"..."`, `“...”`, `«...»`, `*...*`, `_..._`) if there is one, else its first
non-empty line without a leading label (`Title:`, `Answer:`, ...). One guess only, so listing
several titles earns nothing. Two titles are the same when they agree after `normalise_title`:
case, accents, punctuation, `&` / `and`, the articles `the`, `a` and `an`, and a trailing year in
brackets are ignored ("the social network" = "The Social Network" = "Social Network, The").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

ARTICLES = frozenset({"the", "a", "an"})
_QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|«([^»\n]+)»|\*+([^*\n]+)\*+|\b_([^_\n]+)_\b')
_LABEL = re.compile(r"^\s*(?:title|answer|script|film|movie|show|series)\s*[:：]\s*", re.I)
_YEAR = re.compile(r"\(\s*\d{4}\s*\)\s*$")
_NOT_WORD = re.compile(r"[^0-9a-z]+")


def named_title(reply: str) -> str:
    """The one title a reply names ('' for an empty reply)."""
    match = _QUOTED.search(reply)
    if match:
        return next(group for group in match.groups() if group is not None).strip()
    line = next((line.strip() for line in reply.splitlines() if line.strip()), "")
    return _LABEL.sub("", line).strip().rstrip(".!?;:,").strip()


def normalise_title(title: str) -> str:
    """The comparable form of a title: lower case, ASCII words, no articles, no year."""
    text = unicodedata.normalize("NFKD", _YEAR.sub("", title.strip()))
    text = "".join(char for char in text if not unicodedata.combining(char)).casefold()
    words = _NOT_WORD.sub(" ", text.replace("&", " and ")).split()
    return " ".join(word for word in words if word not in ARTICLES)


def matched_title(reply: str, titles: Sequence[str]) -> str | None:
    """The true title the reply names, or None (an empty guess matches nothing)."""
    guess = normalise_title(named_title(reply))
    if not guess:
        return None
    return next((title for title in titles if normalise_title(title) == guess), None)
