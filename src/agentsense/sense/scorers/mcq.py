"""Private-information MCQs: each character answers the questions listed under it.

Formatting and parsing follow the official code. Accuracy is per character, then the mean over
characters (`scene_accuracy`, also the rule of the chance baseline, `analysis.baselines`).
Official mode keeps the official gate: a scene whose *first* character has no question is not
scored (NaN), and a scene where a later character has none scores NaN too. Corrected mode averages
over the characters that have questions and strips whitespace around answers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.interview import Question
from agentsense.sense.metrics import mean_or_nan, nan_mean
from agentsense.sense.prompts import OPTION_MARKS, mcq_prompt
from agentsense.sense.protocol import OptionMark, Protocol
from agentsense.sense.score_keys import (
    MCQ_ANSWERS,
    MCQ_PER_CHARACTER,
    MCQ_QUESTION,
    UNREADABLE_MCQ_ANSWERS,
    McqAnswerRow,
)
from agentsense.sense.scorers.answer_reading import official_choice


def question_mark(protocol: Protocol, rng: random.Random) -> OptionMark:
    """The option marks of one question; `all` draws one alphabet per question, as officially."""
    if protocol.option_mark != "all":
        return protocol.option_mark
    mark: OptionMark = rng.choice(["upper", "lower", "number"])
    return mark


def mcq_questions(scene: Scenario, protocol: Protocol, rng: random.Random) -> list[Question]:
    questions = []
    for character in scene.characters:
        for i, item in enumerate(character.info_reason_questions):
            labels = OPTION_MARKS[question_mark(protocol, rng)]
            text = mcq_prompt(item.question, item.options, labels)
            questions.append(
                Question(MCQ_QUESTION, character.name, None, i, character.name, text, labels)
            )
    return questions


def option_label(index: int | None, labels: str) -> str | None:
    """An option index as its mark (`D`), or the 0-based index when the marks are unknown."""
    if index is None:
        return None
    return labels[index] if index < len(labels) else str(index)


def mcq_answer_row(
    question: Question, model: str, answer: str, chosen: int | None, correct: int
) -> McqAnswerRow:
    """One MCQ answer as logged (score metadata `mcq_answers`, one flat row per answer)."""
    return McqAnswerRow(
        character=question.about,
        mcq=question.item + 1,
        asker=question.asker,
        model=model,
        question=question.text,
        answer=answer,
        reading=option_label(chosen, question.labels),
        correct=option_label(correct, question.labels),
        right=chosen is not None and chosen == correct,
    )


def read_mcq(
    scene: Scenario, question: Question, answer: str, protocol: Protocol, model: str = ""
) -> McqAnswerRow:
    """One MCQ answer read as the official code reads it (corrected mode strips whitespace
    first), as its flat row."""
    item = scene.character(question.about).info_reason_questions[question.item]
    prediction = answer if protocol.official else answer.strip()
    # Parse with the pattern of the mark in use; `all` accepts any of the three alphabets.
    chosen = official_choice(prediction, item.options, protocol.option_mark)
    return mcq_answer_row(question, model, answer, chosen, item.answer_label)


def scene_accuracy(per_character: Sequence[float], official: bool) -> float:
    """A scene's MCQ accuracy from its characters' accuracies, in scene order (NaN: a character
    without MCQs). Official: the mean over all characters if the first has MCQs, else NaN (the
    gate looks at the first character only, docs/protocol.md §4.4). Corrected: the mean over the
    characters that have MCQs."""
    if official:
        gated = not per_character or math.isnan(per_character[0])
        return math.nan if gated else mean_or_nan(list(per_character))
    return nan_mean(list(per_character))


def score_mcq(
    scene: Scenario,
    answers: Mapping[Question, str],
    protocol: Protocol,
    models: Mapping[Question, str] | None = None,
) -> tuple[float, dict[str, Any]]:
    """The scene's MCQ accuracy, each character's, and every answer as a flat row (`models`:
    who answered each question; unknown: empty)."""
    models = models or {}
    results: dict[str, list[float]] = {c.name: [] for c in scene.characters}
    rows: list[McqAnswerRow] = []
    for question, answer in answers.items():
        row = read_mcq(scene, question, answer, protocol, models.get(question, ""))
        results[question.about].append(float(row["right"]))
        rows.append(row)
    unreadable = sum(row["reading"] is None for row in rows)
    per_character = {name: mean_or_nan(values) for name, values in results.items()}
    accuracy = scene_accuracy(list(per_character.values()), protocol.official)
    return accuracy, {
        MCQ_ANSWERS: rows,
        MCQ_PER_CHARACTER: per_character,
        UNREADABLE_MCQ_ANSWERS: unreadable,
    }
