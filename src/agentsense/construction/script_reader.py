"""The line reader of a screenplay: one pass over a script's lines that marks where each went.

The rules by format are in `screenplay.py`'s docstring: Fountain markup (boneyard, notes, the
title page, forced elements, emphasis) unless the text is an HTML page's; page furniture and the
indentation layout of typed scripts unless it is Fountain.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from typing import Literal

from agentsense.construction.account import BLANK, NO_CUE, LineAccount
from agentsense.construction.script_elements import (
    EXTENSION,
    HEADING,
    TRANSITION,
    Element,
    Kind,
    speaker_name,
    spellings,
)

Format = Literal["text", "fountain", "html"]
Mark = tuple[str, str]

_MARGIN_NUMBER = re.compile(r"^\d+[A-Z]?\.?\s+(?=\S)|\s+\*?\d+[A-Z]?\.?\s*\*?$|\s+\*$")
_SCENE_NUMBER = re.compile(r"\s*#[\w.-]+#\s*$")
_NAME = re.compile(r"[^a-z:]*[A-Z][^a-z:]*")
_CENTERED = re.compile(r"^\s*>(.*)<\s*$")
_EMPHASIS = re.compile(r"(?<!\\)(\*{1,3}|_)(?=\S)(.+?)(?<=\S)(?<!\\)\1")
_ESCAPE = re.compile(r"\\([*_\\#!@~.>=\[\]^])")
_TITLE_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9 _-]*):(.*)$")
_TITLE_VALUE = re.compile(r"^(\t| {3,})\S")
_BONEYARD = re.compile(r"/\*.*?\*/", re.S)
_NOTE = re.compile(r"\[\[(?:(?!\n ?\n).)*?\]\]", re.S)  # an empty line inside ends no note
_FURNITURE = re.compile(
    r"^\(?(CONTINUED|CONT'D|CONT’D|MORE)\)?:?(\s*\(\d+\))?$|^\d{1,3}[A-Z]?\.$|^PAGE \d+\.?$",
    re.I,
)
_MORE = re.compile(r"^\(MORE\)$", re.I)
_REVISION = re.compile(r"(?<=\S)\s{4,}\*+\s*$")
_LAYOUT_INDENT = 8  # spaces; a typed script's speeches are indented at least this much


@dataclass
class _Piece:
    kind: Kind
    text: str
    lines: list[int]
    speaker: str | None = None
    indent: int = 0  # of the first spoken (or only) line
    cue_indent: int = 0
    more: bool = False  # "(MORE)" follows: the speech goes on after the page break


def _indent(line: str) -> int:
    return len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip())


class _Reader:
    """One pass over a script's lines; `marks[i]` records where line i went."""

    def __init__(self, lines: list[str], fmt: Format, markup: list[bool] | None = None) -> None:
        """`markup[i]`: line i is HTML markup only (no script text)."""
        self.fountain = fmt != "html"  # Fountain markup
        self.typed = fmt != "fountain"  # page furniture and indentation layout
        self.lines = [line.replace("\f", " ").rstrip("\r") for line in lines]
        if self.typed:  # a revision mark in the right margin is not part of the text
            self.lines = [_REVISION.sub("", line) for line in self.lines]
        self.marks: list[Mark | None] = [None] * len(lines)
        self.gone = [False] * len(lines)  # emptied by a note: joins its neighbours
        self.title: str | None = None  # a Fountain title page's `Title:`
        self.typed_title: str | None = None  # the first block of a typed title page
        self.pieces: list[_Piece] = []
        for i, line in enumerate(lines):
            if "\f" in line and not self.lines[i].strip():
                self.marks[i] = ("skipped", "page break")
            elif markup is not None and markup[i]:
                self.marks[i] = ("skipped", "markup")
        self.layout = False
        # Names as the script spells them (`MacLeod` for a cue `MACLEOD`); markup lines aside.
        self.spelled = spellings(
            "\n".join(line for i, line in enumerate(self.lines) if self.marks[i] is None)
        )

    # --- spans and the title page ---------------------------------------------------------

    def _spans(self, pattern: re.Pattern[str], reason: str, joins: bool) -> None:
        text = "\n".join(self.lines)
        starts = [0]
        for line in self.lines:
            starts.append(starts[-1] + len(line) + 1)
        touched: set[int] = set()
        for match in pattern.finditer(text):
            first = _line_at(starts, match.start())
            touched.update(range(first, _line_at(starts, match.end() - 1) + 1))
        new = pattern.sub(lambda m: "\n" * m.group().count("\n"), text).split("\n")
        for i in sorted(touched):
            if self.marks[i] is None and not new[i].strip():
                self.marks[i] = ("skipped", reason)
                self.gone[i] = joins
        self.lines = new

    def _title_page(self) -> None:
        start = next((i for i, m in enumerate(self.marks) if m is None and self._content(i)), None)
        if start is None or not _TITLE_KEY.match(self.lines[start]):
            return
        if HEADING.match(self.lines[start]):
            return
        end, values = start, 0
        key, title = "", []
        while end < len(self.lines) and self.lines[end].strip():
            line = self.lines[end]
            match = _TITLE_KEY.match(line)
            if match:
                key, value = match.group(1).strip().lower(), match.group(2).strip()
            elif _TITLE_VALUE.match(line) and key:
                value = line.strip()
            else:
                return  # not a title page: the block is read as script
            values += bool(value)
            if key == "title" and value:
                title.append(_clean(value, True))
            end += 1
        if not values:
            return
        for i in range(start, end):
            self.marks[i] = ("skipped", "title page")
        self.title = " ".join(title) or None

    def _content(self, i: int) -> bool:
        """Whether line i is part of a block (not blank); two spaces hold a block together."""
        line = self.lines[i]
        if line.strip():
            return True
        if self.fountain and line == "  " and 0 < i < len(self.lines) - 1:
            return bool(self.lines[i - 1].strip() and self.lines[i + 1].strip())
        return False

    # --- blocks ---------------------------------------------------------------------------

    def _blocks(self) -> list[tuple[list[int], bool]]:
        """Blocks of consecutive content lines, each with whether "(MORE)" came before it."""
        blocks: list[tuple[list[int], bool]] = []
        current: list[int] = []
        more = False
        for i in range(len(self.lines)):
            if self.gone[i]:
                continue
            if self.marks[i] is None and self._content(i):
                if self.typed and _FURNITURE.match(self.lines[i].strip()):
                    self.marks[i] = ("skipped", "page furniture")
                    more = more or bool(_MORE.match(self.lines[i].strip()))
                else:
                    if not current:
                        blocks.append((current, more))
                        more = False
                    current.append(i)
                    continue
            elif self.marks[i] is None:
                self.marks[i] = ("skipped", BLANK)
            current = []
        return blocks

    def _detect_layout(self, blocks: list[tuple[list[int], bool]]) -> None:
        lines = [i for block, _ in blocks for i in block]
        indented = sum(_indent(self.lines[i]) >= _LAYOUT_INDENT for i in lines)
        self.layout = self.typed and bool(lines) and indented / len(lines) > 0.3

    def read(self) -> None:
        if self.fountain:
            self._spans(_BONEYARD, "boneyard", joins=False)
            self._spans(_NOTE, "note", joins=True)
            self._title_page()
        blocks = self._blocks()
        self._detect_layout(blocks)
        for block, more in blocks:
            if more and self.pieces:
                self.pieces[-1].more = True
            self._block(block)
        self._orphans()
        self._continued()

    def _text(self, i: int) -> str:
        return _clean(self.lines[i], self.fountain)

    def _add(self, kind: Kind, lines: list[int], text: str, **extra: object) -> None:
        for i in lines:
            self.marks[i] = ("used", kind) if text else ("skipped", "markup")
        if text:
            self.pieces.append(_Piece(kind, text, lines, **extra))  # type: ignore[arg-type]

    def _block(self, block: list[int]) -> None:
        if not block:
            return
        first = self.lines[block[0]].strip()
        if self.fountain and (skip := _note_line(first)):
            self.marks[block[0]] = ("skipped", skip)
            self._block(block[1:])
            return
        if self.fountain and first.startswith("!"):
            text = " ".join(_clean(self.lines[i].strip().removeprefix("!"), True) for i in block)
            self._add("action", block, " ".join(text.split()))
            return
        if len(block) == 1 and (heading := self._heading(first)) is not None:
            self._add("heading", block, heading)
        elif self.fountain and all(_CENTERED.match(self.lines[i]) for i in block):
            text = " ".join(_clean(_CENTERED.match(self.lines[i]).group(1), True) for i in block)  # type: ignore[union-attr]
            self._add("centered", block, " ".join(text.split()))
        elif len(block) == 1 and self.fountain and first.startswith(">"):
            self._add("transition", block, _clean(first[1:], True))
        elif len(block) == 1 and TRANSITION.match(first):
            self._add("transition", block, first)
        elif self.fountain and all(self.lines[i].strip().startswith("~") for i in block):
            text = " ".join(_clean(self.lines[i].strip()[1:], True) for i in block)
            self._add("lyrics", block, " ".join(text.split()))
        elif len(block) >= 2 and self._is_cue(block[0], block[1]):
            self._speech(block)
        elif len(block) >= 2 and self._heading(first, glued=True) is not None:
            self._add("heading", block[:1], self._heading(first, glued=True) or "")
            self._block(block[1:])
        else:
            text = " ".join(self._text(i) for i in block)
            self._add("action", block, " ".join(text.split()), indent=self._indent(block))

    def _indent(self, block: list[int]) -> int:
        return min(_indent(self.lines[i]) for i in block)

    def _heading(self, line: str, glued: bool = False) -> str | None:
        if self.fountain and not glued and re.match(r"^\.[A-Za-z0-9]", line):
            return _clean(_SCENE_NUMBER.sub("", line[1:]), True)
        bare = _MARGIN_NUMBER.sub("", line) if self.typed else line
        if not HEADING.match(bare):
            return None
        return _clean(_SCENE_NUMBER.sub("", bare), self.fountain)

    def _is_cue(self, i: int, j: int) -> bool:
        line = self.lines[i].strip()
        if self.fountain and line.startswith("@"):
            return len(line) > 1
        if self._heading(line, glued=True) is not None or TRANSITION.match(line):
            return False
        if self.fountain and (line[:1] in "!.>~=#[" or _CENTERED.match(line)):
            return False
        name = EXTENSION.sub("", line.rstrip("^").rstrip() if self.fountain else line).strip()
        if not name or len(name) > 50 or not _NAME.fullmatch(name):
            return False
        return not self.layout or _indent(self.lines[i]) > _indent(self.lines[j])

    def _speech(self, block: list[int]) -> None:
        cue, rest = block[0], block[1:]
        spoken: list[str] = []
        used = [cue]
        base: int | None = None
        in_paren = False
        for n, i in enumerate(rest):
            line = self.lines[i].strip()
            if in_paren or (line.startswith("(") and not spoken_only(line)):
                in_paren = self.layout and not line.endswith(")")  # typed wrylies wrap
                used.append(i)
                continue
            indent = _indent(self.lines[i])
            if self.layout and base is not None and line and indent < base - 2:
                self._finish_speech(cue, used, spoken, base)
                self._block(rest[n:])
                return
            base = indent if base is None and line else base
            if self.fountain and line.startswith("~"):
                line = line[1:]
            spoken.append(_clean(line, self.fountain))
            used.append(i)
        self._finish_speech(cue, used, spoken, base or 0)

    def _finish_speech(self, cue: int, used: list[int], spoken: list[str], base: int) -> None:
        said = " ".join(" ".join(spoken).split())
        name = speaker_name(self.lines[cue], self.spelled)
        if not said:  # a cue with only a wryly: nothing is said
            text = " ".join(self._text(i) for i in used)
            self._add("action", used, " ".join(text.split()))
            return
        self._add(
            "dialogue",
            used,
            said,
            speaker=name,
            indent=base,
            cue_indent=_indent(self.lines[cue]),
        )

    # --- typed layout: speeches across page breaks ------------------------------------------

    def _orphans(self) -> None:
        """Speech-indented text with no cue: the rest of the speech above it, else unaccounted."""
        speeches = [p for p in self.pieces if p.kind == "dialogue"]
        actions = [p for p in self.pieces if p.kind == "action"]
        if not (self.layout and speeches and actions):
            return
        speech = statistics.median(p.indent for p in speeches)
        cue = statistics.median(p.cue_indent for p in speeches)
        action = min(p.indent for p in actions)  # action is the leftmost text of a page
        if speech - action < 4:
            return
        kept: list[_Piece] = []
        started = False  # the script proper starts at its first heading, transition or cue
        for piece in self.pieces:
            lines = [_indent(self.lines[i]) for i in piece.lines]
            started = started or piece.kind in ("heading", "transition", "dialogue")
            if piece.kind == "action" and not started and min(lines) >= speech - 2:
                for i in piece.lines:  # a typed title page: centred lines before the script
                    self.marks[i] = ("skipped", "title page")
                self.typed_title = self.typed_title or piece.text  # its first block
            elif not (piece.kind == "action" and all(speech - 2 <= x < cue - 2 for x in lines)):
                kept.append(piece)
            elif kept and kept[-1].kind == "dialogue":
                kept[-1].text += " " + piece.text
                kept[-1].lines += piece.lines
                kept[-1].more = piece.more
                for i in piece.lines:
                    self.marks[i] = ("used", "dialogue")
            else:
                for i in piece.lines:
                    self.marks[i] = ("unaccounted", NO_CUE)
        self.pieces = kept

    def _continued(self) -> None:
        """A speech followed by "(MORE)" and the same speaker's next speech: one speech."""
        merged: list[_Piece] = []
        for piece in self.pieces:
            last = merged[-1] if merged else None
            if (
                last is not None
                and last.more
                and piece.kind == last.kind == "dialogue"
                and piece.speaker == last.speaker
            ):
                last.text += " " + piece.text
                last.lines += piece.lines
                last.more = piece.more
            else:
                merged.append(piece)
        self.pieces = merged

    def elements(self) -> list[Element]:
        return [Element(p.kind, p.text, p.speaker) for p in self.pieces]


