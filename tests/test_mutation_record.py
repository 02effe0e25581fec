"""docs/testing.md's mutation figures describe the code: the measured run records the sha256 of
every file mutmut mutates, and a file that differs means the figures (and the equivalent mutants'
names, which move when a function changes) are of other code."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import ModuleType

import pytest

from file_modules import file_module

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "testing.md"


def mutation_table() -> ModuleType:
    """scripts/mutation_table.py, the one writer and reader of the measured run."""
    return file_module(ROOT / "scripts" / "mutation_table.py", "mutation_table")


def test_the_mutation_figures_are_of_the_files_as_they_are() -> None:
    script = mutation_table()
    text = DOCS.read_text(encoding="utf-8")
    assert text.count(script.BEGIN) == 1 and text.count(script.END) == 1
    stale = script.stale_files(text)
    assert not stale, (
        "docs/testing.md's mutation figures are of other code:\n  "
        + "\n  ".join(stale)
        + f"\nRerun `{script.RERUN}` (9-11 minutes on 2 cores), list any new equivalent "
        "mutant under 'Equivalent mutants' by its new name, and commit docs/testing.md."
    )


def test_a_changed_or_unrecorded_file_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    script = mutation_table()
    text = DOCS.read_text(encoding="utf-8")
    first, second, *_ = script.mutated_files()
    recorded = script.recorded_hashes(text)
    assert set(recorded) == set(script.mutated_files())
    digest = hashlib.sha256((ROOT / first).read_bytes() + b"\n# an edit\n").hexdigest()
    monkeypatch.setattr(
        script, "sha256_of", lambda path: digest if path == first else recorded[path]
    )
    without_second = text.replace(f"| `{second}` |", "| `elsewhere.py` |")
    assert script.stale_files(without_second) == [
        f"{first}: changed since the measured run (commit {commit_of(text)})",
        f"{second}: mutated but not in the measured run (commit {commit_of(text)})",
        f"elsewhere.py: in the measured run (commit {commit_of(text)}) but no longer mutated",
    ]


def commit_of(text: str) -> str:
    return text.split("Measured at commit `", 1)[1].split("`", 1)[0]
