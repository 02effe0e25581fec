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
- `unreadable`: True when the answer starts with no yes/no word (`answers.robust_yes` is None).
  The official parser reads such an answer as "no", so this counts them in both modes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..dataset.schema import Scenario
from ..scorers.answers import robust_yes

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
# Score metadata names the kind `others`; the score key (and this frame) say `other`.
_KINDS = {"self": "self", "others": "other", "judge": "judge"}


def _reading(value: Any) -> float:
    return float(value) if value is not None else float("nan")


def answer_rows(
    scene: Scenario,
    goals: Mapping[str, Any],
    judges: Mapping[str, str],
    character_models: Mapping[str, str],
    key: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """The rows of one scored sample, from its score metadata `goals` (character -> goal -> kind
    -> answer records, as `scorers.goal.score_goals` writes them)."""
    rows: list[dict[str, Any]] = []
    for character in scene.characters:
        for index, goal in enumerate(character.goals):
            kinds = (goals.get(character.name) or {}).get(goal.goal) or {}
            for kind, records in kinds.items():
                asked: Counter[str] = Counter()
                for record in records:
                    asker = str(record["to"])
                    model = judges.get(asker) if kind == "judge" else character_models.get(asker)
                    rows.append(
                        {
                            **key,
                            "template_id": str(scene.template_idx),
                            "character": character.name,
                            "goal_index": index,
                            "category": goal.category,
                            "kind": _KINDS[kind],
                            "asker": asker,
                            "model": model,
                            "item": asked[asker],
                            "answer": str(record["answer"]),
                            "reading": _reading(record["reading"]),
                            "unreadable": robust_yes(str(record["answer"])) is None,
                        }
                    )
                    asked[asker] += 1
    return rows


def answer_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=ANSWER_COLUMNS)


def goal_answers(logs: Sequence[str]) -> pd.DataFrame:
    """Every goal answer of AgentSense logs (files or folders), with the columns above."""
    from ..report.loading import load_runs  # the report's reader; imported late (it imports us)

    answers: pd.DataFrame = load_runs(logs).answers
    return answers
