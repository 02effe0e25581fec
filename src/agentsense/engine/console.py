"""AgentSense's warnings on the console, at the console's full width.

Inspect's log handler lays each record out in columns (time, level, message, file:line), which
leaves a message about 30 of 80 columns: a warning of a few sentences took 20 lines. These warnings
go to a logger of their own, `agentsense.engine.console`, whose handler writes the level and the
message wrapped at the terminal's width (`COLUMNS` first) to stderr. The logger does not propagate
(Inspect's handler would print it again, in its column), and its level is the root logger's, which
Inspect sets from `--log-level`: `--log-level error` silences these too.

What the `agentsense` commands print fits 80 columns, every name whole (`wrapped`, `blocks`):
Markdown tables stay in the files the commands write; on the console a table becomes one block
per row, its cells as `header: value` pairs, wrapped at spaces. A word is never broken, nor a
short quoted or backquoted name; a single word longer than the line gets a line of its own.
"""

from __future__ import annotations

import logging
import re
import shutil
import sys
import textwrap
from collections.abc import Sequence

NAME = "agentsense.engine.console"
LEVEL_WIDTH = 9  # "WARNING  ", as Inspect's own lines begin


class WrappingHandler(logging.Handler):
    """`LEVEL    message` on stderr, wrapped at the terminal's width under the message's first
    column (stderr looked up per record: Inspect's display and pytest replace it)."""

    def format(self, record: logging.LogRecord) -> str:
        width = max(shutil.get_terminal_size().columns, LEVEL_WIDTH + 20)
        return textwrap.fill(
            record.getMessage(),
            width=width,
            initial_indent=record.levelname.ljust(LEVEL_WIDTH),
            subsequent_indent=" " * LEVEL_WIDTH,
            break_on_hyphens=False,
            break_long_words=False,
        )

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


def console_logger() -> logging.Logger:
    logger = logging.getLogger(NAME)
    if not logger.handlers:
        logger.addHandler(WrappingHandler())
        logger.propagate = False
    return logger


def warn(message: str) -> None:
    console_logger().warning(message)


# --- the commands' own output, at 80 columns ---------------------------------------------------

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
