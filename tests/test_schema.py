"""The scenario record schema (docs/protocol.md §1.2) and every problem the validator reports.

Each invalid file must raise one `DatasetError` that lists every problem, each naming the file,
the line, the record's `sample_idx`, the field path, what was found and what was expected.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.samples import dataset_path, load_scenarios
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.dataset.validation import (
    MAX_REPORTED,
    DatasetError,
    Problem,
    read_scenarios,
)

# ---------------------------------------------------------------------------------------------
# A valid two-character record and helpers
# ---------------------------------------------------------------------------------------------


def record(sample_idx: Any = 1, template_idx: Any = 7) -> dict[str, Any]:
    """A minimal valid record: AliceGreene (secret, one MCQ) and BobSmith (no secret)."""
    return {
        "sample_idx": sample_idx,
        "template_idx": template_idx,
        "background": "BACKGROUND TEXT.",
        "description": "DESCRIPTION TEXT.",
        "characters": [
            {
                "name": "AliceGreene",
                "profile": "PROFILE_OF_AliceGreene.",
                "goals": [
                    {
                        "goal": "To goal1 of AliceGreene.",
                        "eval_questions": {
                            "self": [
                                {"obj": "AliceGreene", "question": "Self Q? Answer Yes or No."}
                            ],
                            "others": [
                                {"obj": "BobSmith", "question": "Other Q? Answer Yes or No."}
                            ],
                            "judge": [{"obj": "judge", "question": "Judge Q? Answer Yes or No."}],
                        },
                    }
                ],
                "private_info": "SECRET_OF_AliceGreene",
                "info_reason_questions": [
                    {
                        "question": "What is BobSmith hiding?",
                        "options": ["opt zero", "opt one", "opt two", "opt three"],
                        "answer_label": 1,
                    }
                ],
            },
            {
                "name": "BobSmith",
                "profile": "PROFILE_OF_BobSmith.",
                "goals": [
                    {
                        "goal": "To goal1 of BobSmith.",
                        "eval_questions": {
                            "self": [{"obj": "BobSmith", "question": "Bob self Q?"}],
                            "others": [{"obj": "AliceGreene", "question": "Bob other Q?"}],
                            "judge": [{"obj": "judge", "question": "Bob judge Q?"}],
                        },
                    }
                ],
                "private_info": "",
                "info_reason_questions": [],
            },
        ],
    }


def write_lines(tmp_path: Path, lines: list[str], name: str = "data.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def write_records(tmp_path: Path, *records: dict[str, Any]) -> Path:
    return write_lines(tmp_path, [json.dumps(r) for r in records])


def problems_of(path: Path) -> list[Problem]:
    with pytest.raises(DatasetError) as info:
        read_scenarios(path)
    return info.value.problems


def only_problem(path: Path) -> Problem:
    problems = problems_of(path)
    assert len(problems) == 1, problems
    return problems[0]


def problem_at(problems: list[Problem], field: str) -> Problem:
    matching = [p for p in problems if p.field == field]
    assert len(matching) == 1, (field, problems)
    return matching[0]


# ---------------------------------------------------------------------------------------------
# Valid variants
# ---------------------------------------------------------------------------------------------


def test_minimal_record_loads(tmp_path: Path) -> None:
    scenes = read_scenarios(write_records(tmp_path, record()))
    assert len(scenes) == 1
    scene = scenes[0]
    assert scene.sample_idx == 1
    assert scene.template_idx == 7
    assert scene.names == ["AliceGreene", "BobSmith"]
    alice = scene.character("AliceGreene")
    assert alice.secret == "SECRET_OF_AliceGreene"
    assert alice.goals[0].eval_questions.self_[0].question == "Self Q? Answer Yes or No."
    assert alice.info_reason_questions[0].answer_label == 1
    assert scene.has_mcq


def test_extra_fields_are_tolerated_at_every_level(tmp_path: Path) -> None:
    data = record()
    data["roles"] = {"AliceGreene": "sender", "BobSmith": "receiver"}
    data["unknown_top"] = {"x": 1}
    alice = data["characters"][0]
    alice["model"] = "gpt-4o"
    alice["base_url"] = "http://example.invalid"
    alice["goals"][0]["category"] = "Information Provision"
    alice["goals"][0]["note"] = "extra"
    alice["goals"][0]["eval_questions"]["self"][0]["comment"] = "extra"
    alice["info_reason_questions"][0]["explanation"] = "extra"
    scene = read_scenarios(write_records(tmp_path, data))[0]
    assert scene.roles == {"AliceGreene": "sender", "BobSmith": "receiver"}
    assert scene.characters[0].goals[0].category == "Information Provision"


@pytest.mark.parametrize("question", ["What now?", ["What now?"]])
def test_question_as_string_or_one_element_list(tmp_path: Path, question: Any) -> None:
    data = record()
    data["characters"][0]["goals"][0]["eval_questions"]["judge"][0]["question"] = question
    data["characters"][0]["goals"][0]["eval_questions"]["self"][0]["question"] = question
    scene = read_scenarios(write_records(tmp_path, data))[0]
    asked = scene.characters[0].goals[0].eval_questions
    assert asked.judge[0].question == "What now?"
    assert asked.self_[0].question == "What now?"


@pytest.mark.parametrize("label", [2, "2", " 2 "])
def test_answer_label_int_or_int_like_string(tmp_path: Path, label: Any) -> None:
    data = record()
    data["characters"][0]["info_reason_questions"][0]["answer_label"] = label
    scene = read_scenarios(write_records(tmp_path, data))[0]
    assert scene.characters[0].info_reason_questions[0].answer_label == 2


def test_profile_object_renders_like_python_str_of_dict(tmp_path: Path) -> None:
    data = record()
    data["characters"][0]["profile"] = {"age": 30, "job": "teacher", "traits": ["calm", "kind"]}
    scene = read_scenarios(write_records(tmp_path, data))[0]
    # str() of the dict, keys in JSON order (docs/protocol.md §1.2: safe_substitute calls str()).
    expected = "{'age': 30, 'job': 'teacher', 'traits': ['calm', 'kind']}"
    assert scene.characters[0].profile == expected
    # Deterministic: the same record renders the same way again.
    again = read_scenarios(write_records(tmp_path, data))[0]
    assert again.characters[0].profile == expected


@pytest.mark.parametrize("secret", [None, ""])
def test_private_info_null_or_empty_means_no_secret(tmp_path: Path, secret: str | None) -> None:
    data = record()
    data["characters"][0]["private_info"] = secret
    scene = read_scenarios(write_records(tmp_path, data))[0]
    assert scene.characters[0].secret == ""


def test_options_key_may_be_absent(tmp_path: Path) -> None:
    data = record()
    data["characters"][0]["info_reason_questions"][0] = {"question": "Q?", "answer_label": 0}
    scene = read_scenarios(write_records(tmp_path, data))[0]
    assert scene.characters[0].info_reason_questions[0].options is None


def test_string_ids_blank_lines_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    lines = [json.dumps(record("a-1", "t")), "", "   ", json.dumps(record("a-2", "t"))]
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode() + b"\n")
    scenes = read_scenarios(path)
    assert [s.sample_idx for s in scenes] == ["a-1", "a-2"]


def test_crlf_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b"\r\n".join(json.dumps(record(i)).encode() for i in (1, 2)) + b"\r\n")
    assert [s.sample_idx for s in read_scenarios(path)] == [1, 2]


def test_valid_replay_order_is_accepted(tmp_path: Path) -> None:
    data = record()
    data["start_speaker"] = "BobSmith"
    data["speaker_order"] = ["AliceGreene", "BobSmith", "AliceGreene"]
    scene = read_scenarios(write_records(tmp_path, data))[0]
    assert scene.start_speaker == "BobSmith"
    assert scene.speaker_order == ["AliceGreene", "BobSmith", "AliceGreene"]


def test_bundled_demo_set_is_valid() -> None:
    scenes = load_scenarios("demo")
    assert len(scenes) == 24
    assert len({str(s.sample_idx) for s in scenes}) == 24


# ---------------------------------------------------------------------------------------------
# Every validation error: file, line, sample_idx, field path, found, expected
# ---------------------------------------------------------------------------------------------


def test_missing_field(tmp_path: Path) -> None:
    data = record(sample_idx=5)
    del data["characters"][1]["profile"]
    path = write_records(tmp_path, record(sample_idx=4), data)
    problem = only_problem(path)
    assert problem.file == str(path)
    assert problem.line == 2
    assert problem.sample_idx == 5
    assert problem.field == "characters[1].profile"
    assert problem.found == "nothing (the field is missing)"
    assert problem.expected == "a value (required field)"


def test_missing_top_level_field(tmp_path: Path) -> None:
    data = record()
    del data["background"]
    problem = only_problem(write_records(tmp_path, data))
    assert (problem.line, problem.sample_idx, problem.field) == (1, 1, "background")
    assert "missing" in problem.found


def test_wrong_type_string_field(tmp_path: Path) -> None:
    data = record(sample_idx=9)
    data["background"] = 5
    path = write_records(tmp_path, data)
    problem = only_problem(path)
    assert (problem.file, problem.line, problem.sample_idx) == (str(path), 1, 9)
    assert problem.field == "background"
    assert problem.found == "int 5"
    assert "string" in problem.expected


def test_wrong_type_list_field(tmp_path: Path) -> None:
    data = record()
    data["characters"][0]["goals"] = "To goal1 of AliceGreene."
    problem = only_problem(write_records(tmp_path, data))
    assert problem.field == "characters[0].goals"
    assert problem.found.startswith("str ")
    assert "To goal1 of AliceGreene." in problem.found
    assert "list" in problem.expected


@pytest.mark.parametrize("field", ["sample_idx", "template_idx"])
def test_wrong_type_of_an_id_names_the_field(tmp_path: Path, field: str) -> None:
    """Ids are int or str: a list is wrong, and the field path must be the id's own name."""
    data = record()
    data[field] = [1]
    problems = problems_of(write_records(tmp_path, data))
    assert problems
    for problem in problems:
        assert problem.line == 1
        assert "[1]" in problem.found
        # The path of a field that exists in the record, not a pydantic union-branch tag
        # such as `sample_idx.int` / `sample_idx.str`.
        assert problem.field == field, problem


