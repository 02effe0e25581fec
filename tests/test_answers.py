"""Answer readers: the official parsers against the recorded table, and the corrected yes/no reader.

The table (`sense-parity/parse_parity.json`) was produced by running the official `metric.py` on
adversarial answers; a copy ships in `tests/fixtures/sense-parity/`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from agentsense.sense.protocol import OptionMark
from agentsense.sense.scorers.answer_reading import official_choice, official_yes, robust_yes

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "sense-parity"
TABLE: dict[str, Any] = json.loads((FIXTURES / "parse_parity.json").read_text())
OPTIONS: list[str] = TABLE["mcq_options"]


def shown(text: str) -> str:
    """An answer in a test id, without backslashes: pytest escapes them again in the node id, and
    the escaped id does not select the test when given back on the command line (mutmut does)."""
    return repr(text).replace("\\n", "<NL>").replace("\\", "<BS>")


def test_table_is_complete() -> None:
    assert len(TABLE["mcq"]) == 352
    assert len(TABLE["goal_yes_no"]) >= 19
    assert len(OPTIONS) == 4


@pytest.mark.parametrize(
    "row",
    TABLE["mcq"],
    ids=[f"{i}-{r['option_mark']}-{shown(r['prediction'])}" for i, r in enumerate(TABLE["mcq"])],
)
def test_official_mcq_parser_matches_the_table(row: dict[str, Any]) -> None:
    chosen = official_choice(row["prediction"], OPTIONS, cast(OptionMark, row["option_mark"]))
    assert chosen == row["predicted_index"]
    correct = int(chosen is not None and chosen == int(row["answer_label"]))
    assert correct == row["correct"]


@pytest.mark.parametrize(
    "row",
    TABLE["goal_yes_no"],
    ids=[f"{i}-{shown(r['answer'])}" for i, r in enumerate(TABLE["goal_yes_no"])],
)
def test_official_yes_matches_the_table(row: dict[str, Any]) -> None:
    assert official_yes(row["answer"]) == row["score"]


# docs/protocol.md §4.3, the verified result table (options, answer = 1, mark = upper).
DOCTOR = ["He is a spy", "He is a doctor", "He lost his job", "He is moving away"]


@pytest.mark.parametrize(
    ("prediction", "mark", "index"),
    [
        ("(B) He is a doctor", "upper", 1),
        ("B", "upper", 1),
        ("B.", "upper", 1),
        ("b", "upper", 1),
        ("2", "upper", 1),
        ("B) He is a doctor", "upper", 1),
        ("B. He is a doctor", "upper", 1),
        ("He is a doctor", "upper", 1),
        ("He is a doctor.", "upper", 1),
        ("(b)", "upper", None),
        ("(b)", "lower", 1),
        ("(b)", "all", 1),
        ("(1)", "upper", None),
        ("(1)", "number", 0),
        ("(1)", "all", 0),
        ("I think the answer is B", "upper", None),
        (" B", "upper", None),
        ("B\n", "upper", None),
        ("", "upper", None),
        ("He is a", "upper", None),
        ("job", "upper", 2),
        ("Answer: (C)", "upper", 2),
        ("The answer is (A) or (B)", "upper", 0),
        ("(E)", "upper", 4),
    ],
)
def test_official_mcq_parser_documented_cases(
    prediction: str, mark: str, index: int | None
) -> None:
    assert official_choice(prediction, DOCTOR, cast(OptionMark, mark)) == index


def test_official_mcq_parser_without_options() -> None:
    assert official_choice("He is a doctor", None, "upper") is None
    assert official_choice("B", None, "upper") == 1
    assert official_choice("(C)", None, "upper") == 2


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("yes", 1),
        ("YES", 1),
        ("Yes", 1),
        ("Yes.", 1),
        ("  yes", 1),
        ("\nYes", 1),
        ("**Yes**", 1),
        ("**Yes.** She did.", 1),
        ('"Yes"', 1),
        ("(Yes)", 1),
        ("> Yes", 1),
        ("Judge: Yes", 1),
        ("Answer: no", 0),
        ("AliceGreene: Yes, I did.", 1),
        ("Yes\nbecause the conversation shows it.", 1),
        ("yes, definitely.", 1),
        ("Yes, I believe so.", 1),
        ("No", 0),
        ("no", 0),
        ("No.", 0),
        ("NO!", 0),
        ("No, but yes", 0),
        ("No, but they tried.", 0),
        ("No. Yes.", 0),
        ("Yesterday", None),
        ("Yesterday she did not.", None),
        ("Nope", None),
        ("Not yet. Yes is premature.", None),
        ("", None),
        ("   ", None),
        ("I cannot answer that question.", None),
        ("I'm sorry, but I can't help with that.", None),
        ("I would say yes.", None),
        ("The answer is Yes", None),
        ("Absolutely.", None),
        ("N/A", None),
    ],
)
def test_robust_yes(answer: str, expected: int | None) -> None:
    assert robust_yes(answer) == expected
