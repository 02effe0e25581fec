"""Goal completion: every goal judged yes/no by the character itself, the others and the judges.

Aggregation follows the official code (`SENSE/utils/metric.py`): per goal, then the mean over a
character's goals, then the mean over the scene's characters. Scene score keys
(`agentsense.sense.score_keys`): `self`, `other`, `judge_1..judge_N` (one per judge) and the judge
aggregations (`judge_mean`, `judge_majority`), each computed by its entry in `JUDGE_AGGREGATORS`.

Majority tie rule: official mode takes `statistics.mode` of the votes, which on a tie returns the
vote that comes first (the first judge's). Corrected mode counts a tie as 0.5 and leaves out
unreadable votes.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentsense.engine.roles import Judge
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.interview import Question
from agentsense.sense.metrics import mean_or_nan, nan_mean
from agentsense.sense.protocol import Protocol
from agentsense.sense.score_keys import (
    CHARACTER_SCORES,
    GOAL_ANSWERS,
    GOAL_SCORES,
    JUDGE_MAJORITY,
    JUDGE_MEAN,
    JUDGE_QUESTION,
    OTHER,
    OTHERS_QUESTION,
    SELF,
    SELF_QUESTION,
    UNREADABLE_GOAL_ANSWERS,
    GoalAnswerRow,
)
from agentsense.sense.scorers.answer_reading import official_yes, robust_yes

GoalScores = dict[str, float]
Row = dict[str, Any]  # one flat record of the score metadata


def goal_questions(scene: Scenario, judges: Sequence[Judge]) -> list[Question]:
    """A scene's goal questions: self and others to characters, judge questions to every judge."""
    questions: list[Question] = []
    for character in scene.characters:
        for g, goal in enumerate(character.goals):
            asked = goal.eval_questions
            for i, entry in enumerate(asked.self_):
                questions.append(
                    Question(SELF_QUESTION, character.name, g, i, entry.interviewee, entry.question)
                )
            for i, entry in enumerate(asked.others):
                questions.append(
                    Question(
                        OTHERS_QUESTION, character.name, g, i, entry.interviewee, entry.question
                    )
                )
            for i, entry in enumerate(asked.judge):
                for judge in judges:
                    questions.append(
                        Question(JUDGE_QUESTION, character.name, g, i, judge.key, entry.question)
                    )
    return questions


def majority(votes: Sequence[float], official: bool) -> float:
    """Official: `statistics.mode` (first vote wins a tie). Corrected: share > 1/2, a tie is 0.5."""
    if not votes:
        return math.nan
    if official:
        return float(statistics.mode(votes))
    share = mean_or_nan(votes)
    return 0.5 if share == 0.5 else float(share > 0.5)


def judge_mean(votes: Sequence[float], official: bool) -> float:
    """The share of yes votes (NaN for no vote)."""
    return mean_or_nan(votes)


# How each judge aggregation (`score_keys.JUDGE_AGGREGATIONS`, same keys and order) is computed
# from a goal's judge votes (official: question-major, unreadable as 0; corrected: readable only).
JUDGE_AGGREGATORS: dict[str, Callable[[Sequence[float], bool], float]] = {
    JUDGE_MEAN: judge_mean,
    JUDGE_MAJORITY: majority,
}


@dataclass
class GoalReading:
    """The answers about one goal, read as 1/0 (None when unreadable in corrected mode)."""

    self_: list[int | None] = field(default_factory=list)
    others: list[int | None] = field(default_factory=list)
    judge: dict[int, dict[str, int | None]] = field(
        default_factory=dict
    )  # question -> judge -> vote


def _values(readings: Sequence[int | None]) -> list[float]:
    return [float(r) for r in readings if r is not None]


