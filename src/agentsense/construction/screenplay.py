"""Reading a screenplay: plain text as IMSDb serves it, or Fountain (fountain.io 1.1).

Both formats share the conventions the reader relies on: a scene heading starts with INT./EXT.,
a speaker cue is an upper-case name on its own line, and the lines right below it are what that
character says. Fountain adds forced elements (`.HEADING`, `@Name`, `>TRANSITION`, `!action`),
a title page, notes `[[...]]`, boneyard `/* ... */`, sections `#` and synopses `=`, all handled
here. Parentheticals (wrylies) and cue extensions (V.O., CONT'D) are not part of what is said.

The two Fountain parsers on PyPI (`fountain-py` 0.3, `fountain-parser` 0.1) were two months old
and pre-1.0 when this was written, and IMSDb text needs a rule-based reader anyway; one reader
for both keeps a script's dialogue identical whichever format it was saved in.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

FOUNTAIN_SUFFIXES = (".fountain", ".spmd")
SCRIPT_SUFFIXES = (".txt", ".text", ".html", ".htm", *FOUNTAIN_SUFFIXES, "")
EXPECTED = (
    "a screenplay in plain text (as IMSDb serves it) or Fountain: scene headings "
    "(INT./EXT.) and upper-case character cues, each followed by the character's lines"
)

Kind = Literal["heading", "action", "dialogue", "transition"]

_HEADING = re.compile(r"^(\d+[A-Z]?\s+)?(INT|EXT|EST|INT\.?/EXT|EXT\.?/INT|I/E)[.\s/]", re.I)
_TRANSITION = re.compile(r"^[A-Z .'-]+ TO:$|^(FADE IN:|FADE OUT\.?|FADE TO BLACK\.?|THE END)$")
_CUE = re.compile(r"^[A-Z][A-Z0-9 .'&#-]{0,38}[A-Z0-9.'](\s*\([^)]*\))*\s*\^?$")
_EXTENSION = re.compile(r"\s*\([^)]*\)")
_TAG = re.compile(r"<[^>]+>")
_NOTE = re.compile(r"\[\[.*?\]\]", re.S)
_BONEYARD = re.compile(r"/\*.*?\*/", re.S)
_EMPHASIS = re.compile(r"(\*{1,3}|_)(?=\S)(.+?)(?<=\S)\1")
_TITLE_KEY = re.compile(r"^(Title|Credit|Author|Authors|Source|Draft date|Contact|Notes)\s*:", re.I)


class ScriptError(ValueError):
    """A file that cannot be read as a screenplay; the message is one line naming the file."""


@dataclass(frozen=True)
class Element:
    """One block of the script: a heading, action, transition or one character's speech."""

    kind: Kind
    text: str
    speaker: str | None = None


@dataclass(frozen=True)
class Screenplay:
    path: str
    title: str
    format: Literal["text", "fountain"]
    elements: tuple[Element, ...]

    @property
    def speeches(self) -> list[Element]:
        return [e for e in self.elements if e.kind == "dialogue"]


def speaker_name(cue: str) -> str:
    """`MRS. OKAFOR (V.O.)` -> `Mrs. Okafor`: the name as the action lines write it."""
    bare = _EXTENSION.sub("", cue.lstrip("@")).rstrip("^ ").strip()
    return " ".join(word.capitalize() for word in bare.split())


def _clean(text: str) -> str:
    return " ".join(_EMPHASIS.sub(r"\2", text).split())


def _is_cue(line: str, next_line: str) -> bool:
    if line.startswith("@"):
        return bool(next_line.strip())
    stripped = line.strip()
    if not stripped or not next_line.strip() or _HEADING.match(stripped):
        return False
    return bool(_CUE.match(stripped)) and not _TRANSITION.match(stripped)


def _blocks(text: str) -> list[list[str]]:
    """Blank-line separated blocks of lines (right-stripped; indentation is not meaningful)."""
    blocks: list[list[str]] = [[]]
    for line in text.split("\n"):
        if line.strip():
            blocks[-1].append(line.rstrip())
        elif blocks[-1]:
            blocks.append([])
    return [block for block in blocks if block]


