"""Inspect View with a five-character scene (demo scene 701): the Scoring tab's goal tables
grow down with the cast, not across, so they read at 1280 px; the Transcript shows every
interview's record right after its call, in the order the viewer lists events."""

from __future__ import annotations

import pytest
from inspect_ai import eval
from inspect_ai.event import InfoEvent, ModelEvent
from inspect_ai.log import EvalSample, read_eval_log

from agentsense.engine.conversation import CALL_RECORDS, INTERVIEW_RECORD
from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.scorers.explanation import MAJORITY_ROW
from agentsense.tasks import full
from view_reading import goal_tables, viewer_order

FIVE = 701
JUDGES = ["standin/persona/judge-a", "standin/persona/judge-b", "standin/persona/judge-c"]
# The explanation column of the Scoring tab at a 1280 px wide window is about 880 px, some
# 110 characters of its font (measured on screenshots): a table row must stay under that.
ROW_CHARS = 100


@pytest.fixture(scope="module")
def five(tmp_path_factory: pytest.TempPathFactory) -> EvalSample:
    (log,) = eval(
        full(dataset="demo", max_messages=8),
        model="standin/persona/agent",
        model_roles={"judge": JUDGES},
        sample_id=[FIVE],
        log_dir=str(tmp_path_factory.mktemp("five")),
        display="none",
    )
    assert log.status == "success", log.error
    (sample,) = read_eval_log(log.location, resolve_attachments=True).samples or []
    return sample


def test_each_character_has_a_table_of_askers_by_goal(five: EvalSample) -> None:
    scene = scenario_of(five.metadata)
    assert len(scene.characters) == 5
    assert five.scores is not None
    result = five.scores["goal_and_mcq"]
    tables = goal_tables(str(result.explanation))
    assert [t.character for t in tables] == scene.names
    for character, table in zip(scene.characters, tables, strict=True):
        others = [f"other: {name}" for name in scene.names if name != character.name]
        assert list(table.rows) == ["self", *others, "judge_1", "judge_2", "judge_3", MAJORITY_ROW]
        assert table.goals == [goal.goal for goal in character.goals]
        assert all(len(cells) == len(character.goals) for cells in table.rows.values())


def test_the_tables_fit_the_scoring_tab(five: EvalSample) -> None:
    # Before, one row per goal put every other character's answer in one `other` cell
    # (about 140 characters with four others) and squeezed the judges' headers to `judg e_1`.
    assert five.scores is not None
    tables = goal_tables(str(five.scores["goal_and_mcq"].explanation))
    assert len(tables) == 5
    for table in tables:
        columns = [table.header, *([label, *cells] for label, cells in table.rows.items())]
        widths = [max(len(row[i]) for row in columns) for i in range(len(table.header))]
        assert sum(widths) + 3 * len(widths) <= ROW_CHARS, (table.character, widths)


def test_the_viewer_shows_each_interview_record_after_its_call(five: EvalSample) -> None:
    shown = viewer_order(list(five.events))
    calls = [i for i, e in enumerate(shown) if isinstance(e, ModelEvent)]
    interviews = 0
    for i in calls:
        after = shown[i + 1]
        assert isinstance(after, InfoEvent) and after.source in CALL_RECORDS, i
        interviews += after.source == INTERVIEW_RECORD
    assert interviews == 56  # 7 goals, each put to its character, 4 others and 3 judges
