"""Goal answers as a tidy frame: one row per answer to a goal question (self, other or judge).

The columns (`ANSWER_COLUMNS`), documented for users of `inspect_ai.analysis`:

- `log`, `id`, `epoch`: the sample the answer belongs to;
- `template_id`: the scene's template (the cluster of its five scenes);
- `character`, `goal_index` (0-based), `category`: whose goal, which one, its goal category;
- `kind`: `self` (the character about its own goal), `other` (another character), `judge`;
- `asker`: who answered: a character name, or the judge's key `judge_1..judge_N`;
- `model`: the model that answered;
- `item`: the question's position among the goal's questions of its kind;
- `answer`: the raw answer; `reading`: 1.0 yes / 0.0 no as the run's protocol scored it, NaN when
  it could not be read (corrected mode);
- `unreadable`: True when the answer starts with no yes/no word (`robust_yes` is None).
  The official parser reads such an answer as "no", so this counts them in both modes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.score_keys import GoalAnswerRow, answer_kind
from agentsense.sense.scorers.answer_reading import robust_yes

ANSWER_COLUMNS = [
    "log",
    "id",
    "epoch",
    "template_id",
    "character",
    "goal_index",
    "category",
    "kind",
    "asker",
    "model",
    "item",
    "answer",
    "reading",
    "unreadable",
]


def _reading(value: Any) -> float:
    return float(value) if value is not None else float("nan")


def answer_rows(
    scene: Scenario, logged: Sequence[GoalAnswerRow], key: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The rows of one scored sample, from its score metadata `goal_answers` (one flat row per
    answer, goals and questions numbered from 1, as `scorers.goal.score_goals` logs them)."""
    rows: list[dict[str, Any]] = []
    for record in logged:
        character = scene.character(str(record["character"]))
        index = int(record["goal"]) - 1
        kind, asker = answer_kind(str(record["asker"]), character.name)
        rows.append(
            {
                **key,
                "template_id": str(scene.template_idx),
                "character": character.name,
                "goal_index": index,
                "category": character.goals[index].category,
                "kind": kind,
                "asker": asker,
                "model": record["model"],
                "item": int(record["item"]) - 1,
                "answer": str(record["answer"]),
                "reading": _reading(record["reading"]),
                "unreadable": robust_yes(str(record["answer"])) is None,
            }
        )
    return rows


def answer_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=ANSWER_COLUMNS)
