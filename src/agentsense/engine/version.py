"""The eval's version, read from `eval.yaml`: the one place it is declared.

`"<number>-<letter>"` (e.g. `"1-B"`) is inspect_evals' comparability interface: the number
changes when scores stop being comparable with earlier runs (prompts, data, scoring), the letter
when only the task interface changes (arguments, log layout). Every task passes the number as
`Task(version=...)` and both parts in its metadata (`versioned`).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

VERSION_PATTERN = re.compile(r"^(?P<comparability>\d+)-(?P<interface>[A-Z]+)$")


class EvalVersion(BaseModel):
    model_config = ConfigDict(frozen=True)

    comparability_version: int
    interface_version: str

    @classmethod
    def parse(cls, text: str) -> EvalVersion:
        match = VERSION_PATTERN.match(text)
        if match is None:
            raise ValueError(f"eval.yaml: version {text!r} is not of the form '<number>-<letter>'")
        return cls(
            comparability_version=int(match["comparability"]),
            interface_version=match["interface"],
        )

    def __str__(self) -> str:
        return f"{self.comparability_version}-{self.interface_version}"


def eval_metadata() -> dict[str, Any]:
    """The parsed `eval.yaml` shipped inside the package."""
    text = (resources.files("agentsense") / "eval.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


@cache
def eval_version() -> EvalVersion:
    return EvalVersion.parse(str(eval_metadata()["version"]))


def versioned(metadata: dict[str, Any]) -> dict[str, Any]:
    """The `Task` arguments `version` and `metadata`: the comparability number, and `metadata`
    with the whole version (`eval_version`) added."""
    version = eval_version()
    return {
        "version": version.comparability_version,
        "metadata": {**metadata, "eval_version": str(version)},
    }
