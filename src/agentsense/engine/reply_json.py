"""Reading a JSON value out of a model's reply: the one rule, with each caller's options.

Models wrap JSON in prose or code fences, follow it with more text, or slip (a trailing comma, a
raw newline inside a string). Every reader tries the whole reply first, then the values that
decode at an offset where `{` (or `[`) opens one. The callers differ only in the options:

- construction (`construction/repair.py`): `lenient` -- a fenced block is tried as a whole and
  trailing commas are dropped (the paper's own Prompt-11 example has them); the first value wins.
- CoSER's critics (`coser/critic.py`): `escape_newlines` and `longest`, as CoSER reads a critic
  reply (coser-gca.md §3.4).
- role labelling: `objects_only` -- the first object; lists and scalars are passed over.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_DECODER = json.JSONDecoder()


class NoJSON(ValueError):
    """The reply holds no JSON value the reader accepts."""


def reply_json(
    text: str,
    *,
    lenient: bool = False,
    escape_newlines: bool = False,
    longest: bool = False,
    objects_only: bool = False,
) -> Any:
    """The JSON value in a model reply; raises `NoJSON` when there is none.

    lenient: also try each fenced block as a whole, and every text with trailing commas dropped.
    escape_newlines: a literal newline inside a quoted string becomes `\\n` before anything else.
    longest: of the embedded values, the longest (as re-serialised; the first of equals), not the
        first.
    objects_only: accept only a JSON object (the scan then starts only at `{`).
    """
    if escape_newlines:
        text = _QUOTED.sub(lambda match: match.group(0).replace("\n", "\\n"), text)
    wholes = [text, *(m.group(1) for m in _FENCE.finditer(text))] if lenient else [text]
    for whole in wholes:
        for variant in _variants(whole, lenient):
            try:
                value = json.loads(variant)
            except ValueError:
                continue
            if not objects_only or isinstance(value, dict):
                return value
    for variant in _variants(text, lenient):
        values = _embedded(variant, "{" if objects_only else "{[")
        found = max(values, key=_size, default=None) if longest else next(values, None)
        if found is not None:
            return found
    raise NoJSON("no JSON document could be read from the reply")


def _variants(text: str, lenient: bool) -> tuple[str, ...]:
    """The text as read: lenient, also stripped and with trailing commas dropped."""
    if not lenient:
        return (text,)
    text = text.strip()
    return (text, re.sub(r",\s*([}\]])", r"\1", text))


def _embedded(text: str, openers: str) -> Iterator[Any]:
    """Every value that decodes at an offset where one of `openers` stands, in text order."""
    for start, char in enumerate(text):
        if char in openers:
            try:
                value, _ = _DECODER.raw_decode(text, start)
            except ValueError:
                continue
            yield value


def _size(value: Any) -> int:
    return len(json.dumps(value))
