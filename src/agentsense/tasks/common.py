"""What every AgentSense task shares: protocol arguments, the dataset, the simulation."""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai import Task
from inspect_ai.scorer import Scorer
from pydantic import ValidationError

from ..dataset.samples import RoleBinding, load_scenarios, no_roles, scene_dataset
from ..dataset.schema import Scenario
from ..dataset.validation import DatasetError, Problem
from ..errors import PrerequisiteError
from ..protocol import Protocol
from ..solvers.simulation import simulation
from ..version import eval_version

SceneFilter = Callable[[Scenario], bool]


def make_protocol(**settings: object) -> Protocol:
    """Validate the protocol task arguments, with a message that names the bad argument."""
    try:
        return Protocol.model_validate(settings)
    except ValidationError as error:
        lines = [
            f"  -T {'.'.join(map(str, e['loc']))}={e.get('input')!r}: {e['msg']}"
            for e in error.errors()
        ]
        raise PrerequisiteError(
            "Invalid AgentSense task argument(s):\n" + "\n".join(lines)
        ) from None


def check_replay(scenes: list[Scenario], protocol: Protocol, source: str) -> None:
    """A recorded speaker order must have exactly one speaker per model turn."""
    problems = [
        Problem(
            source,
            None,
            scene.sample_idx,
            "speaker_order",
            f"{len(scene.speaker_order)} speakers",
            f"{protocol.n_turns} (max_messages - 1), or drop the field for a random order",
        )
        for scene in scenes
        if scene.speaker_order is not None and len(scene.speaker_order) != protocol.n_turns
    ]
    if problems:
        raise DatasetError(source, problems)


def agentsense_task(
    *,
    name: str,
    scorer: Scorer,
    dataset: str,
    protocol: Protocol,
    seed: int,
    keep: SceneFilter | None = None,
    bind: RoleBinding = no_roles,
    epochs: int | None = None,
) -> Task:
    scenes = load_scenarios(dataset)
    check_replay(scenes, protocol, dataset)
    if keep is not None:
        scenes = [scene for scene in scenes if keep(scene)]
    if not scenes:
        raise PrerequisiteError(f"No scene of dataset {dataset!r} fits the task {name!r}.")
    return Task(
        dataset=scene_dataset(
            scenes, name=f"agentsense-{dataset}" if "/" not in dataset else dataset, bind=bind
        ),
        solver=simulation(protocol=protocol, seed=seed),
        scorer=scorer,
        epochs=epochs,
        version=eval_version().comparability_version,
        metadata={
            "protocol": protocol.model_dump(),
            "dataset": dataset,
            "seed": seed,
            **eval_version().to_metadata(),
        },
    )
