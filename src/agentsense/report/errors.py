"""The one error type of `agentsense report` and `agentsense compare`: a message for the user."""

from __future__ import annotations


class ReportError(Exception):
    """Bad input (paths, logs, settings): the CLI prints the message and exits with status 2."""