def _title_page(blocks: list[list[str]]) -> tuple[str | None, list[list[str]]]:
    if blocks and _TITLE_KEY.match(blocks[0][0].strip()):
        for line in blocks[0]:
            key, _, value = line.strip().partition(":")
            if key.lower() == "title":
                return _clean(value) or None, blocks[1:]
        return None, blocks[1:]
    return None, blocks


def _block_elements(block: list[str]) -> list[Element]:
    first = block[0].strip()
    if first.startswith("#") or (first.startswith("=") and not first.startswith("===")):
        return []  # Fountain sections and synopses are notes to the writer
    if first.startswith("==="):
        return []  # page break
    if len(block) == 1 and (_HEADING.match(first) or (first.startswith(".") and first[1:2] != ".")):
        return [Element("heading", _clean(first.lstrip(".")))]
    if len(block) == 1 and (first.startswith(">") and not first.endswith("<")):
        return [Element("transition", _clean(first[1:]))]
    if len(block) == 1 and _TRANSITION.match(first):
        return [Element("transition", first)]
    if len(block) >= 2 and _is_cue(block[0], block[1]):
        lines = [ln.strip() for ln in block[1:] if not re.fullmatch(r"\(.*\)", ln.strip())]
        said = _clean(" ".join(lines))
        return [Element("dialogue", said, speaker_name(first))] if said else []
    if _HEADING.match(first):  # a heading glued to its first action line
        return [Element("heading", _clean(first)), *_block_elements(block[1:])]
    return [Element("action", _clean(" ".join(ln.strip().lstrip("!") for ln in block)))]


def parse_text(text: str) -> tuple[str | None, list[Element]]:
    """Parse screenplay text into elements (and the Fountain title, if it has a title page)."""
    text = _BONEYARD.sub("", _NOTE.sub("", _TAG.sub("", text.replace("\r\n", "\n"))))
    title, blocks = _title_page(_blocks(text))
    elements = [element for block in blocks for element in _block_elements(block)]
    return title, [e for e in elements if e.text]


def _decode(path: Path, data: bytes) -> str:
    if b"\x00" in data[:4096]:
        raise ScriptError(f"{path}: a binary file (NUL bytes); expected {EXPECTED}.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")  # IMSDb pages are often Windows-1252


def read_screenplay(path: Path) -> Screenplay:
    """Read one script file; `ScriptError` (one line) if it is empty or not a screenplay."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ScriptError(f"{path}: cannot be read ({error.strerror}).") from None
    text = _decode(path, data)
    if not text.strip():
        raise ScriptError(f"{path}: the file is empty; expected {EXPECTED}.")
    title, elements = parse_text(text)
    if not any(e.kind == "dialogue" for e in elements):
        raise ScriptError(f"{path}: no character cue followed by dialogue; expected {EXPECTED}.")
    fmt: Literal["text", "fountain"] = (
        "fountain" if path.suffix.lower() in FOUNTAIN_SUFFIXES or title else "text"
    )
    return Screenplay(str(path), title or path.stem, fmt, tuple(elements))


def speakers(elements: list[Element] | tuple[Element, ...], min_lines: int = 2) -> list[str]:
    """Characters with at least `min_lines` speeches, in order of first appearance."""
    counts = Counter(e.speaker for e in elements if e.kind == "dialogue")
    ordered = dict.fromkeys(e.speaker for e in elements if e.kind == "dialogue" and e.speaker)
    return [name for name in ordered if counts[name] >= min_lines]


def render(elements: list[Element] | tuple[Element, ...]) -> str:
    """Elements back to screenplay text (what Prompts 1-2 are given and must return unchanged)."""
    parts = []
    for element in elements:
        if element.kind == "dialogue":
            parts.append(f"{(element.speaker or '').upper()}\n{element.text}")
        else:
            parts.append(element.text)
    return "\n\n".join(parts)


def script_files(path: Path) -> list[Path]:
    """The script files named by the `scripts` argument: a file, or a folder's files, sorted."""
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(
            p
            for p in path.iterdir()
            if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in SCRIPT_SUFFIXES
        )
    return []
