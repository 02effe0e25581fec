"""How a scene's score reads in Inspect View: the Scoring tab's explanation and the transcript's
interview records.

Both are rendered from the flat rows the scorers log (`goal_answers`, `goal_scores`,
`mcq_answers`), so what a reader sees is what the metadata holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..score_keys import (
    HEADLINE_FIRST,
    JUDGE_MAJORITY,
    MCQ_ACCURACY,
    OTHER_ASKER_PREFIX,
    SELF_ASKER,
    asker_name,
)

Row = Mapping[str, Any]
RAW_CHARS = 40  # raw answers are cut to this length in an MCQ line
CELL_CHARS = 16  # ... and to this length in a goal table cell
GOAL_CHARS = 36  # a goal's text in its row
LEGEND = "✓ yes · ✗ no · ? unreadable, with the start of the raw answer (in full: Transcript)"


def _one_line(text: str, limit: int | None = None) -> str:
    """Text fit for a Markdown table cell: one line, no pipes, optionally cut."""
    flat = " ".join(str(text).split()).replace("|", "/")
    if limit is not None and len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return flat


def mark(reading: Any) -> str:
    """A yes/no reading as a sign: ✓ yes, ✗ no, ? unreadable."""
    if reading is None:
        return "?"
    return "✓" if reading == 1 else "✗"


def number(value: float) -> str:
    """A score for reading: 3 decimals at most, `–` for unscored (NaN)."""
    return "–" if value != value else f"{value:.3g}" if value in (0, 1) else f"{value:.3f}"


def _verdict(value: float) -> str:
    """A goal's judge majority: ✓ / ✗, `tie` (0.5, corrected mode), `–` when unscored."""
    return {1.0: "✓", 0.0: "✗", 0.5: "tie"}.get(value, number(value))


def _answer_cell(rows: Sequence[Row], with_name: bool) -> str:
    """The marks of one cell, each with the start of its raw answer in brackets: short enough
    that the table fits the Scoring tab and its headers do not wrap. (The viewer escapes HTML in
    an explanation, so there is no hover text and no line break within a cell.)"""
    cells = []
    for row in rows:
        name = f"{asker_name(row['asker'])} " if with_name else ""
        cells.append(f"{name}{mark(row['reading'])} ({_one_line(row['answer'], CELL_CHARS)})")
    return " · ".join(cells) if cells else "–"


def _goal_text(goals: Mapping[str, Sequence[str]], character: str, goal: int) -> str:
    texts = goals.get(character, ())
    return _one_line(texts[goal - 1], GOAL_CHARS) if goal - 1 < len(texts) else ""


def _others(answers: Sequence[Row], character: str) -> list[str]:
    """Who was asked about `character`'s goals as the other side, in order of asking."""
    askers = [row["asker"] for row in answers if row["character"] == character]
    names = [asker_name(a) for a in askers if a.startswith(OTHER_ASKER_PREFIX)]
    return list(dict.fromkeys(names))


def character_heading(character: str, model: str, role: str | None, others: Sequence[str]) -> str:
    """`**Name** · sender: model · other: Name`: who played the character, on which model role
    (pairwise runs), and who answered as the other side when that is a single character."""
    parts = [f"**{character}**", f"{role}: {model}" if role else f"played by {model}"]
    if len(others) == 1:
        parts.append(f"other: {others[0]}")
    return " · ".join(parts)


def goal_explanation(
    answers: Sequence[Row],
    goal_scores: Sequence[Row],
    judges: Mapping[str, str],
    cast: Mapping[str, str],
    goals: Mapping[str, Sequence[str]],
    roles: Mapping[str, str | None] | None = None,
) -> str:
    """`### Goals`: per character (with its model, and its model role when bound), one row per
    goal: its text, self, other, each judge and the judges' majority, as ✓ / ✗ / ? with the raw
    answer's start in brackets."""
    lines = ["### Goals", LEGEND]
    if judges:
        lines.append("Judges: " + ", ".join(f"{key} = {model}" for key, model in judges.items()))
    judge_keys = list(judges)
    for character, model in cast.items():
        rows = [row for row in goal_scores if row["character"] == character]
        if not rows:
            continue
        others = _others(answers, character)
        role = (roles or {}).get(character)
        lines += [
            "",
            character_heading(character, model, role, others),
            "",
            "| goal | self | other | " + " | ".join(judge_keys) + " | majority |",
            "|---" * (4 + len(judge_keys)) + "|",
        ]
        for scores in rows:
            mine = [
                row
                for row in answers
                if row["character"] == character and row["goal"] == scores["goal"]
            ]
            cells = [
                _answer_cell([r for r in mine if r["asker"] == SELF_ASKER], with_name=False),
                _answer_cell(
                    [r for r in mine if r["asker"].startswith(OTHER_ASKER_PREFIX)], len(others) > 1
                ),
                *(
                    _answer_cell([r for r in mine if r["asker"] == key], with_name=False)
                    for key in judge_keys
                ),
                _verdict(scores[JUDGE_MAJORITY]),
            ]
            goal = f"{scores['goal']}. {_goal_text(goals, character, scores['goal'])}"
            lines.append(f"| {goal} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def mcq_line(row: Row) -> str:
    """`answered (D), correct (C) ✗`, with the raw answer."""
    answered = f"({row['reading']})" if row["reading"] is not None else "? (unreadable)"
    sign = "✓" if row["right"] else "✗"
    raw = _one_line(row["answer"], RAW_CHARS)
    return f"answered {answered}, correct ({row['correct']}) {sign} — raw: “{raw}”"


def mcq_explanation(answers: Sequence[Row]) -> str:
    """`### MCQs`: one line per MCQ answer, or a note that the scene has none."""
    if not answers:
        return "### MCQs\nNo MCQ in this scene (`mcq_accuracy` is unscored)."
    lines = ["### MCQs"]
    for row in answers:
        lines.append(f"- **{row['character']}**, MCQ {row['mcq']}: {mcq_line(row)}")
    return "\n".join(lines)


def headline(values: Mapping[str, float]) -> str:
    """The scene's main numbers in one line, judge majority (the paper's primary metric) first."""
    order = [*HEADLINE_FIRST, MCQ_ACCURACY]
    shown = [f"{key} **{number(values[key])}**" for key in order if key in values]
    return " · ".join(shown)


def interview_record(row: Row) -> str:
    """The body of an interview's transcript record: the question, the answer, its reading."""
    if "mcq" in row:
        reading = mcq_line(row).split(" — raw")[0]
    else:
        reading = {None: "? (unreadable)", 1: "yes ✓", 0: "no ✗"}[row["reading"]]
    return (
        f"**Q:** {_one_line(row['question'])}\n\n**A:** {row['answer']}\n\n**read as:** {reading}"
    )
