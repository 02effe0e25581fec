"""Human validation (paper section 3.5, App. A.3): a sheet to fill, and applying it to templates.

One row per goal and one per private-information item (its MCQ), on the templates, where the
paper validated. Three annotators tag each row; the majority (2 of 3) decides; rows where all
three differ, or that the majority marks invalid, go to a reviewer (`review` column), whose tag
then decides. Goal tags: 0 invalid (removed), 1 valid, 2 needs a fix (the `fix` column holds the
rewritten goal). Private-info tags: 0 invalid (the secret and its MCQ are removed), 1 valid once
combined with the owner's goal, 2 valid as it is, 3 valid once combined with the correct answer
(the `fix` column may hold the completed text instead of the automatic combination).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from agentsense.construction.characters import Template
from agentsense.construction.private_info import option_text
from agentsense.engine import sheets
from agentsense.engine.sheets import SheetError

ANNOTATORS = ("annotator_1", "annotator_2", "annotator_3")
COLUMNS = (
    "kind",
    "template_idx",
    "slot",
    "item",
    "text",
    "question",
    "answer",
    "options",
    *ANNOTATORS,
    "review",
    "fix",
    "tags",
)
GOAL_TAGS = "0 invalid; 1 valid; 2 needs fix (write it in `fix`)"
INFO_TAGS = (
    "0 invalid; 1 combine with the goal; 2 valid as is; 3 combine with the answer "
    "(or write the completed text in `fix`)"
)
TAGS = (
    "A row needs a tag two annotators agree on, or a `review` tag; goals take 0-2 (2 with the "
    "rewritten goal in `fix`), private information 0-3."
)


def sheet_rows(templates: list[Template]) -> list[dict[str, str]]:
    rows = []
    for template in templates:
        for slot in template.slots:
            for g, goal in enumerate(slot.goals):
                rows.append(_row("goal", template, slot.token, g, goal, tags=GOAL_TAGS))
            for q, qa in enumerate(slot.questions):
                options = " | ".join(option_text(n) for n in qa.negatives)
                rows.append(
                    _row(
                        "private_info",
                        template,
                        slot.token,
                        q,
                        slot.private_info or qa.explanation,
                        question=qa.question,
                        answer=qa.answer,
                        options=options,
                        tags=INFO_TAGS,
                    )
                )
    return rows


def _row(
    kind: str, template: Template, token: str, item: int, text: str, **more: str
) -> dict[str, str]:
    row = dict.fromkeys(COLUMNS, "")
    row.update(kind=kind, template_idx=template.template_id, slot=token, item=str(item), text=text)
    row.update(more)
    return row


def write_sheet(templates: list[Template], path: Path) -> int:
    rows = sheet_rows(templates)
    sheets.write_sheet(path, COLUMNS, rows)
    return len(rows)


def decision(row: dict[str, str]) -> str | None:
    """The majority tag of the annotators, else the reviewer's; None when undecided."""
    tags = [row.get(a, "").strip() for a in ANNOTATORS if row.get(a, "").strip()]
    top = Counter(tags).most_common(1)
    majority = top[0][0] if top and top[0][1] >= 2 else None
    review = row.get("review", "").strip()
    if majority is None or majority == "0":
        return review or majority
    return majority


def read_sheet(path: Path) -> dict[tuple[str, str, str, int], tuple[str, str]]:
    """(kind, template, slot, item) -> (tag, fix), checking every row first."""
    decided: dict[tuple[str, str, str, int], tuple[str, str]] = {}
    problems = []
    for number, row in enumerate(sheets.read_sheet(path)[1], start=2):
        tag = decision(row)
        allowed = ("0", "1", "2") if row.get("kind") == "goal" else ("0", "1", "2", "3")
        where = f"{path}:{number} ({row.get('template_idx')} {row.get('slot')} {row.get('kind')})"
        if tag is None:
            problems.append(f"{where}: no majority among the annotators and no `review` tag")
        elif tag not in allowed:
            problems.append(f"{where}: tag {tag!r}; expected one of {', '.join(allowed)}")
        elif row.get("kind") == "goal" and tag == "2" and not row.get("fix", "").strip():
            problems.append(f"{where}: tag 2 (needs fix) but the `fix` column is empty")
        else:
            key = (row["kind"], row["template_idx"], row["slot"], int(row["item"]))
            decided[key] = (tag, row.get("fix", "").strip())
    if problems:
        raise SheetError(problems, "nothing applied", TAGS)
    return decided


def apply_sheet(templates: list[Template], path: Path) -> tuple[list[Template], list[str]]:
    """Templates as the annotators left them, and what was removed (one line each)."""
    decided = read_sheet(path)
    kept, removed = [], []
    for template in templates:
        slots = []
        for slot in template.slots:
            goals, categories = [], []
            labels = slot.categories or [None] * len(slot.goals)
            for g, (goal, category) in enumerate(zip(slot.goals, labels, strict=False)):
                tag, fix = decided.get(("goal", template.template_id, slot.token, g), ("1", ""))
                if tag == "0":
                    removed.append(f"{template.template_id} {slot.token}: goal {goal!r} (tag 0)")
                else:
                    goals.append(fix if tag == "2" else goal)
                    categories.append(category)
            questions, info = [], slot.private_info
            for q, qa in enumerate(slot.questions):
                key = ("private_info", template.template_id, slot.token, q)
                tag, fix = decided.get(key, ("2", ""))
                if tag == "0":
                    removed.append(
                        f"{template.template_id} {slot.token}: MCQ {qa.question!r} (tag 0)"
                    )
                    continue
                questions.append(qa)
                extra = {"1": " ".join(goals), "3": qa.answer}.get(tag, "")
                info = fix or (f"{option_text(info or qa.explanation)}. {extra}" if extra else info)
            info = info if questions else None
            update = {"goals": goals, "categories": categories, "questions": questions}
            slots.append(slot.model_copy(update={**update, "private_info": info}))
        empty = [s.token for s in slots if not s.goals]
        if empty:
            removed.append(
                f"{template.template_id}: dropped, {', '.join(empty)} kept no valid goal"
            )
            continue
        kept.append(template.model_copy(update={"slots": slots}))
    return kept, removed