def test_question_list_of_two(tmp_path: Path) -> None:
    data = record()
    data["characters"][0]["goals"][0]["eval_questions"]["self"][0]["question"] = ["Q1?", "Q2?"]
    problem = only_problem(write_records(tmp_path, data))
    assert (problem.line, problem.sample_idx) == (1, 1)
    assert problem.field == "characters[0].goals[0].eval_questions.self[0].question"
    assert problem.found == 'list ["Q1?", "Q2?"]'
    assert "exactly one" in problem.expected


@pytest.mark.parametrize("label", [4, -1, "7"])
def test_answer_label_out_of_range(tmp_path: Path, label: Any) -> None:
    data = record()
    data["characters"][0]["info_reason_questions"][0]["answer_label"] = label
    problem = only_problem(write_records(tmp_path, data))
    assert (problem.line, problem.sample_idx) == (1, 1)
    assert problem.field == "characters[0].info_reason_questions[0].answer_label"
    assert problem.found == str(int(label))
    # 4 options: valid 0-based indices are 0..3.
    assert "0..3" in problem.expected


@pytest.mark.parametrize("label", ["two", "B", "1.5", True])
def test_answer_label_not_an_integer(tmp_path: Path, label: Any) -> None:
    data = record()
    data["characters"][0]["info_reason_questions"][0]["answer_label"] = label
    problem = only_problem(write_records(tmp_path, data))
    assert problem.field == "characters[0].info_reason_questions[0].answer_label"
    assert json.dumps(label) in problem.found or repr(label) in problem.found
    assert "integer" in problem.expected


