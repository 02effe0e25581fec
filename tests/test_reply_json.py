"""The one reader of JSON in a model reply, option by option (its callers' own tests pin theirs)."""

from __future__ import annotations

import json

import pytest

from agentsense.engine.reply_json import NoJSON, reply_json


def test_the_whole_reply_is_read_first_even_a_scalar() -> None:
    assert reply_json(' {"a": 1} ') == {"a": 1}
    assert reply_json("42") == 42
    assert reply_json("null") is None  # a JSON null is a value, not "nothing found"


def test_an_embedded_value_is_found_after_prose_and_before_trailing_text() -> None:
    assert reply_json('Sure! {"a": 1} Hope it helps.') == {"a": 1}
    assert reply_json('Here: [1, 2] and {"b": 2}') == [1, 2]  # the first, list or object


def test_nothing_readable_raises() -> None:
    for text in ("", "no json here", '{"a": 1', "[1, 2,]"):
        with pytest.raises(NoJSON):
            reply_json(text)


def test_lenient_reads_fences_and_drops_trailing_commas() -> None:
    assert reply_json('```json\n{"a": 1,}\n```', lenient=True) == {"a": 1}
    assert reply_json('Sure! {"a": [1, 2,], } ok', lenient=True) == {"a": [1, 2]}
    assert reply_json("```\n7\n```", lenient=True) == 7  # a fenced block is read as a whole
    with pytest.raises(NoJSON):
        reply_json('Sure! {"a": [1, 2,], } ok')  # not lenient: the slip is not repaired


def test_escape_newlines_reads_a_raw_newline_inside_a_string() -> None:
    text = '{"a": "line one\nline two"}'
    with pytest.raises(NoJSON):
        reply_json(text)
    assert reply_json(text, escape_newlines=True) == {"a": "line one\nline two"}


def test_longest_picks_the_longest_embedded_value_and_the_first_of_equals() -> None:
    assert reply_json('{"a": 1} and {"b": [1, 2, 3]}', longest=True) == {"b": [1, 2, 3]}
    assert reply_json('{"a": 1} and {"b": 2}', longest=True) == {"a": 1}
    assert reply_json('{"a": 1} and {"b": [1, 2, 3]}') == {"a": 1}


def test_objects_only_passes_over_lists_and_scalars() -> None:
    assert reply_json('[1, 2] then {"b": 2}', objects_only=True) == {"b": 2}
    assert reply_json('[{"a": 1}]', objects_only=True) == {"a": 1}  # an object inside a list
    for text in ("42", "[1, 2]", "null"):
        with pytest.raises(NoJSON):
            reply_json(text, objects_only=True)


@pytest.mark.parametrize("options", [{}, {"lenient": True}, {"longest": True}])
def test_prose_around_a_document_does_not_change_what_is_read(options: dict[str, bool]) -> None:
    value = {"name": "Maya", "goals": ["win", "leave"], "n": [1, {"k": None}]}
    document = json.dumps(value, indent=2)
    for wrapped in (document, f"Sure.\n{document}\nDone.", f"```json\n{document}\n```"):
        assert reply_json(wrapped, **options) == value
