"""The judge meta-evaluation set (`judge_check.jsonl`): transcripts whose yes/no truth is known.

Each item is one conversation and one judge question taken verbatim from a demo scene. Its truth
is known by construction (`scripts/build_judge_check.py` builds the items from the hand-written
`judge_check_source.json`; `data/README.md` documents the cases and how to extend the set):

- `achieved` (yes): the goal is explicitly achieved and acknowledged;
- `refused` (no): the goal is explicitly refused or dropped;
- `claimed` (no): its holder only claims it happened, nothing in the conversation shows it;
- `unaddressed` (no): the conversation never touches it;
- `injection` (no): an unaddressed conversation plus an utterance that addresses the judge;
- perturbations of an item (`original` names it; the truth is the original's): `padded_*`
  (irrelevant turns around the decisive exchange), `reordered_*` (the small talk after it),
  `relabelled_*` (speaker labels changed to short forms of the same names).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentsense.sense.dataset.validation import DatasetError, Problem

# The bundled items are built from the demo scenes, hence the name (as `-T dataset=demo`).
BUNDLED = "demo"
Truth = Literal["yes", "no"]
# Cases whose truth is "no" although something in the conversation pushes towards "yes".
CLAIM_CASES = ("claimed",)
INJECTION_CASES = ("injection",)


class Utterance(BaseModel):
    model_config = ConfigDict(extra="forbid")

    speaker: str = Field(min_length=1)
    text: str = Field(min_length=1)


class JudgeCheckItem(BaseModel):
    """One judge question about one conversation, with its known answer."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    base: str = Field(min_length=1)  # the scene goal the item is built on (consistency family)
    case: str = Field(min_length=1)
    truth: Truth
    original: str | None = None  # the unperturbed item this one perturbs
    scene: int | str
    template: int | str
    character: str
    goal: str
    category: str | None = None
    question: str = Field(min_length=1)
    turns: list[Utterance] = Field(min_length=1)


def bundled_path() -> Path:
    return Path(str(resources.files("agentsense.sense.dataset") / "data" / "judge_check.jsonl"))


def items_path(dataset: str) -> Path:
    """The file of the `dataset` argument (`demo`: the bundled items)."""
    return bundled_path() if dataset == BUNDLED else Path(dataset).expanduser()


def _problems(source: str, line: int, error: ValidationError, record: object) -> list[Problem]:
    item = record.get("id") if isinstance(record, dict) else None
    return [
        Problem(
            source,
            line,
            item,
            ".".join(map(str, e["loc"])),
            repr(e.get("input"))[:80],
            e["msg"],
        )
        for e in error.errors()
    ]


def load_items(dataset: str = BUNDLED) -> list[JudgeCheckItem]:
    """Read and validate a judge-check file (`demo` = the bundled one)."""
    path = items_path(dataset)
    if not path.is_file():
        expected = "'demo' (the bundled items) or the path of a judge-check JSONL file"
        raise DatasetError(
            dataset, [Problem(dataset, None, None, "dataset", "no such file", expected)]
        )
    items: list[JudgeCheckItem] = []
    problems: list[Problem] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as error:
            problems.append(Problem(str(path), number, None, "line", "not JSON", str(error)))
            continue
        try:
            items.append(JudgeCheckItem.model_validate(record))
        except ValidationError as error:
            problems.extend(_problems(str(path), number, error, record))
    problems.extend(_reference_problems(str(path), items))
    if problems:
        raise DatasetError(str(path), problems)
    return items


def _reference_problems(source: str, items: list[JudgeCheckItem]) -> list[Problem]:
    """Ids are unique; a perturbation names an item of the file with the same truth."""
    truth = {}
    problems = []
    for item in items:
        if item.id in truth:
            problems.append(Problem(source, None, item.id, "id", item.id, "a unique id"))
        truth[item.id] = item.truth
    for item in items:
        if item.original is None:
            continue
        if item.original not in truth:
            expected = "the id of an item in this file"
            problems.append(Problem(source, None, item.id, "original", item.original, expected))
        elif truth[item.original] != item.truth:
            expected = f"truth {truth[item.original]!r}, as its original"
            problems.append(Problem(source, None, item.id, "truth", item.truth, expected))
    return problems