def test_too_few_options(tmp_path: Path) -> None:
    data = record()
    data["characters"][0]["info_reason_questions"][0]["options"] = ["only one"]
    data["characters"][0]["info_reason_questions"][0]["answer_label"] = 0
    problem = only_problem(write_records(tmp_path, data))
    assert problem.field == "characters[0].info_reason_questions[0].options"
    assert problem.found == "1 options"


@pytest.mark.parametrize("dim", ["self", "others"])
def test_unknown_interviewee(tmp_path: Path, dim: str) -> None:
    data = record()
    data["characters"][1]["goals"][0]["eval_questions"][dim][0]["obj"] = "CarolJones"
    problem = only_problem(write_records(tmp_path, data))
    assert (problem.line, problem.sample_idx) == (1, 1)
    assert problem.field == f"characters[1].goals[0].eval_questions.{dim}[0].obj"
    assert problem.found == "'CarolJones'"
    assert "AliceGreene" in problem.expected
    assert "BobSmith" in problem.expected


@pytest.mark.parametrize("dim", ["self", "others"])
def test_interviewee_missing(tmp_path: Path, dim: str) -> None:
    data = record()
    del data["characters"][0]["goals"][0]["eval_questions"][dim][0]["obj"]
    problem = only_problem(write_records(tmp_path, data))
    assert problem.field == f"characters[0].goals[0].eval_questions.{dim}[0].obj"
    assert problem.found == "null"
    assert "AliceGreene" in problem.expected


