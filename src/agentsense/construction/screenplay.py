"""Reading a screenplay: Fountain 1.1 (fountain.io), plain text, or an IMSDb page as served.

The reader works line by line and marks every line it consumes, so that the script's line
account (`account.LineAccount`) says where each one went: into which element, or why it was
skipped. Rules by format:

- Fountain (`.fountain`, `.spmd`): the spec's elements and nothing else; indentation is not
  meaningful (except in action, which the reader does not need).
- Plain text (`.txt`, no suffix, ...): the Fountain rules, plus the page furniture of typed
  scripts ("(CONTINUED)", "(MORE)", page numbers, margin scene numbers) and, when the text is
  laid out with indentation as IMSDb serves it, the indentation of cues and speeches.
- HTML (`.html`, or text with `<pre>`/`<html>`): the page's script text (`imsdb.page_lines`),
  then the plain-text rules without Fountain's markup (IMSDb pages have none).

The element model (`Element`, `render`, `speakers`) is `script_elements.py`; the line reader that
applies these rules is `script_reader.py`.

A speech is one cue and what is said under it; parentheticals (wrylies) and cue extensions
(V.O., CONT'D) are not part of what is said. A speech continued over a page break ("(MORE)",
then the cue again with CONT'D, or the text without its cue) is one speech.

`screenplain` (PyPI) is the second opinion on Fountain in the tests; it has no line account and
no IMSDb rules, and reads lyrics and some layouts differently from the spec (see the test).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agentsense.construction.account import LineAccount
from agentsense.construction.imsdb import looks_like_html, page_lines
from agentsense.construction.script_elements import Element
from agentsense.construction.script_reader import Format, Reading, read_lines

FOUNTAIN_SUFFIXES = (".fountain", ".spmd")
HTML_SUFFIXES = (".html", ".htm")
SCRIPT_SUFFIXES = (".txt", ".text", *HTML_SUFFIXES, *FOUNTAIN_SUFFIXES, "")
EXPECTED = (
    "a screenplay in plain text (as IMSDb serves it) or Fountain: scene headings "
    "(INT./EXT.) and upper-case character cues, each followed by the character's lines"
)


class ScriptError(ValueError):
    """A file that cannot be read as a screenplay; the message is one line naming the file."""


@dataclass(frozen=True)
class Screenplay:
    path: str
    title: str
    format: Format
    elements: tuple[Element, ...]
    account: LineAccount = field(default_factory=LineAccount)

    @property
    def speeches(self) -> list[Element]:
        return [e for e in self.elements if e.kind == "dialogue"]


def script_format(text: str, name: str = "") -> Format:
    suffix = Path(name).suffix.lower()
    if suffix in FOUNTAIN_SUFFIXES:
        return "fountain"
    if suffix in HTML_SUFFIXES or looks_like_html(text):
        return "html"
    return "text"


def source_lines(text: str) -> list[str]:
    """The file's lines as an editor numbers them (\\r\\n, \\r and \\n end a line)."""
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def parse_script(text: str, name: str = "") -> Reading:
    """Read a script's text (its file name decides the format, else its content)."""
    fmt = script_format(text, name)
    lines = source_lines(text.removeprefix("\ufeff"))
    markup = None
    if fmt == "html":  # a line with text but none of it script text is the page's markup
        source = lines
        lines, script = page_lines(source)
        markup = [bool(r.strip()) and not s for r, s in zip(source, script, strict=True)]
    return read_lines(lines, fmt, markup)


def parse_text(text: str) -> tuple[str | None, list[Element]]:
    """Parse screenplay text into elements (and the Fountain title, if it has a title page)."""
    reading = parse_script(text)
    return reading.title, list(reading.elements)


def decode(path: Path, data: bytes) -> str:
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
    text = decode(path, data)
    if not text.strip():
        raise ScriptError(f"{path}: the file is empty; expected {EXPECTED}.")
    reading = parse_script(text, path.name)
    if not any(e.kind == "dialogue" for e in reading.elements):
        raise ScriptError(f"{path}: no character cue followed by dialogue; expected {EXPECTED}.")
    return Screenplay(
        str(path), reading.title or path.stem, reading.format, reading.elements, reading.account
    )


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
