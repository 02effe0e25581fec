"""Bad data: every malformed dataset variant fails fast, before any model call, with one clear
message naming the file, the line, the record (`sample_idx`) and the field.

Variants are built from a valid three-record file (demo scenes 101-103); each breaks record 102
on line 2, or the file itself. The task is built in-process (that is where data is loaded); a few
variants also go through the `inspect` CLI to check what a user sees.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.samples import demo_path
from agentsense.sense.dataset.validation import DatasetError
from agentsense.standin.stub import StubServer
from agentsense.standin.stub.harness import InspectCLI
from agentsense.tasks import full

Record = dict[str, Any]
LINES = demo_path().read_text(encoding="utf-8").splitlines()[:3]
RECORDS: list[Record] = [json.loads(line) for line in LINES]
ANN, BOB = (c["name"] for c in RECORDS[1]["characters"])  # SofiaMarquez, RobertoMarquez


def char(record: Record, i: int = 0) -> Record:
    return record["characters"][i]  # type: ignore[no-any-return]


def goal(record: Record) -> Record:
    return char(record)["goals"][0]  # type: ignore[no-any-return]


def mcq(record: Record) -> Record:
    return char(record)["info_reason_questions"][0]  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Variant:
    """A broken record 102 (`edit`), or a whole broken file (`raw`), and what the error must say."""

    name: str
    field: str | None  # the field path the message must name (None: a whole-line problem)
    edit: Callable[[Record], Any] | None = None
    raw: bytes | None = None
    line: int | None = 2
    record: bool = True  # whether the record can be named (its sample_idx is readable)
    problems: int = 1  # how many problems the message lists (the first is the one checked)
    says: str = ""  # a further fragment the message must hold


def drop(key: str, where: Callable[[Record], Record] = lambda r: r) -> Callable[[Record], None]:
    return lambda r: where(r).pop(key)


def put(
    key: str, value: Any, where: Callable[[Record], Record] = lambda r: r
) -> Callable[[Record], None]:
    return lambda r: where(r).__setitem__(key, copy.deepcopy(value))


def questions(r: Record) -> Record:
    return goal(r)["eval_questions"]  # type: ignore[no-any-return]


def good_file(middle: str | None = None) -> bytes:
    lines = [LINES[0], middle if middle is not None else LINES[1], LINES[2]]
    return ("\n".join(lines) + "\n").encode()


VARIANTS = [
    Variant("missing sample_idx", "sample_idx", drop("sample_idx"), record=False, says="missing"),
    Variant("missing template_idx", "template_idx", drop("template_idx"), says="missing"),
    Variant("missing background", "background", drop("background"), says="missing"),
    Variant("missing description", "description", drop("description"), says="missing"),
    Variant("null background", "background", put("background", None), says="found null;"),
    Variant("sample_idx is a list", "sample_idx", put("sample_idx", [102]), record=False),
    Variant("missing characters", "characters", drop("characters"), says="missing"),
    Variant("characters is a string", "characters", put("characters", "SofiaMarquez")),
    Variant("only one character", "characters", lambda r: r["characters"].pop(), says="2"),
    Variant("character without name", "characters[0].name", drop("name", char), says="missing"),
    Variant("character name is a number", "characters[0].name", put("name", 7, char)),
    Variant("character name with a newline", "characters[0].name", put("name", "Sofia\nM", char)),
    Variant(
        "character name with spaces around", "characters[0].name", put("name", " Sofia ", char)
    ),
    Variant(
        "duplicate character names",
        "characters[].name",
        lambda r: r["characters"].append(copy.deepcopy(char(r, 1))),
        says=f"'{BOB}' 2 times",
    ),
    Variant("missing profile", "characters[0].profile", drop("profile", char), says="missing"),
    Variant("missing goals", "characters[0].goals", drop("goals", char), says="missing"),
    Variant("empty goals", "characters[0].goals", put("goals", [], char), says="at least 1"),
    Variant("empty goal text", "characters[0].goals[0].goal", put("goal", "", goal)),
    Variant("goal is a number", "characters[0].goals[0].goal", put("goal", 3, goal)),
    Variant(
        "duplicate goals",
        "characters[0].goals",
        lambda r: char(r)["goals"].__setitem__(1, copy.deepcopy(goal(r))),
        says="2 times",
    ),
    Variant(
        "missing eval_questions",
        "characters[0].goals[0].eval_questions",
        drop("eval_questions", goal),
        says="missing",
    ),
    Variant(
        "missing self questions",
        "characters[0].goals[0].eval_questions.self",
        drop("self", questions),
        says="missing",
    ),
    Variant(
        "unknown question kind",
        "characters[0].goals[0].eval_questions.judges",
        put("judges", [], questions),
        says="self, others and judge",
    ),
    Variant(
        "no questions at all",
        "characters[0].goals[0].eval_questions",
        lambda r: goal(r).__setitem__("eval_questions", {"self": [], "others": [], "judge": []}),
        says="no questions",
    ),
    Variant(
        "unknown self obj",
        "characters[0].goals[0].eval_questions.self[0].obj",
        lambda r: questions(r)["self"][0].__setitem__("obj", "Nobody"),
        says="'Nobody'",
    ),
    Variant(
        "unknown others obj",
        "characters[0].goals[0].eval_questions.others[0].obj",
        lambda r: questions(r)["others"][0].__setitem__("obj", "judge"),
        says="'judge'",
    ),
    Variant(
        "empty question",
        "characters[0].goals[0].eval_questions.judge[0].question",
        lambda r: questions(r)["judge"][0].__setitem__("question", ""),
    ),
    Variant(
        "question list of two",
        "characters[0].goals[0].eval_questions.self[0].question",
        lambda r: questions(r)["self"][0].__setitem__("question", ["a?", "b?"]),
        says="2 items",
    ),
    Variant(
        "answer_label out of range",
        "characters[0].info_reason_questions[0].answer_label",
        put("answer_label", 4, mcq),
        says="0..3",
    ),
    Variant(
        "negative answer_label",
        "characters[0].info_reason_questions[0].answer_label",
        put("answer_label", -1, mcq),
        says="0..3",
    ),
    Variant(
        "answer_label is a letter",
        "characters[0].info_reason_questions[0].answer_label",
        put("answer_label", "B", mcq),
        says="'B'",
    ),
    Variant(
        "answer_label is a boolean",
        "characters[0].info_reason_questions[0].answer_label",
        put("answer_label", True, mcq),
        says="boolean",
    ),
    Variant(
        "missing answer_label",
        "characters[0].info_reason_questions[0].answer_label",
        drop("answer_label", mcq),
        says="missing",
    ),
    Variant(
        "one option only",
        "characters[0].info_reason_questions[0].options",
        lambda r: mcq(r).update(options=["Only one."], answer_label=0),
        says="at least 2",
    ),
    Variant(
        "options is a string",
        "characters[0].info_reason_questions[0].options",
        put("options", "A; B; C", mcq),
    ),
    Variant(
        "missing MCQ question",
        "characters[0].info_reason_questions[0].question",
        drop("question", mcq),
        says="missing",
    ),
    Variant(
        "secret is a list", "characters[0].private_info", put("private_info", ["a", "b"], char)
    ),
    Variant("role of an unknown character", "roles.Nobody", put("roles", {"Nobody": "sender"})),
    Variant("role not sender/receiver", f"roles.{ANN}", put("roles", {ANN: "boss"})),
    Variant(
        "speaker_order without start_speaker",
        "speaker_order",
        put("speaker_order", [ANN, BOB] * 7),
        says="both fields",
    ),
    Variant(
        "speaker twice in a row",
        "speaker_order",
        lambda r: r.update(start_speaker=ANN, speaker_order=[ANN, BOB] * 7),
        says="twice",
    ),
    Variant(
        "duplicate sample_idx",
        "sample_idx",
        put("sample_idx", RECORDS[0]["sample_idx"]),
        says="already used on line 1",
    ),
    Variant(
        "invalid JSON line", None, raw=good_file(LINES[1][:-40]), record=False, says="invalid JSON"
    ),
    Variant("JSON array line", None, raw=good_file("[1, 2, 3]"), record=False, says="JSON list"),
    Variant("JSON string line", None, raw=good_file('"a scene"'), record=False, says="JSON str"),
    Variant(
        "not UTF-8",
        None,
        raw=good_file().replace(b"Sofia", b"S\xf6fia", 1),
        record=False,
        says="not UTF-8",
    ),
    Variant(
        "UTF-16 file",
        None,
        raw=good_file().decode().encode("utf-16"),
        line=None,
        record=False,
        says="UTF-16",
    ),
    Variant("empty file", None, raw=b"", line=None, record=False, says="empty"),
    Variant("blank lines only", None, raw=b"\n  \n\t\n", line=None, record=False, says="empty"),
]


def write_variant(variant: Variant, folder: Path) -> Path:
    path = folder / f"{variant.name.replace(' ', '_').replace('/', '-')}.jsonl"
    if variant.raw is not None:
        path.write_bytes(variant.raw)
        return path
    broken = copy.deepcopy(RECORDS[1])
    assert variant.edit is not None
    variant.edit(broken)
    path.write_bytes(good_file(json.dumps(broken, ensure_ascii=False)))
    return path


def load_error(path: Path) -> tuple[DatasetError, float]:
    start = time.perf_counter()
    with pytest.raises(DatasetError) as caught:
        full(dataset=str(path))
    return caught.value, time.perf_counter() - start


def test_there_are_enough_variants() -> None:
    assert len(VARIANTS) >= 30 and len({v.name for v in VARIANTS}) == len(VARIANTS)


def test_the_base_file_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "good.jsonl"
    path.write_bytes(good_file())
    assert len(full(dataset=str(path)).dataset) == 3


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_bad_data_fails_fast_with_one_clear_message(variant: Variant, tmp_path: Path) -> None:
    path = write_variant(variant, tmp_path)
    error, seconds = load_error(path)
    message = str(error)
    print(f"\n[{variant.name}] {seconds * 1000:.0f} ms\n{message}")
    assert isinstance(error, PrerequisiteError)  # Inspect shows it as a message, not a traceback
    assert len(error.problems) == variant.problems, message  # one defect, one problem listed
    problem = error.problems[0]
    where = f"{path}:{variant.line}" if variant.line is not None else str(path)
    assert where in message
    if variant.record:
        assert problem.sample_idx == 102 or variant.name == "duplicate sample_idx"
        assert f"(sample_idx={problem.sample_idx})" in message
    if variant.field is not None:
        assert problem.field == variant.field and f"field `{variant.field}`" in message
    assert variant.says in message
    assert "-T dataset=demo" in message  # and what to do about it


def test_all_problems_of_a_file_come_in_one_message(tmp_path: Path) -> None:
    broken = copy.deepcopy(RECORDS[1])
    mcq(broken)["answer_label"] = 9
    char(broken, 1).pop("profile")
    first = copy.deepcopy(RECORDS[0])
    first["characters"][0]["goals"] = []
    path = tmp_path / "many.jsonl"
    lines = [json.dumps(first), json.dumps(broken), LINES[2], "{oops"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    error, _ = load_error(path)
    # Cross-field checks (the answer label) run once a record has the right shape.
    assert [(p.line, p.field) for p in error.problems] == [
        (1, "characters[0].goals"),
        (2, "characters[1].profile"),
        (4, ""),
    ]
    assert "3 problems" in str(error)


CLI_VARIANTS = ["unknown self obj", "invalid JSON line", "not UTF-8"]


@pytest.mark.parametrize("name", CLI_VARIANTS)
def test_eval_reports_bad_data_before_any_model_call(
    name: str, stub: StubServer, log_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`inspect_ai.eval` (what `inspect eval` calls) against the stub: refused, no request."""
    from inspect_ai import eval as inspect_eval

    monkeypatch.setenv("VLLM_BASE_URL", stub.base_url)
    variant = next(v for v in VARIANTS if v.name == name)
    path = write_variant(variant, tmp_path)
    with pytest.raises(PrerequisiteError) as raised:
        inspect_eval(
            "agentsense/full",
            task_args={"dataset": str(path)},
            model="vllm/agent",
            log_dir=str(log_dir),
            display="none",
        )
    message = str(raised.value.message)
    assert f"{path}:{variant.line}" in message and variant.says in message
    assert stub.records == [] and list(log_dir.iterdir()) == []


@pytest.mark.slow
def test_cli_reports_bad_data_before_any_model_call(
    stub: StubServer, inspect_cli: InspectCLI, tmp_path: Path
) -> None:
    """The real `inspect eval`: exit status 1, the message, no traceback, no request, no log."""
    variant = next(v for v in VARIANTS if v.name == "not UTF-8")
    path = write_variant(variant, tmp_path)
    result = inspect_cli.run(
        [
            "eval",
            "agentsense/full",
            "-T",
            f"dataset={path}",
            "--model",
            "vllm/agent",
            "--display",
            "plain",
        ],
        env={"VLLM_BASE_URL": stub.base_url},
    )
    print(
        f"\n[{variant.name}] inspect exit {result.returncode} after {result.seconds:.1f} s "
        f"(interpreter start-up included), {len(stub.records)} model requests"
    )
    assert result.returncode == 1
    assert f"{path}:{variant.line}" in result.output and variant.says in result.output
    assert "Traceback" not in result.output
    assert stub.records == [] and inspect_cli.eval_logs() == []
