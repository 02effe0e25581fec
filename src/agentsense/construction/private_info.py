"""Private information and its MCQs: case validation (Prompt 7), QA pairs (Prompt 8), negative
options (Prompt 9) made harder (Prompt 10), and the 4-option MCQ with a seeded answer position.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, Field

from agentsense.construction.prompts import (
    PROMPT_7_CASE_VALIDATION,
    PROMPT_8_PRIVATE_INFO_GENERATION,
    PROMPT_9_NEGATIVE_OPTIONS,
    PROMPT_10_NEGATIVE_OPTIONS_REPHRASING,
    compact_json,
    fill_named,
    fill_positional,
)
from agentsense.construction.repair import (
    ParseError,
    Stage,
    as_object,
    extract_json,
    parse_yes_no,
    text_field,
)
from agentsense.construction.templates import Draft

QA_EXAMPLE = '[{"role": str, "question": str, "explanation": str, "answer": str}]'
OPTIONS_EXAMPLE = '[{"option1": "xxx", "option2": "xxx", "option3": "xxx"}]'
REPHRASE_EXAMPLE = '{"negative_options": ["xx", "xx", "xx"]}'
NEGATIVES = 3  # Prompts 9 and 10 ask for three


class QA(BaseModel):
    """A Prompt-8 pair: `role` owns the secret; the explanation becomes its private info."""

    role: str
    question: str
    explanation: str
    answer: str
    negatives: list[str] = Field(default_factory=list)


def _characters(draft: Draft) -> str:
    # The official scripts fill {characters} with the Python repr of the list of dicts.
    return str([{"name": c.name, "goals": c.goals} for c in draft.characters])


def _draft_prompt(prompt: str, draft: Draft) -> str:
    return fill_named(prompt, **draft.setting, characters=_characters(draft))


def validation_prompt(draft: Draft) -> str:
    return _draft_prompt(PROMPT_7_CASE_VALIDATION, draft)


def qa_prompt(draft: Draft) -> str:
    return _draft_prompt(PROMPT_8_PRIVATE_INFO_GENERATION, draft)


def parse_qa(reply: str) -> list[QA]:
    value = extract_json(reply)
    items = value if isinstance(value, list) else [value]
    pairs = []
    for item in items:
        data = as_object(item, '"role", "question", "explanation" and "answer"')
        pairs.append(
            QA(
                role=text_field(data, "role"),
                question=text_field(data, "question"),
                explanation=text_field(data, "explanation"),
                answer=text_field(data, "answer"),
            )
        )
    return pairs


def options_prompt(description: str, qa: QA) -> str:
    return fill_named(
        PROMPT_9_NEGATIVE_OPTIONS, description=description, question=qa.question, answer=qa.answer
    )


def _three(values: list[Any]) -> list[str]:
    options = [str(v).strip() for v in values if isinstance(v, str) and v.strip()]
    if len(options) < NEGATIVES:
        raise ParseError(f"expected {NEGATIVES} incorrect options, found {len(options)}")
    return options[:NEGATIVES]


def parse_options(reply: str) -> list[str]:
    """Prompt 9: `[{"option1", "option2", "option3"}]` (a plain list of strings also reads)."""
    value = extract_json(reply)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return _three(value)
    data = as_object(value, '"option1", "option2" and "option3"')
    return _three([data.get(f"option{i}") for i in range(1, NEGATIVES + 1)])


def rephrase_prompt(draft: Draft, qa: QA, asker: str) -> str:
    """Prompt 10, once per question, answered in the role of the first other character."""
    goals = {c.name: c.goals for c in draft.characters}
    values = [
        draft.background,
        draft.description,
        ", ".join(c.name for c in draft.characters),
        compact_json(goals),
        qa.explanation,
        qa.question,
        compact_json(qa.negatives),
        qa.answer,
        asker,
    ]
    return fill_positional(PROMPT_10_NEGATIVE_OPTIONS_REPHRASING, values)


def parse_rephrased(reply: str) -> list[str]:
    data = as_object(extract_json(reply), '"negative_options"')
    value = data.get("negative_options")
    if not isinstance(value, list):
        raise ParseError('the key "negative_options" must hold a list')
    return _three(value)


VALIDATE = Stage("C1 case validation (Prompt 7)", parse_yes_no, None)
GENERATE = Stage("C2 private info (Prompt 8)", parse_qa, QA_EXAMPLE)
OPTIONS = Stage("C3 negative options (Prompt 9)", parse_options, OPTIONS_EXAMPLE)
REPHRASE = Stage("C5 negative rephrasing (Prompt 10)", parse_rephrased, REPHRASE_EXAMPLE)


def usable_negatives(qa: QA, negatives: list[str]) -> str | None:
    """Why a set of negatives cannot make an MCQ (duplicates, or the answer among them)."""
    texts = [option_text(n).lower() for n in negatives]
    if len(set(texts)) < len(texts):
        return "two incorrect options are the same"
    if option_text(qa.answer).lower() in texts:
        return "an incorrect option repeats the answer"
    return None


def option_text(text: str) -> str:
    """Options are shown as `(A) text;`: a final period would render as `..`."""
    return " ".join(text.split()).rstrip(".")


def mcq(qa: QA, n_options: int, rng: random.Random) -> dict[str, Any]:
    """The record's MCQ: the answer and `n_options - 1` negatives in a seeded order."""
    options = [option_text(qa.answer), *(option_text(n) for n in qa.negatives[: n_options - 1])]
    order = list(range(len(options)))
    rng.shuffle(order)
    return {
        "question": qa.question,
        "options": [options[i] for i in order],
        "answer_label": order.index(0),
    }
