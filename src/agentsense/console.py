"""AgentSense's warnings on the console, at the console's full width.

Inspect's log handler lays each record out in columns (time, level, message, file:line), which
leaves a message about 30 of 80 columns: a warning of a few sentences took 20 lines. These
warnings go to a logger of their own, `agentsense.console`, whose handler writes the level and
the message wrapped at the terminal's width (`COLUMNS` first) to stderr. The logger does not
propagate (Inspect's handler would print it again, in its column), and its level is the root
logger's, which Inspect sets from `--log-level`: `--log-level error` silences these too.
"""

from __future__ import annotations

import logging
import shutil
import sys
import textwrap

NAME = "agentsense.console"
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
