"""`-T per_template=K`: the first K scenes of each template by sample id, on every task."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from agentsense.sense.dataset.samples import load_scenarios
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.dataset.selection import per_template_scenes
from agentsense_logs import kind_task

SIMULATION_KINDS = ("full", "goal", "info", "pairwise", "blind")


def first_ids(scenes: list[Scenario], count: int) -> set[int | str]:
    """The expectation written out: per template, its `count` smallest ids."""
    ids: dict[str, list[int | str]] = defaultdict(list)
    for scene in scenes:
        ids[str(scene.template_idx)].append(scene.sample_idx)
    return {i for values in ids.values() for i in sorted(values)[:count]}  # type: ignore[type-var]


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_the_first_k_scenes_of_each_template(count: int) -> None:
    scenes = load_scenarios("demo")
    kept = per_template_scenes(scenes, count)
    assert {s.sample_idx for s in kept} == first_ids(scenes, count)
    per_template = defaultdict(int)
    for scene in kept:
        per_template[scene.template_idx] += 1
    assert set(per_template) == {s.template_idx for s in scenes}  # every template is there
    assert set(per_template.values()) == {min(count, 3)}  # the demo has 3 scenes per template


def test_one_per_template_is_the_smallest_id_whatever_the_file_order() -> None:
    scenes = load_scenarios("demo")
    forward = per_template_scenes(scenes, 1)
    backward = per_template_scenes(scenes[::-1], 1)
    assert [s.sample_idx for s in forward] == [101, 201, 301, 401, 501, 601, 701, 801]
    assert sorted(s.sample_idx for s in backward) == [s.sample_idx for s in forward]


def test_the_kept_scenes_keep_their_dataset_order() -> None:
    scenes = load_scenarios("demo")[::-1]
    kept = per_template_scenes(scenes, 2)
    assert [s.sample_idx for s in kept] == [s.sample_idx for s in scenes if s in kept]


def test_string_ids_sort_as_strings_and_after_integers() -> None:
    base = load_scenarios("demo")[0].model_dump(by_alias=True)
    ids = ["b-2", 7, "a-9", 3]
    scenes = [Scenario.model_validate({**base, "sample_idx": i, "template_idx": 1}) for i in ids]
    # kept: 3, 7 (integers first), "a-9"; dropped: "b-2"; listed in the file's order
    assert [s.sample_idx for s in per_template_scenes(scenes, 3)] == [7, "a-9", 3]


@pytest.mark.parametrize("kind", SIMULATION_KINDS)
def test_every_simulation_task_takes_one_scene_of_each_template(kind: str) -> None:
    task, _ = kind_task(kind, per_template=1)
    everything, _ = kind_task(kind)
    whole = [Scenario.model_validate(s.metadata["scenario"]) for s in everything.dataset]  # type: ignore[index]
    ids = [sample.id for sample in task.dataset]
    assert set(ids) == first_ids(whole, 1)
    templates = [sample.metadata["template_id"] for sample in task.dataset]  # type: ignore[index]
    assert len(templates) == len(set(templates)) == len({s.template_idx for s in whole})


def test_per_template_then_shard_splits_the_subset() -> None:
    subset, _ = kind_task("goal", per_template=1)
    parts = [kind_task("goal", per_template=1, shard=f"{k}/2")[0] for k in (1, 2)]
    ids = [sample.id for part in parts for sample in part.dataset]
    assert sorted(ids) == sorted(sample.id for sample in subset.dataset)  # type: ignore[type-var]


def test_the_eval_records_the_subset_in_the_log(tmp_path: Path) -> None:
    """`inspect eval agentsense/info -T per_template=1 --epochs 2 ...`, in-process."""
    from inspect_ai import eval

    log_dir = tmp_path / "logs"
    (ran,) = eval(
        "agentsense/info",
        task_args={"dataset": "demo", "per_template": 1, "max_messages": 3},
        epochs=2,
        model="standin/persona/agent",
        log_dir=str(log_dir),
        display="none",
    )
    assert ran.status == "success", ran.error
    (path,) = log_dir.iterdir()
    log = read_eval_log(str(path), header_only=True)
    assert log.eval.task_args["per_template"] == 1
    assert log.eval.dataset.sample_ids == [101, 301, 501, 801]  # templates with MCQs
    assert log.eval.config.epochs == 2
