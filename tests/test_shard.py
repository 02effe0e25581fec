"""`-T shard=k/n`: disjoint parts by sample id whose merged report equals the unsharded run's."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import read_eval_log

from agentsense.engine.errors import PrerequisiteError
from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions
from agentsense.sense.dataset.samples import demo_path, load_scenarios
from agentsense.sense.dataset.selection import (
    TURN_CALLS,
    Shard,
    parse_shard,
    scene_calls,
    shard_scenes,
)
from agentsense_logs import AGENT, JUDGES, MAX_MESSAGES, kind_task

# Two templates, three scenes each.
SCENES = {101, 102, 103, 301, 302, 303}


@pytest.mark.parametrize("count", [1, 2, 3, 5, 24, 25])
def test_shards_are_disjoint_balanced_and_cover_the_dataset(count: int) -> None:
    scenes = load_scenarios("demo")
    parts = []
    for index in range(1, count + 1):
        try:
            parts.append([s.sample_idx for s in shard_scenes(scenes, Shard(index, count), "demo")])
        except PrerequisiteError as error:  # more shards than scenes: the empty ones say so
            assert count > len(scenes) and "use at most 24 shards" in error.message
    ids = [i for part in parts for i in part]
    assert sorted(ids) == sorted(s.sample_idx for s in scenes)
    assert max(map(len, parts)) - min(map(len, parts)) <= 1


@pytest.mark.parametrize("count", [2, 3, 4])
def test_shards_carry_equal_model_calls(count: int) -> None:
    # A part lighter by a few scenes' calls idles its connections at the end of the run.
    scenes = load_scenarios("demo")
    calls = [
        sum(map(scene_calls, shard_scenes(scenes, Shard(k, count), "demo")))
        for k in range(1, count + 1)
    ]
    assert sum(calls) == sum(map(scene_calls, scenes))
    assert max(calls) - min(calls) <= max(map(scene_calls, scenes))
    every_nth = [sum(map(scene_calls, scenes[k::count])) for k in range(count)]
    assert max(calls) - min(calls) <= max(every_nth) - min(every_nth)


def test_a_shard_depends_on_the_scenes_not_the_file_order() -> None:
    scenes = load_scenarios("demo")
    forward = shard_scenes(scenes, Shard(2, 5), "demo")
    backward = shard_scenes(scenes[::-1], Shard(2, 5), "demo")
    assert sorted(s.sample_idx for s in forward) == sorted(s.sample_idx for s in backward)


@pytest.mark.parametrize("text", ["0/8", "9/8", "a/b", "2", "1/0", "-1/3", "1/2/3", ""])
def test_malformed_shards_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="k/n with 1 <= k <= n"):
        parse_shard(text)


def test_a_shard_is_normalised_as_recorded() -> None:
    assert str(parse_shard(" 2 / 8 ")) == "2/8"


def six_scenes(tmp_path: Path) -> Path:
    lines = demo_path().read_text(encoding="utf-8").splitlines()
    path = tmp_path / "six.jsonl"
    kept = [line for line in lines if any(f'"sample_idx": {i},' in line for i in SCENES)]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    assert {s.sample_idx for s in load_scenarios(str(path))} == SCENES
    return path


def run_shard(dataset: Path, log_dir: Path, shard: str | None) -> Path:
    task, roles = kind_task("full", dataset=str(dataset), shard=shard)
    (log,) = eval(task, model=AGENT, model_roles=roles, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    assert log.eval.task_args.get("shard") == shard
    return Path(log.location)


def test_merged_shards_give_the_unsharded_table_one(tmp_path: Path) -> None:
    dataset = six_scenes(tmp_path)
    whole = run_shard(dataset, tmp_path / "whole", None)
    shards = [run_shard(dataset, tmp_path / "shards", f"{k}/3") for k in (1, 2, 3)]
    tables = {}
    for name, paths in (("whole", [whole]), ("shards", shards)):
        report = write_report([str(p) for p in paths], ReportOptions(tmp_path / f"out-{name}"))
        assert len(report.runs) == 1 and "6 scenes" in report.runs[0], report.runs
        tables[name] = (tmp_path / f"out-{name}" / "table1.csv").read_text(encoding="utf-8")
    assert JUDGES[0] in tables["whole"]  # a judged Table 1, not an empty one
    assert_scene_calls_match(whole)
    assert tables["shards"] == tables["whole"]  # to the last digit


def assert_scene_calls_match(log_path: Path) -> None:
    """`scene_calls`, the weight the parts are balanced by, is what a scene really asks for."""
    scenes = {s.sample_idx: s for s in load_scenarios("demo")}
    log = read_eval_log(str(log_path))
    for sample in log.samples or []:
        scene = scenes[sample.id]
        made = sum(isinstance(event, ModelEvent) for event in sample.events)
        goals = sum(len(character.goals) for character in scene.characters)
        turns = MAX_MESSAGES - 1  # the fixture's short scenes, not TURN_CALLS
        expected = scene_calls(scene) - TURN_CALLS + turns + (len(JUDGES) - 1) * goals
        assert made == expected, sample.id
