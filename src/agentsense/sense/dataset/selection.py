"""The `per_template` task argument: the first K scenes of each template, by sample id.

`-T per_template=K` keeps, for every template of the task's scenes, the K scenes with the
smallest sample ids (all of them when a template has fewer). The choice depends on the sample
ids alone, never on the file order or a random draw, so two runs (or two models) get the same
subset. `-T per_template=1 --epochs 3` is the paper's repeated-subset experiment (App. D.2,
Table 7: one scenario per template, three runs); `agentsense/script_prediction` defaults to 1
(§4.3: one sample per template). The selection is applied to the scenes the task keeps (e.g. the
scenes with MCQs for `info` and `blind`), before `-T shard`.

The `shard` task argument: one of n disjoint parts of a dataset, balanced by model calls.

`-T shard=k/n` keeps the k-th of n parts dealt from the dataset's scenes, heaviest first: scenes
are ranked by their model calls (`scene_calls`: the turns, one question per goal to each character
and the judge, one call per MCQ; ties by sample id) and dealt in snake order (1..n, n..1, ...),
so the parts differ in size by at most one scene and in calls by at most one scene's worth. A
part that finished early would leave its share of the server's connections idle while the others
ran on. The parts depend only on the scenes' contents and ids, never on the file order, so n
processes (one machine's cores, a Slurm array, a Kubernetes indexed job) can each run one part
without talking to each other. Seeds are drawn per sample id and epoch
(`solvers.speakers.scene_rng`), so a scene plays out the same in any shard, and the merged shards
score exactly as one unsharded run (`agentsense report` merges them: `shard` is a selection
argument, not part of the run configuration).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.schema import Scenario

# An id's place in the order: integers numerically, then strings, so mixed files still sort.
SampleOrder = tuple[int, int, str]


def sample_order(scene: Scenario) -> SampleOrder:
    """Sort key of a scene by its sample id (the order `shard` and `per_template` use)."""
    idx = scene.sample_idx
    return (0, idx, "") if isinstance(idx, int) else (1, 0, idx)


def per_template_scenes(scenes: Sequence[Scenario], count: int) -> list[Scenario]:
    """The first `count` scenes of each template by sample id, in their dataset order."""
    by_template: dict[str, list[int]] = defaultdict(list)
    for i in sorted(range(len(scenes)), key=lambda i: sample_order(scenes[i])):
        by_template[str(scenes[i].template_idx)].append(i)
    kept = {i for positions in by_template.values() for i in positions[:count]}
    return [scene for i, scene in enumerate(scenes) if i in kept]


SHARD_FORM = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


EXPECTED = "k/n with 1 <= k <= n, e.g. 2/8 (the second of 8 parts)"


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as users count array tasks
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """`k/n` -> Shard; anything else is refused with the form expected."""
    match = SHARD_FORM.match(text)
    if match is None:
        raise ValueError(EXPECTED)
    shard = Shard(int(match[1]), int(match[2]))
    if not 1 <= shard.index <= shard.count:
        raise ValueError(EXPECTED)
    return shard


# Model turns of a scene: the scripted greeting is not a call (MAX_MESSAGES - 1 with the default).
TURN_CALLS = 14


def scene_calls(scene: Scenario) -> int:
    """A scene's model calls with one judge: the weight `shard` balances the parts by."""
    goals = sum(len(character.goals) for character in scene.characters)
    mcqs = sum(len(character.info_reason_questions) for character in scene.characters)
    return TURN_CALLS + goals * (len(scene.characters) + 1) + mcqs


def snake(count: int, parts: int) -> list[int]:
    """The part (0-based) of each rank when `count` ranked items are dealt 1..n, n..1, ..."""
    return [r % parts if (r // parts) % 2 == 0 else parts - 1 - r % parts for r in range(count)]


def shard_scenes(scenes: Sequence[Scenario], shard: Shard, dataset: str) -> list[Scenario]:
    """The scenes of one shard, in their dataset order."""
    ranked = sorted(
        range(len(scenes)), key=lambda i: (-scene_calls(scenes[i]), sample_order(scenes[i]))
    )
    dealt = snake(len(ranked), shard.count)
    kept = {i for i, part in zip(ranked, dealt, strict=True) if part == shard.index - 1}
    if not kept:
        raise PrerequisiteError(
            f"-T shard={shard}: dataset {dataset!r} has {len(scenes)} scene(s) for this task, "
            f"so shard {shard} is empty; use at most {len(scenes)} shards."
        )
    return [scene for i, scene in enumerate(scenes) if i in kept]
