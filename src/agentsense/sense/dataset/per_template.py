"""The `per_template` task argument: the first K scenes of each template, by sample id.

`-T per_template=K` keeps, for every template of the task's scenes, the K scenes with the
smallest sample ids (all of them when a template has fewer). The choice depends on the sample
ids alone, never on the file order or a random draw, so two runs (or two models) get the same
subset. `-T per_template=1 --epochs 3` is the paper's repeated-subset experiment (App. D.2,
Table 7: one scenario per template, three runs); `agentsense/script_prediction` defaults to 1
(§4.3: one sample per template). The selection is applied to the scenes the task keeps (e.g. the
scenes with MCQs for `info` and `blind`), before `-T shard`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

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
