"""The bundled demo set is its own source: these are the promises of its README, checked on it.

`src/agentsense/sense/dataset/data/demo.jsonl` is edited by hand; the project's validator reads it
like any dataset, and the rules below (from `dataset/data/README.md`) are what makes it a useful
demo. Scenario types and goal categories are those of `prompts.py`, declared there once.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest

from agentsense.sense.dataset.samples import demo_path, load_scenarios
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.prompts import GOAL_CATEGORIES, SCENARIO_TYPES

SELF = "Has {name} achieved the goal '{goal}' during the conversation? Answer Yes or No."
OTHERS = "In your opinion, has {name} achieved the goal '{goal}'? Answer Yes or No."
JUDGE = "Based on the conversation, has {name} achieved the goal '{goal}'? Answer Yes or No."
NAME = re.compile(r"^[A-Za-z0-9_-]+$")
RECORD_KEYS = [
    "sample_idx",
    "template_idx",
    "scenario_type",
    "background",
    "description",
    "characters",
    "roles",
]
CHARACTER_KEYS = ["name", "profile", "goals", "private_info", "info_reason_questions"]


@pytest.fixture(scope="module")
def scenes() -> list[Scenario]:
    return load_scenarios("demo")  # the full validator: every record is a valid scene


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    lines = demo_path().read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_layout_8_templates_of_3_scenes(scenes: list[Scenario]) -> None:
    assert [s.sample_idx for s in scenes] == [100 * t + k for t in range(1, 9) for k in (1, 2, 3)]
    assert all(s.template_idx == int(s.sample_idx) // 100 for s in scenes)


def test_key_order_and_names(records: list[dict[str, Any]]) -> None:
    names = [c["name"] for r in records for c in r["characters"]]
    assert all(list(r) == RECORD_KEYS for r in records)
    assert all(list(c) == CHARACTER_KEYS for r in records for c in r["characters"])
    assert all(NAME.match(name) for name in names) and len(set(names)) == len(names) == 69


def test_counts_of_the_readme(scenes: list[Scenario]) -> None:
    sizes = Counter(len(s.characters) for s in scenes)
    assert sizes == {2: 12, 3: 6, 4: 3, 5: 3}
    assert Counter(s.scenario_type for s in scenes) == {
        "personal domain": 9,
        "small society": 9,
        "large society": 6,
    }
    categories = Counter(g.category for s in scenes for c in s.characters for g in c.goals)
    assert set(categories) == set(GOAL_CATEGORIES)  # all 8, and nothing else
    assert sum(categories.values()) == 129
    assert set(s.scenario_type for s in scenes) == set(SCENARIO_TYPES)


def test_goals_and_their_questions(scenes: list[Scenario]) -> None:
    for scene in scenes:
        for character in scene.characters:
            goals = [g.goal for g in character.goals]
            assert 1 <= len(goals) <= 3 and len(set(goals)) == len(goals), scene.sample_idx
            others = [n for n in scene.names if n != character.name]
            for goal in character.goals:
                text, asked, name = goal.goal, goal.eval_questions, character.name
                assert text.startswith("To ") and text.endswith(".") and "'" not in text
                assert [(q.obj, q.question) for q in asked.self_] == [
                    (name, SELF.format(name=name, goal=text))
                ]
                assert [(q.obj, q.question) for q in asked.others] == [
                    (o, OTHERS.format(name=name, goal=text)) for o in others
                ]
                assert [(q.obj, q.question) for q in asked.judge] == [
                    ("judge", JUDGE.format(name=name, goal=text))
                ]


def test_secrets_and_mcqs(scenes: list[Scenario]) -> None:
    with_secrets = [s for s in scenes if any(c.private_info for c in s.characters)]
    assert sorted({int(s.template_idx) for s in with_secrets}) == [1, 3, 5, 8]
    labels: Counter[int] = Counter()
    for scene in scenes:
        secret = scene in with_secrets
        for character in scene.characters:
            items = character.info_reason_questions
            assert bool(items) == secret, (scene.sample_idx, character.name)
            if not secret:
                assert character.private_info is None
            for item in items:
                assert item.options is not None and len(set(item.options)) == 4
                labels[item.answer_label] += 1
    assert labels == {0: 8, 1: 7, 2: 9, 3: 9}  # 33 MCQs, the right answer rotates


def test_roles(scenes: list[Scenario]) -> None:
    one_sided = {s.sample_idx for s in scenes if len(set((s.roles or {}).values())) == 1}
    assert one_sided == {203, 403}
    assert all(s.roles is not None and set(s.roles) == set(s.names) for s in scenes)


def test_types_and_categories_outside_prompts_py_are_refused(
    records: list[dict[str, Any]], tmp_path: Any
) -> None:
    from agentsense.sense.dataset.validation import DatasetError

    record = json.loads(json.dumps(records[0]))
    record["scenario_type"] = "tiny society"
    record["characters"][0]["goals"][0]["category"] = "Coop"
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as raised:
        load_scenarios(str(path))
    problems = {p.field: p for p in raised.value.problems}
    assert problems["scenario_type"].found == "str 'tiny society'"
    assert (
        "'personal domain', 'small society', 'large society'" in problems["scenario_type"].expected
    )
    category = problems["characters[0].goals[0].category"]
    assert category.found == "str 'Coop'" and "'Conflict Resolution'" in category.expected
