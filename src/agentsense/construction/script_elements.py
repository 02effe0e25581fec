"""The element model of a screenplay: the kinds of block a script is read into, a speech's
speaker, and Fountain text back from the elements (`screenplay.py` reads the files,
`script_reader.py` the lines)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Kind = Literal["heading", "action", "dialogue", "transition", "centered", "lyrics"]

# What every format shares: a scene heading, a transition, a cue's extension ("(V.O.)").
HEADING = re.compile(r"^(INT\.?/EXT|EXT\.?/INT|INT|EXT|EST|I/E|E/I)[.\s]", re.I)
TRANSITION = re.compile(r"^[A-Z0-9 .'-]+ TO:$|^(FADE IN:|FADE OUT\.?|FADE TO BLACK\.?|THE END\.?)$")
EXTENSION = re.compile(r"\s*\([^)]*\)")


@dataclass(frozen=True)
class Element:
    """One block of the script: a heading, action, transition or one character's speech."""

    kind: Kind
    text: str
    speaker: str | None = None


_MIXED = re.compile(r"^([A-Z][a-z]+)([A-Z].*)$")  # a cue's own mixed case: McKAY, MacLEOD
_INNER_CAPITAL = re.compile(r"^[A-Za-z]*[a-z][A-Za-z]*[A-Z]|^[A-Z]['’][A-Z][a-z]")
_CAPITALS = re.compile(r"[A-Z]{2}")
_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")


def _title_part(part: str) -> str:
    """One hyphen-free piece of a name in title case (see `title_word`)."""
    for mark in "'’":
        head, found, tail = part.partition(mark)
        if found and tail:  # O'HARA, D'ARTAGNAN; but JIMMY'S -> Jimmy's
            if len(head) == 1:
                return head.upper() + mark + _title_part(tail)
            return _title_part(head) + mark + tail.lower()
    mixed = _MIXED.match(part)
    if mixed:
        return mixed.group(1) + mixed.group(2).capitalize()
    if part.isupper() and part.startswith("MC") and len(part) > 3:
        return "Mc" + part[2:].capitalize()
    return part.capitalize()


def title_word(word: str) -> str:
    """A cue's word in title case as names are written: `O'HARA` -> `O'Hara`, `MCCOY` ->
    `McCoy`, `JEAN-LUC` -> `Jean-Luc`, and a cue's own mixed case kept (`MacLEOD` ->
    `MacLeod`). An all-caps `MACLEOD` cannot be told from `MACK`: `spellings` settles it."""
    return "-".join(_title_part(part) for part in word.split("-"))


def spellings(text: str) -> dict[str, str]:
    """The script's own spelling of each word that title case would get wrong (`MacLeod`,
    `DeVito`, `O'Hara` in the action lines), by its lower case; the commonest wins."""
    # Two capitals in a row are a cue's case (`@McGRATH`), not a spelling.
    words = _WORD.findall(text)
    counts = Counter(w for w in words if _INNER_CAPITAL.match(w) and not _CAPITALS.search(w))
    found: dict[str, str] = {}
    for word, _ in counts.most_common():
        found.setdefault(word.lower(), word)
    return found


def speaker_name(cue: str, spelled: Mapping[str, str] | None = None) -> str:
    """`MRS. O'HARA (V.O.)` -> `Mrs. O'Hara`: the name as the action lines write it (`spelled`,
    from `spellings`), else in title case (`title_word`); one spelling per character however
    its cues are cased (`@McKAY`, `MCKAY ^`)."""
    bare = " ".join(EXTENSION.sub("", cue.strip().lstrip("@")).rstrip("^ ").split())
    spelled = spelled or {}
    return " ".join(spelled.get(word.lower()) or title_word(word) for word in bare.split())


def speakers(elements: list[Element] | tuple[Element, ...], min_lines: int = 2) -> list[str]:
    """Characters with at least `min_lines` speeches, in order of first appearance."""
    counts = Counter(e.speaker for e in elements if e.kind == "dialogue")
    ordered = dict.fromkeys(e.speaker for e in elements if e.kind == "dialogue" and e.speaker)
    return [name for name in ordered if counts[name] >= min_lines]


def _cue(speaker: str) -> str:
    """A speaker's cue in capitals, or forced (`@MacLeod`) where capitals lose its spelling."""
    return speaker.upper() if speaker_name(speaker.upper()) == speaker else f"@{speaker}"


def render(elements: list[Element] | tuple[Element, ...]) -> str:
    """Elements back to Fountain text (what Prompts 1-2 are given and must return unchanged);
    read again, it gives the same elements."""
    parts = []
    for element in elements:
        text = re.sub(r"([\\*_])", r"\\\1", element.text)  # literal, not emphasis
        element = Element(element.kind, text, element.speaker)
        if element.kind == "dialogue":
            parts.append(f"{_cue(element.speaker or '')}\n{element.text}")
        elif element.kind == "heading" and not HEADING.match(element.text):
            parts.append(f".{element.text}")
        elif element.kind == "centered":
            parts.append(f">{element.text}<")
        elif element.kind == "lyrics":
            parts.append(f"~{element.text}")
        elif element.kind == "transition" and not TRANSITION.match(element.text):
            parts.append(f">{element.text}")
        else:
            parts.append(element.text)
    return "\n\n".join(parts)
