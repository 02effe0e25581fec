"""How a scene's score reads in Inspect View: the Scoring tab's explanation and the transcript's
interview records.

Both are rendered from the flat rows the scorers log (`goal_answers`, `goal_scores`,
`mcq_answers`), so what a reader sees is what the metadata holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agentsense.sense.score_keys import HEADLINE_FIRST, JUDGE_MAJORITY, MCQ_ACCURACY, asker_name

Row = Mapping[str, Any]
RAW_CHARS = 40  # raw answers are cut to this length in an MCQ line
CELL_CHARS = 24  # ... and to this length in a goal table cell
LEGEND = "✓ yes · ✗ no · ? unreadable, with the start of the raw answer (in full: Transcript)"
MAJORITY_ROW = "**majority**"


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


def _answer_cell(rows: Sequence[Row]) -> str:
    """The marks of one cell (one asker, one goal), each with the start of its raw answer in
    brackets. (The viewer escapes HTML in an explanation: no hover text, no line break.)"""
    cells = [f"{mark(row['reading'])} ({_one_line(row['answer'], CELL_CHARS)})" for row in rows]
    return " · ".join(cells) if cells else "–"


def _askers(answers: Sequence[Row]) -> list[str]:
    """Who was asked about a character's goals, in order of asking: self, the others, judges."""
    return list(dict.fromkeys(row["asker"] for row in answers))


def _asker_row(asker: str) -> str:
    """`self`, `other: Name`, `judge_1`: a row of the goal table."""
    name = asker_name(asker)
    return f"other: {name}" if name != asker else asker


def character_heading(character: str, model: str, role: str | None) -> str:
    """`**Name** · sender: model`: who played the character, on which model role (pairwise
    runs), or `played by model`."""
    return " · ".join([f"**{character}**", f"{role}: {model}" if role else f"played by {model}"])


def _goal_table(answers: Sequence[Row], goal_scores: Sequence[Row]) -> list[str]:
    """One row per asker (self, each other character, each judge) and the judges' majority,
    one column per goal: it grows down with the cast, not across, so five characters fit."""
    goals = [scores["goal"] for scores in goal_scores]
    lines = [
        "| asked | " + " | ".join(f"goal {goal}" for goal in goals) + " |",
        "|---" * (1 + len(goals)) + "|",
    ]
    for asker in _askers(answers):
        cells = [
            _answer_cell([r for r in answers if r["asker"] == asker and r["goal"] == goal])
            for goal in goals
        ]
        lines.append(f"| {_asker_row(asker)} | " + " | ".join(cells) + " |")
    verdicts = [_verdict(scores[JUDGE_MAJORITY]) for scores in goal_scores]
    lines.append(f"| {MAJORITY_ROW} | " + " | ".join(verdicts) + " |")
    return lines


def goal_explanation(
    answers: Sequence[Row],
    goal_scores: Sequence[Row],
    judges: Mapping[str, str],
    cast: Mapping[str, str],
    goals: Mapping[str, Sequence[str]],
    roles: Mapping[str, str | None] | None = None,
) -> str:
    """`### Goals`: per character (with its model, and its model role when bound) its goals in
    full, then a table of who was asked (self, other: Name, judge_i) by goal, as ✓ / ✗ / ?
    with the raw answer's start in brackets, and the judges' majority."""
    lines = ["### Goals", LEGEND]
    if judges:
        lines.append("Judges: " + ", ".join(f"{key} = {model}" for key, model in judges.items()))
    for character, model in cast.items():
        rows = [row for row in goal_scores if row["character"] == character]
        if not rows:
            continue
        texts = goals.get(character, ())
        mine = [row for row in answers if row["character"] == character]
        # A rule above each character: the viewer leaves no space below a table.
        heading = character_heading(character, model, (roles or {}).get(character))
        lines += ["", "---", "", heading, ""]
        lines += [f"{n}. {_one_line(text)}" for n, text in enumerate(texts, start=1)]
        lines += ["", *_goal_table(mine, rows)]
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