def test_duplicate_character_names(tmp_path: Path) -> None:
    data = record()
    second = copy.deepcopy(data["characters"][0])
    data["characters"][1] = second  # AliceGreene twice, BobSmith gone
    problems = problems_of(write_records(tmp_path, data))
    problem = problem_at(problems, "characters[].name")
    assert (problem.line, problem.sample_idx) == (1, 1)
    assert problem.found == "'AliceGreene' 2 times"
    assert "unique" in problem.expected


def test_duplicate_goal_of_one_character(tmp_path: Path) -> None:
    data = record()
    goals = data["characters"][0]["goals"]
    goals.append(copy.deepcopy(goals[0]))
    problem = only_problem(write_records(tmp_path, data))
    assert problem.field == "characters[0].goals"
    assert "2 times" in problem.found


def test_duplicate_sample_idx_names_both_lines(tmp_path: Path) -> None:
    path = write_records(tmp_path, record(sample_idx=3), record(sample_idx=4), record(sample_idx=3))
    problem = only_problem(path)
    assert problem.file == str(path)
    assert problem.line == 3
    assert problem.sample_idx == 3
    assert problem.field == "sample_idx"
    assert "line 1" in problem.found
    assert "unique" in problem.expected


def test_duplicate_sample_idx_int_and_string_collide(tmp_path: Path) -> None:
    # The official code names its files `{sample_idx}.yaml` / `.json`: 1 and "1" collide.
    problem = only_problem(write_records(tmp_path, record(sample_idx=1), record(sample_idx="1")))
    assert (problem.line, problem.field) == (2, "sample_idx")
    assert "line 1" in problem.found


def test_goal_without_questions(tmp_path: Path) -> None:
    data = record()
    data["characters"][1]["goals"][0]["eval_questions"] = {"self": [], "others": [], "judge": []}
    problem = only_problem(write_records(tmp_path, data))
    assert (problem.line, problem.sample_idx) == (1, 1)
    assert problem.field == "characters[1].goals[0].eval_questions"
    assert problem.found == "no questions"
    assert "at least one" in problem.expected


def test_eval_questions_with_an_extra_key(tmp_path: Path) -> None:
    data = record()
    data["characters"][0]["goals"][0]["eval_questions"]["observer"] = [{"question": "?"}]
    problem = only_problem(write_records(tmp_path, data))
    assert (problem.line, problem.sample_idx) == (1, 1)
    assert problem.field == "characters[0].goals[0].eval_questions.observer"
    assert problem.expected == "only the keys self, others and judge"


