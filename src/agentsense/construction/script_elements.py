"""The element model of a screenplay: the kinds of block a script is read into, a speech's
speaker, and Fountain text back from the elements (`screenplay.py` reads the files,
`script_reader.py` the lines)."""

from __future__ import annotations

import re
from collections import Counter
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


def speaker_name(cue: str) -> str:
    """`MRS. OKAFOR (V.O.)` -> `Mrs. Okafor`: the name as the action lines write it, one
    spelling per character however its cues are cased (`@McKAY`, `MCKAY ^`)."""
    bare = " ".join(EXTENSION.sub("", cue.strip().lstrip("@")).rstrip("^ ").split())
    return " ".join("-".join(p.capitalize() for p in w.split("-")) for w in bare.split())


def speakers(elements: list[Element] | tuple[Element, ...], min_lines: int = 2) -> list[str]:
    """Characters with at least `min_lines` speeches, in order of first appearance."""
    counts = Counter(e.speaker for e in elements if e.kind == "dialogue")
    ordered = dict.fromkeys(e.speaker for e in elements if e.kind == "dialogue" and e.speaker)
    return [name for name in ordered if counts[name] >= min_lines]


def render(elements: list[Element] | tuple[Element, ...]) -> str:
    """Elements back to Fountain text (what Prompts 1-2 are given and must return unchanged);
    read again, it gives the same elements."""
    parts = []
    for element in elements:
        text = re.sub(r"([\\*_])", r"\\\1", element.text)  # literal, not emphasis
        element = Element(element.kind, text, element.speaker)
        if element.kind == "dialogue":
            parts.append(f"{(element.speaker or '').upper()}\n{element.text}")
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