def goal_scores(reading: GoalReading, judge_keys: Sequence[str], official: bool) -> GoalScores:
    """Scores of one goal (official §3.4: votes question-major, per-judge = first question)."""
    votes_by_question = [reading.judge[q] for q in sorted(reading.judge)]
    if official:
        # The official list holds k*J votes; its first J entries are taken as the per-judge columns.
        flat = [
            float(v or 0) for votes in votes_by_question for v in (votes[k] for k in judge_keys)
        ]
        per_judge = {
            key: (flat[i] if i < len(flat) else math.nan) for i, key in enumerate(judge_keys)
        }
    else:
        flat = [float(v) for votes in votes_by_question for v in votes.values() if v is not None]
        per_judge = {
            key: mean_or_nan(
                [float(v) for votes in votes_by_question if (v := votes[key]) is not None]
            )
            for key in judge_keys
        }
    return {
        SELF: mean_or_nan(_values(reading.self_)),
        OTHER: mean_or_nan(_values(reading.others)),
        **per_judge,
        **{key: aggregate(flat, official) for key, aggregate in JUDGE_AGGREGATORS.items()},
    }


def combine(rows: Sequence[GoalScores], official: bool) -> GoalScores:
    """Mean over goals (or characters) of each key; corrected mode skips NaN entries."""
    average: Callable[[Sequence[float]], float] = mean_or_nan if official else nan_mean
    keys = list(rows[0]) if rows else []
    return {key: average([row[key] for row in rows]) for key in keys}


def goal_answer_row(
    question: Question, model: str, answer: str, reading: int | None
) -> GoalAnswerRow:
    """One goal answer as logged (score metadata `goal_answers`, one flat row per answer)."""
    assert question.goal is not None
    return GoalAnswerRow(
        character=question.about,
        goal=question.goal + 1,
        asker=question.asker,
        item=question.item + 1,
        model=model,
        question=question.text,
        answer=answer,
        reading=reading,
    )


def goal_reader(protocol: Protocol) -> Callable[[str], int | None]:
    """How a goal answer is read: the official yes-test, or the robust one (corrected mode)."""
    return official_yes if protocol.official else robust_yes


def score_goals(
    scene: Scenario,
    answers: Mapping[Question, str],
    judges: Sequence[Judge],
    protocol: Protocol,
    models: Mapping[Question, str] | None = None,
) -> tuple[GoalScores, dict[str, Any]]:
    """The scene's goal scores and the flat rows that go into the score metadata: every answer
    with its reading (`goal_answers`), the scores of every goal (`goal_scores`) and of every
    character (`character_scores`); goals are numbered from 1. `models`: who answered each
    question (unknown: empty)."""
    models = models or {}
    read = goal_reader(protocol)
    keys = [judge.key for judge in judges]
    readings: dict[tuple[str, int], GoalReading] = {}
    rows: list[GoalAnswerRow] = []
    for question, answer in answers.items():
        assert question.goal is not None
        value = read(answer)
        reading = readings.setdefault((question.about, question.goal), GoalReading())
        if question.kind == SELF_QUESTION:
            reading.self_.append(value)
        elif question.kind == OTHERS_QUESTION:
            reading.others.append(value)
        else:
            reading.judge.setdefault(question.item, {})[question.interviewee] = value
        rows.append(goal_answer_row(question, models.get(question, ""), answer, value))
    goal_rows: list[Row] = []
    character_rows: list[Row] = []
    per_character: list[GoalScores] = []
    for character in scene.characters:
        scores = [
            goal_scores(readings.get((character.name, g), GoalReading()), keys, protocol.official)
            for g in range(len(character.goals))
        ]
        goal_rows += [
            {"character": character.name, "goal": g, **row} for g, row in enumerate(scores, 1)
        ]
        per_character.append(combine(scores, protocol.official))
        character_rows.append({"character": character.name, **per_character[-1]})
    return combine(per_character, protocol.official), {
        GOAL_ANSWERS: rows,
        GOAL_SCORES: goal_rows,
        CHARACTER_SCORES: character_rows,
        UNREADABLE_GOAL_ANSWERS: sum(row["reading"] is None for row in rows),
    }
