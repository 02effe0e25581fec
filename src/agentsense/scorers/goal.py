"""Goal completion: every goal judged yes/no by the character itself, the others and the judges.

Aggregation follows the official code (`SENSE/utils/metric.py`): per goal, then the mean over a
character's goals, then the mean over the scene's characters. Scene score keys: `self`, `other`,
`judge_1..judge_N` (one per judge), `judge_mean` and `judge_majority`.

Majority tie rule: official mode takes `statistics.mode` of the votes, which on a tie returns the
vote that comes first (the first judge's). Corrected mode counts a tie as 0.5 and leaves out
unreadable votes.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..dataset.schema import Scenario
from ..protocol import Protocol
from .answers import official_yes, robust_yes
from .interview import Question, answer_record
from .judge_panel import Judge

GoalScores = dict[str, float]


def goal_questions(scene: Scenario, judges: Sequence[Judge]) -> list[Question]:
    """A scene's goal questions: self and others to characters, judge questions to every judge."""
    questions: list[Question] = []
    for character in scene.characters:
        for g, goal in enumerate(character.goals):
            asked = goal.eval_questions
            for i, entry in enumerate(asked.self_):
                questions.append(
                    Question(
                        "self", character.name, g, i, entry.obj or character.name, entry.question
                    )
                )
            for i, entry in enumerate(asked.others):
                questions.append(
                    Question("others", character.name, g, i, entry.obj or "", entry.question)
                )
            for i, entry in enumerate(asked.judge):
                for judge in judges:
                    questions.append(
                        Question("judge", character.name, g, i, judge.key, entry.question)
                    )
    return questions


def _mean(values: Sequence[float]) -> float:
    """Plain mean; NaN propagates, an empty list is NaN (numpy's behaviour in the official code)."""
    return math.fsum(values) / len(values) if values else math.nan


def _nanmean(values: Sequence[float]) -> float:
    return _mean([value for value in values if not math.isnan(value)])


def majority(votes: Sequence[float], official: bool) -> float:
    """Official: `statistics.mode` (first vote wins a tie). Corrected: share > 1/2, a tie is 0.5."""
    if not votes:
        return math.nan
    if official:
        return float(statistics.mode(votes))
    share = _mean(votes)
    return 0.5 if share == 0.5 else float(share > 0.5)


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
            key: _mean([float(v) for votes in votes_by_question if (v := votes[key]) is not None])
            for key in judge_keys
        }
    return {
        "self": _mean(_values(reading.self_)),
        "other": _mean(_values(reading.others)),
        **per_judge,
        "judge_mean": _mean(flat),
        "judge_majority": majority(flat, official),
    }


def combine(rows: Sequence[GoalScores], official: bool) -> GoalScores:
    """Mean over goals (or characters) of each key; corrected mode skips NaN entries."""
    average: Callable[[Sequence[float]], float] = _mean if official else _nanmean
    keys = list(rows[0]) if rows else []
    return {key: average([row[key] for row in rows]) for key in keys}


def score_goals(
    scene: Scenario, answers: dict[Question, str], judges: Sequence[Judge], protocol: Protocol
) -> tuple[GoalScores, dict[str, Any]]:
    """The scene's goal scores and the per-goal details that go into the score metadata."""
    read = official_yes if protocol.official else robust_yes
    keys = [judge.key for judge in judges]
    readings: dict[tuple[str, int], GoalReading] = {}
    details: dict[str, Any] = {}
    unreadable = 0
    for question, answer in answers.items():
        assert question.goal is not None
        value = read(answer)
        unreadable += value is None
        reading = readings.setdefault((question.about, question.goal), GoalReading())
        if question.kind == "self":
            reading.self_.append(value)
        elif question.kind == "others":
            reading.others.append(value)
        else:
            reading.judge.setdefault(question.item, {})[question.interviewee] = value
        goal = scene.character(question.about).goals[question.goal].goal
        details.setdefault(question.about, {}).setdefault(goal, {}).setdefault(
            question.kind, []
        ).append(answer_record(question, answer, value))
    per_goal: dict[str, dict[str, GoalScores]] = {}
    per_character: dict[str, GoalScores] = {}
    for character in scene.characters:
        rows = [
            goal_scores(readings.get((character.name, g), GoalReading()), keys, protocol.official)
            for g in range(len(character.goals))
        ]
        # Keyed by goal text, as officially (two identical goals of a character collide there too).
        per_goal[character.name] = {
            goal.goal: row for goal, row in zip(character.goals, rows, strict=True)
        }
        per_character[character.name] = combine(rows, protocol.official)
    scores = combine(list(per_character.values()), protocol.official)
    return scores, {
        "goals": details,
        "goal_per_goal": per_goal,
        "goal_per_character": per_character,
        "unreadable_goal_answers": unreadable,
    }