def spoken_only(line: str) -> bool:
    """A line starting with "(" that is speech, not a wryly: it has text after the ")"."""
    close = line.find(")")
    return close != -1 and bool(line[close + 1 :].strip())


def _note_line(line: str) -> str | None:
    if re.fullmatch(r"={3,}", line):
        return "page break"
    if line.startswith("#"):
        return "section"
    if line.startswith("=") and not line.startswith("=="):
        return "synopsis"
    return None


def _line_at(starts: list[int], offset: int) -> int:
    lo, hi = 0, len(starts) - 1
    while lo < hi - 1:
        mid = (lo + hi) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid
    return lo


def _clean(text: str, fountain: bool) -> str:
    if fountain:
        previous = None
        while previous != text:  # nested emphasis: ***bold italic***, _*underlined italic*_
            previous, text = text, _EMPHASIS.sub(r"\2", text)
        text = _ESCAPE.sub(r"\1", text)
    return " ".join(text.split())


@dataclass(frozen=True)
class Reading:
    """What the reader made of one script's text."""

    title: str | None
    format: Format
    elements: tuple[Element, ...]
    account: LineAccount


def read_lines(lines: list[str], fmt: Format, markup: list[bool] | None = None) -> Reading:
    """Read a script's lines in its format; `markup[i]`: line i is an HTML page's markup only."""
    reader = _Reader(lines, fmt, markup)
    reader.read()
    if fmt == "text" and reader.title:
        fmt = "fountain"  # a title page is Fountain's
    title = reader.title or reader.typed_title
    return Reading(title, fmt, tuple(reader.elements()), LineAccount.of(reader.marks))
