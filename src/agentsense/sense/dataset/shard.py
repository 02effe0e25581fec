"""The `shard` task argument: one of n disjoint parts of a dataset, chosen by sample id.

`-T shard=k/n` keeps the scenes whose position in the dataset sorted by sample id is k - 1
modulo n. The parts are disjoint, cover the dataset, differ in size by at most one scene, and
depend only on the sample ids, so n processes (one machine's cores, a Slurm array, a Kubernetes
indexed job) can each run one part without talking to each other. Seeds are drawn per sample id
and epoch (`solvers.speakers.scene_rng`), so a scene plays out the same in any shard, and the
merged shards score exactly as one unsharded run (`agentsense report` merges them: `shard` is a
selection argument, not part of the run configuration).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.per_template import sample_order
from agentsense.sense.dataset.schema import Scenario

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


def shard_scenes(scenes: Sequence[Scenario], shard: Shard, dataset: str) -> list[Scenario]:
    """The scenes of one shard, in their dataset order."""
    order = sorted(range(len(scenes)), key=lambda i: sample_order(scenes[i]))
    kept = {i for rank, i in enumerate(order) if rank % shard.count == shard.index - 1}
    if not kept:
        raise PrerequisiteError(
            f"-T shard={shard}: dataset {dataset!r} has {len(scenes)} scene(s) for this task, "
            f"so shard {shard} is empty; use at most {len(scenes)} shards."
        )
    return [scene for i, scene in enumerate(scenes) if i in kept]