def test_eval_questions_without_self(tmp_path: Path) -> None:
    data = record()
    del data["characters"][0]["goals"][0]["eval_questions"]["self"]
    problem = only_problem(write_records(tmp_path, data))
    assert problem.field == "characters[0].goals[0].eval_questions.self"
    assert problem.expected == "a value (required field)"


def test_invalid_json_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path, [json.dumps(record()), '{"sample_idx": 2,'])
    problem = only_problem(path)
    assert problem.file == str(path)
    assert problem.line == 2
    assert problem.sample_idx is None
    assert problem.field == ""
    assert problem.found.startswith("invalid JSON")
    assert problem.expected == "one JSON object per line"


@pytest.mark.parametrize(("line", "kind"), [("[1, 2]", "list"), ('"text"', "str"), ("42", "int")])
def test_non_object_line(tmp_path: Path, line: str, kind: str) -> None:
    problem = only_problem(write_lines(tmp_path, [line]))
    assert (problem.line, problem.sample_idx, problem.field) == (1, None, "")
    assert problem.found == f"a JSON {kind}"
    assert "JSON object" in problem.expected


def test_non_utf8_bytes(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    prefix = b'{"sample_idx": 2, "background": "caf'
    bad = prefix + b'\xe9"}'
    path.write_bytes(json.dumps(record()).encode() + b"\n" + bad + b"\n")
    problem = only_problem(path)
    assert problem.file == str(path)
    assert problem.line == 2
    assert problem.field == ""
    # Columns are 1-based: the bad byte follows the prefix.
    assert problem.found == f"bytes that are not UTF-8 at column {len(prefix) + 1}"
    assert "UTF-8" in problem.expected


@pytest.mark.parametrize("content", ["", "\n\n   \n"])
def test_empty_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    problem = only_problem(path)
    assert problem.file == str(path)
    assert problem.line is None
    assert problem.sample_idx is None
    assert "empty" in problem.found


def test_nonexistent_dataset_path(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.jsonl")
    with pytest.raises(DatasetError) as info:
        dataset_path(missing)
    (problem,) = info.value.problems
    assert problem.file == missing
    assert problem.line is None
    assert problem.field == "dataset"
    assert problem.found == "a path that does not exist"
    assert "demo" in problem.expected
    assert "official" in problem.expected


def test_dataset_path_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as info:
        dataset_path(str(tmp_path))
    assert info.value.problems[0].found == "a path that is not a file"


def test_unreadable_file_in_read_scenarios(tmp_path: Path) -> None:
    problem = only_problem(tmp_path / "absent.jsonl")
    assert problem.line is None
    assert problem.found.startswith("an unreadable file")


def test_more_than_max_reported_problems(tmp_path: Path) -> None:
    total = MAX_REPORTED + 5
    path = write_lines(tmp_path, ["not json"] * total)
    with pytest.raises(DatasetError) as info:
        read_scenarios(path)
    error = info.value
    assert len(error.problems) == total
    assert [p.line for p in error.problems] == list(range(1, total + 1))
    message = str(error)
    assert f"{total} problems" in message
    assert message.count("\n  - ") == MAX_REPORTED
    assert "\n  ... and 5 more" in message
    # The 26th problem is not listed.
    assert f"{path}:{MAX_REPORTED + 1}:" not in message
    assert f"{path}:{MAX_REPORTED}:" in message


def test_all_problems_of_all_lines_are_reported_at_once(tmp_path: Path) -> None:
    first = record(sample_idx=1)
    first["background"] = 5
    third = record(sample_idx=3)
    del third["characters"][0]["name"]
    path = write_lines(tmp_path, [json.dumps(first), "[]", json.dumps(third)])
    problems = problems_of(path)
    assert [(p.line, p.sample_idx, p.field) for p in problems] == [
        (1, 1, "background"),
        (2, None, ""),
        (3, 3, "characters[0].name"),
    ]


def test_speaker_order_unknown_name(tmp_path: Path) -> None:
    data = record()
    data["start_speaker"] = "AliceGreene"
    data["speaker_order"] = ["BobSmith", "CarolJones"]
    problem = only_problem(write_records(tmp_path, data))
    assert (problem.line, problem.sample_idx, problem.field) == (1, 1, "speaker_order")
    # position 0 is the start speaker, then the turns.
    assert problem.found == "position 2: 'CarolJones' is not a character of the scene"


def test_start_speaker_unknown(tmp_path: Path) -> None:
    data = record()
    data["start_speaker"] = "CarolJones"
    data["speaker_order"] = ["BobSmith"]
    problem = only_problem(write_records(tmp_path, data))
    assert problem.found == "position 0: 'CarolJones' is not a character of the scene"


@pytest.mark.parametrize(
    ("order", "position", "name"),
    [(["AliceGreene"], 1, "AliceGreene"), (["BobSmith", "BobSmith"], 2, "BobSmith")],
)
def test_speaker_order_repeat(tmp_path: Path, order: list[str], position: int, name: str) -> None:
    data = record()
    data["start_speaker"] = "AliceGreene"
    data["speaker_order"] = order
    problem = only_problem(write_records(tmp_path, data))
    assert problem.field == "speaker_order"
    assert problem.found == f"position {position}: {name!r} speaks twice in a row"
    assert "never repeat" in problem.expected


@pytest.mark.parametrize("present", ["start_speaker", "speaker_order"])
def test_only_one_of_the_replay_fields(tmp_path: Path, present: str) -> None:
    data = record()
    data[present] = "AliceGreene" if present == "start_speaker" else ["BobSmith"]
    problem = only_problem(write_records(tmp_path, data))
    assert (problem.line, problem.sample_idx, problem.field) == (1, 1, "speaker_order")
    assert problem.found == "only one of start_speaker and speaker_order"
    assert problem.expected == "both fields, or neither"


def test_roles_naming_an_unknown_character(tmp_path: Path) -> None:
    data = record()
    data["roles"] = {"AliceGreene": "sender", "CarolJones": "receiver"}
    problem = only_problem(write_records(tmp_path, data))
    assert problem.field == "roles.CarolJones"


def test_character_name_with_newline(tmp_path: Path) -> None:
    data = record()
    data["characters"][0]["name"] = "Alice\nGreene"
    problems = problems_of(write_records(tmp_path, data))
    assert any(p.field == "characters[0].name" for p in problems)


def test_fewer_than_two_characters(tmp_path: Path) -> None:
    data = record()
    data["characters"] = data["characters"][:1]
    problem = only_problem(write_records(tmp_path, data))
    assert problem.field == "characters"


# ---------------------------------------------------------------------------------------------
# The error itself
# ---------------------------------------------------------------------------------------------


def test_dataset_error_is_a_prerequisite_error_that_says_how_to_proceed(tmp_path: Path) -> None:
    data = record(sample_idx=12)
    data["background"] = 5
    path = write_records(tmp_path, data)
    with pytest.raises(PrerequisiteError) as info:
        read_scenarios(path)
    error = info.value
    assert isinstance(error, DatasetError)
    message = str(error)
    assert message.startswith(f"Invalid AgentSense dataset {path}: 1 problem\n")
    assert "dataset=demo" in message
    assert f"{path}:1 (sample_idx=12): field `background`: found int 5; expected" in message


def test_problem_str_without_line_or_sample() -> None:
    problem = Problem("f.jsonl", None, None, "", "no records (the file is empty)", "records")
    assert str(problem) == "f.jsonl: found no records (the file is empty); expected records"


def test_scenario_model_validate_round_trip() -> None:
    scene = Scenario.model_validate(record())
    dumped = scene.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert "self" in dumped["characters"][0]["goals"][0]["eval_questions"]
    assert Scenario.model_validate(dumped) == scene
