"""The errors shared by several layers: bad user input, for a task or for a command.

`PrerequisiteError`: bad input to a task (task arguments, data files, model args, missing extras).

Inspect's CLI prints a `PrerequisiteError` as its message alone, without a traceback, which is
what a user who mistyped `-T seed=abc` should see. Inspect exports no public exception with that
behaviour, so the class is taken from its private module here, in this one place; everything else
imports it from `agentsense.engine.errors`. If Inspect moves it, only this import changes.
"""

from inspect_ai._util.error import (  # inspect-evals-lint: ignore[private_api_imports] -- see above
    PrerequisiteError,
)

__all__ = ["PrerequisiteError", "ReportError"]


class ReportError(Exception):
    """Bad input to `agentsense report`, `compare` or a construction export (paths, logs,
    settings): the CLI prints the message and exits with status 2."""
