"""What the `agentsense` commands print fits an 80-column console, every name whole.

Markdown tables stay in the files the commands write; on the console a table becomes one block
per row (`blocks`): the row's name, then its cells as `header value` pairs, wrapped at spaces.
A word is never broken, so a name or a number is always whole (a single word longer than the
line, such as a long log file name, gets a line of its own).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

WIDTH = 80
INDENT = "  "


# A short quoted or backquoted span ("<evaluated model>", `agentsense annotate`) is one name:
# kept on one line. NBSP is not whitespace to textwrap, so the span wraps as one word.
QUOTED = re.compile(r'"[^"\n]{1,40}"|`[^`\n]{1,40}`')
NBSP = "\u00a0"


def wrapped(text: str, prefix: str = "", indent: str = INDENT) -> str:
    """`prefix + text` wrapped at WIDTH, continuation lines indented; words never broken."""
    joined = QUOTED.sub(lambda span: span.group().replace(" ", NBSP), text)
    return textwrap.fill(
        joined,
        WIDTH,
        initial_indent=prefix,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    ).replace(NBSP, " ")


def blocks(head: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A table as one block per row: its first cell, then `header: value` of the others (each
    pair kept on one line when it fits), blocks separated by a blank line."""
    shown = []
    for row in rows:
        pairs = [f"{name}: {value}" for name, value in zip(head[1:], row[1:], strict=True)]
        lines = [str(row[0])]
        for pair in pairs:
            last = lines[-1].rsplit("\n", 1)[-1]
            if len(lines) > 1 and len(last) + len(pair) + 2 <= WIDTH:
                lines[-1] += f"; {pair}"
            else:
                lines.append(wrapped(pair, INDENT, INDENT * 2))
        shown.append("\n".join(lines))
    return "\n\n".join(shown)
