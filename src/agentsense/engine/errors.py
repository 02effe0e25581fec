"""The errors shared by several layers: bad user input, for a task or for a command.

`PrerequisiteError`: bad input to a task (task arguments, data files, model args, missing extras);
`DataError`, one of them: a data file that cannot be used, with every bad record and field.

Inspect's CLI prints a `PrerequisiteError` as its message alone, without a traceback, which is
what a user who mistyped `-T seed=abc` should see. Inspect exports no public exception with that
behaviour, so the class is taken from its private module here, in this one place; everything else
imports it from `agentsense.engine.errors`. If Inspect moves it, only this import changes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai._util.error import (  # inspect-evals-lint: ignore[private_api_imports] -- see above
    PrerequisiteError,
)
from pydantic import BaseModel, ValidationError

__all__ = ["MAX_REPORTED", "DataError", "PrerequisiteError", "ReportError"]

# Stop listing after this many problems: the first screenful is what a user acts on.
MAX_REPORTED = 25


class ReportError(Exception):
    """Bad input to `agentsense report`, `compare` or a construction export (paths, logs,
    settings): the CLI prints the message and exits with status 2."""


class DataError(PrerequisiteError):
    """A data file that cannot be used; `problems` lists every bad record and field."""

    def __init__(self, source: str, message: str, problems: list[str] | None = None) -> None:
        self.source = source
        self.problems = problems or []
        shown = "".join(f"\n  - {line}" for line in self.problems[:MAX_REPORTED])
        more = len(self.problems) - MAX_REPORTED
        tail = f"\n  ... and {more} more" if more > 0 else ""
        super().__init__(f"{message}{shown}{tail}")

    def __str__(self) -> str:
        return str(self.message)  # not the constructor's arguments, as `Exception` would


def data_file(dataset: str, demo: Path, error: type[DataError], expected: str) -> Path:
    """The file `-T dataset=` names (`demo`: the bundled one), else `error`: the argument is
    neither `expected`."""
    if dataset == "demo":
        return demo
    path = Path(dataset).expanduser()
    if not path.is_file():
        raise error(dataset, f"-T dataset={dataset!r} is neither {expected}")
    return path


def field_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic error's location as a reader writes it: `plot.summary`, `agent_ids[1]`."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


def short_json(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def field_problems(
    label: str, model: type[BaseModel], raw: Any, missing: str = "missing"
) -> list[str]:
    """`LABEL: field `agent_ids`: ...` for every field of `raw` that `model` rejects."""
    if not isinstance(raw, dict):
        return [f"{label}: found {type(raw).__name__}; expected an object"]
    try:
        model.model_validate(raw)
    except ValidationError as error:
        return [
            f"{label}: field `{field_path(item['loc'])}`: "
            + (
                missing
                if item["type"] == "missing"
                else f"{item['msg']} (found {short_json(item.get('input'))})"
            )
            for item in error.errors(include_url=False)
        ]
    return []
