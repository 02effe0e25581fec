"""Read a scenario JSONL file and report every bad record at once.

Each problem names the file, the line, the record's `sample_idx`, the field path, what was found
and what was expected, so a user can fix a file in one pass instead of one error per run.

Scenes checked against the protocol settings of a run, before any model call.

A scene can be valid on its own (`validation.py`) and still not fit a run: a recorded speaker
order must have one speaker per model turn of `max_messages`, and every MCQ option needs a label
under the chosen option mark.
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentsense.engine.errors import MAX_REPORTED, PrerequisiteError
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.prompts import OPTION_MARKS
from agentsense.sense.protocol import Protocol

# The keys that tell a record of each schema apart, and the tasks each schema fits.
SCHEMA_KEYS = {"agentsense": ("sample_idx", "characters"), "coser": ("book", "i_p", "i_c")}


FITS = {
    "agentsense": "AgentSense scenarios, which fit agentsense/goal, info, full, blind, "
    "labelling and script_prediction (and pairwise once their roles are labelled)",
    "coser": "CoSER scenes, which fit agentsense/gca (not this task)",
}


def to_jsonl(file: str) -> str:
    """The commands that turn a JSON array file into JSON Lines."""
    source, target = shlex.quote(file), shlex.quote(str(Path(file).with_suffix(".jsonl")))
    return (
        f"jq -c '.[]' {source} > {target}, or python -c \"import json, sys; "
        f'[print(json.dumps(r)) for r in json.load(open(sys.argv[1]))]" {source} > {target}'
    )


def schema_of(record: Any) -> str | None:
    """'agentsense' or 'coser' when a record has the keys that identify that schema."""
    if not isinstance(record, dict):
        return None
    for schema, keys in SCHEMA_KEYS.items():
        if all(key in record for key in keys):
            return schema
    return None


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one record of a dataset file."""

    file: str
    line: int | None
    sample_idx: Any
    field: str
    found: str
    expected: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        record = f" (sample_idx={self.sample_idx})" if self.sample_idx is not None else ""
        field = f" field `{self.field}`:" if self.field else ""
        return f"{where}{record}:{field} found {self.found}; expected {self.expected}"


class DatasetError(PrerequisiteError):
    """A dataset file that cannot be used; `problems` lists what is wrong, record by record."""

    def __init__(self, path: str, problems: list[Problem]) -> None:
        self.path = path
        self.problems = problems
        shown = "\n".join(f"  - {problem}" for problem in problems[:MAX_REPORTED])
        more = len(problems) - MAX_REPORTED
        tail = f"\n  ... and {more} more" if more > 0 else ""
        noun = "problem" if len(problems) == 1 else "problems"
        super().__init__(
            f"Invalid AgentSense dataset {path}: {len(problems)} {noun}\n{shown}{tail}\n"
            "Fix the records listed (schema: README, 'Dataset'), or run on the bundled "
            "set with -T dataset=demo."
        )

    def __str__(self) -> str:
        return str(self.message)


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe_found(error: Any) -> str:
    if error["type"] == "missing":
        return "nothing (the field is missing)"
    value = error.get("input")
    if value is None:
        return "null"
    return f"{type(value).__name__} {_short(value)}"


# Pydantic names the member it tried for a union field (`sample_idx.int`, `sample_idx.str`);
# such tags are not fields of the record.
_UNION_TAG = re.compile(r"^(int|str|float|bool|none|[a-z-]+\[.*\])$")


def _record_loc(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    return tuple(part for part in loc if not (isinstance(part, str) and _UNION_TAG.match(part)))


def _schema_problems(
    file: str, line: int, raw: dict[str, Any], error: ValidationError
) -> list[Problem]:
    sample_idx = raw.get("sample_idx")
    merged: dict[str, tuple[str, list[str]]] = {}  # field -> (found, expected alternatives)
    for item in error.errors(include_url=False):
        expected = str(item["msg"]).removeprefix("Value error, ")
        if item["type"] == "missing":
            expected = "a value (required field)"
        elif item["type"] == "extra_forbidden":
            expected = "only the keys self, others and judge"
        field = _field_path(_record_loc(item["loc"]))
        _, alternatives = merged.setdefault(field, (_describe_found(item), []))
        alternatives.append(expected)
    return [
        Problem(file, line, sample_idx, field, found, " or ".join(dict.fromkeys(expected)))
        for field, (found, expected) in merged.items()
    ]


def check_order(names: Sequence[str], start: str, order: Sequence[str]) -> str | None:
    """Why a given (replayed) speaker order is not one the protocol could produce, or None."""
    known = set(names)
    previous = start
    for position, name in enumerate([start, *order]):
        if name not in known:
            return f"position {position}: {name!r} is not a character of the scene"
        if position > 0 and name == previous:
            return f"position {position}: {name!r} speaks twice in a row"
        previous = name
    return None


def _scene_problems(file: str, line: int, scenario: Scenario) -> list[Problem]:
    """Consistency checks that span fields: names, interviewees, labels, questions."""
    problems: list[Problem] = []

    def add(field: str, found: str, expected: str) -> None:
        problems.append(Problem(file, line, scenario.sample_idx, field, found, expected))

    names = scenario.names
    for name, count in Counter(names).items():
        if count > 1:
            add("characters[].name", f"{_short(name)} {count} times", "unique character names")
    known = set(names)
    for c, character in enumerate(scenario.characters):
        goal_texts = Counter(goal.goal for goal in character.goals)
        for text, count in goal_texts.items():
            if count > 1:
                add(
                    f"characters[{c}].goals",
                    f"the goal {_short(text)} {count} times",
                    "distinct goals per character",
                )
        for g, goal in enumerate(character.goals):
            base = f"characters[{c}].goals[{g}].eval_questions"
            if goal.eval_questions.count == 0:
                add(base, "no questions", "at least one self, others or judge question")
            for dim in ("self", "others"):
                entries = goal.eval_questions.self_ if dim == "self" else goal.eval_questions.others
                for q, entry in enumerate(entries):
                    if entry.obj not in known:
                        add(
                            f"{base}.{dim}[{q}].obj",
                            _short(entry.obj),
                            f"one of the scene's characters {sorted(known)}",
                        )
        for q, mcq in enumerate(character.info_reason_questions):
            base = f"characters[{c}].info_reason_questions[{q}]"
            n_options = len(mcq.options or [])
            if mcq.options is not None and n_options < 2:
                add(f"{base}.options", f"{n_options} options", "at least 2 options")
            if mcq.answer_label < 0 or (mcq.options is not None and mcq.answer_label >= n_options):
                add(
                    f"{base}.answer_label",
                    str(mcq.answer_label),
                    f"a 0-based index into the {n_options} options (0..{n_options - 1})"
                    if mcq.options is not None
                    else "a 0-based option index (0 or more)",
                )
    if scenario.speaker_order is not None or scenario.start_speaker is not None:
        if scenario.speaker_order is None or scenario.start_speaker is None:
            add(
                "speaker_order",
                "only one of start_speaker and speaker_order",
                "both fields, or neither",
            )
        else:
            reason = check_order(names, scenario.start_speaker, scenario.speaker_order)
            if reason:
                add(
                    "speaker_order", reason, "a start speaker and turns that never repeat a speaker"
                )
    if scenario.roles is not None:
        for name in scenario.roles:
            if name not in known:
                add(f"roles.{name}", _short(name), f"one of the scene's characters {sorted(known)}")
    return problems


def _decode(file: str, number: int, data: bytes) -> tuple[str | None, Problem | None]:
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as error:
        found = f"bytes that are not UTF-8 at column {error.start + 1}"
        return None, Problem(
            file, number, None, "", found, "UTF-8 text (re-save the file as UTF-8)"
        )


def _parse_line(file: str, number: int, text: str) -> tuple[dict[str, Any] | None, Problem | None]:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        found = f"invalid JSON ({error.msg} at column {error.colno})"
        return None, Problem(file, number, None, "", found, "one JSON object per line")
    if not isinstance(raw, dict):
        found = f"a JSON {type(raw).__name__}"
        return None, Problem(file, number, None, "", found, "a JSON object per line")
    return raw, None


def _array_problem(file: str, data: bytes) -> Problem | None:
    """A file that is one JSON array (pretty-printed or not) is one problem, not one per line."""
    if not data.lstrip().startswith(b"["):
        return None
    try:
        records = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        found = f"a file that starts with '[' but is not valid JSON either ({error})"
        return Problem(file, None, None, "", found, "JSON Lines: one JSON object per line")
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        return None  # not records in the wrong layout: the lines are reported as they are
    if records and schema_of(records[0]) == "coser":
        found = f"one JSON array of {len(records)} {FITS['coser']}"
        return Problem(file, None, None, "", found, "AgentSense scenarios (JSON Lines)")
    return Problem(
        file,
        None,
        None,
        "",
        f"one JSON array of {len(records)} records",
        f"JSON Lines, one scenario object per line; convert it with {to_jsonl(file)}",
    )


def _record_problem(file: str, number: int, raw: dict[str, Any]) -> Problem | None:
    """A CoSER record in an AgentSense dataset: name the task it fits."""
    if schema_of(raw) != "coser":
        return None
    found = "a record of " + FITS["coser"]
    return Problem(file, number, None, "", found, "an AgentSense scenario record")


def _file_error(file: str, found: str, expected: str) -> DatasetError:
    """A problem of the whole file, not of one record."""
    return DatasetError(file, [Problem(file, None, None, "", found, expected)])


def read_scenarios(path: str | Path) -> list[Scenario]:
    """Load and validate every record of a JSONL file; raise `DatasetError` listing all problems."""
    file = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise _file_error(
            file, f"an unreadable file ({error.strerror})", "a readable JSONL file"
        ) from None
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark is harmless
        data = data[3:]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # one clear message, not one per line
        raise _file_error(
            file, "a UTF-16 file (byte-order mark)", "UTF-8 text (re-save the file as UTF-8)"
        )
    array = _array_problem(file, data)
    if array is not None:
        raise DatasetError(file, [array])
    problems: list[Problem] = []
    scenarios: list[tuple[int, Scenario]] = []
    for number, chunk in enumerate(data.split(b"\n"), start=1):
        if not chunk.strip():
            continue
        text, problem = _decode(file, number, chunk)
        raw, problem = (None, problem) if text is None else _parse_line(file, number, text)
        if raw is not None:
            problem = _record_problem(file, number, raw)
        if raw is None or problem is not None:
            problems.append(problem)  # type: ignore[arg-type]
            continue
        try:
            scenario = Scenario.model_validate(raw)
        except ValidationError as error:
            problems.extend(_schema_problems(file, number, raw, error))
            continue
        problems.extend(_scene_problems(file, number, scenario))
        scenarios.append((number, scenario))
    if not scenarios and not problems:
        problems.append(
            Problem(
                file,
                None,
                None,
                "",
                "no records (the file is empty)",
                "one scenario record per line",
            )
        )
    seen: dict[str, int] = {}
    for number, scenario in scenarios:
        key = str(scenario.sample_idx)
        if key in seen:
            problems.append(
                Problem(
                    file,
                    number,
                    scenario.sample_idx,
                    "sample_idx",
                    f"{_short(scenario.sample_idx)}, already used on line {seen[key]}",
                    "a sample_idx unique in the file",
                )
            )
        else:
            seen[key] = number
    if problems:
        raise DatasetError(file, problems)
    return [scenario for _, scenario in scenarios]


def check_replay(scenes: list[Scenario], protocol: Protocol, source: str) -> list[Problem]:
    """A recorded speaker order must have exactly one speaker per model turn."""
    return [
        Problem(
            source,
            None,
            scene.sample_idx,
            "speaker_order",
            f"{len(scene.speaker_order)} speakers",
            f"{protocol.n_turns} (max_messages - 1), or drop the field for a random order",
        )
        for scene in scenes
        if scene.speaker_order is not None and len(scene.speaker_order) != protocol.n_turns
    ]


def check_option_marks(scenes: list[Scenario], protocol: Protocol, source: str) -> list[Problem]:
    """Every MCQ option needs a label under the option mark (`number` has nine, 1-9)."""
    marks = list(OPTION_MARKS) if protocol.option_mark == "all" else [protocol.option_mark]
    labels = min(len(OPTION_MARKS[mark]) for mark in marks)
    return [
        Problem(
            source,
            None,
            scene.sample_idx,
            f"characters[{c}].info_reason_questions[{q}].options",
            f"{len(item.options)} options",
            f"at most {labels}, the labels of option_mark={protocol.option_mark!r}",
        )
        for scene in scenes
        for c, character in enumerate(scene.characters)
        for q, item in enumerate(character.info_reason_questions)
        if item.options is not None and len(item.options) > labels
    ]
