"""What every AgentSense task shares: its arguments, the scenes, the `Task` around the solver.

Task arguments are declared once, in `TaskArguments` (the `Protocol` settings plus `dataset` and
`seed`). Inspect reads `-T` arguments from a task's signature, so each task still lists them
(`tests/test_tasks.py` checks every signature against `TaskArguments`: names, types, defaults),
then hands them over with `TaskArguments.parse(locals())`, which validates every argument before
any model call. See docs/adding-a-task.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from inspect_ai import Task
from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver
from inspect_ai.viewer import SampleScoreView, TaskSamplesColumn, TaskSamplesView, ViewerConfig
from pydantic import ConfigDict, Field, ValidationError, field_validator

from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.version import eval_version
from agentsense.sense.dataset.per_template import per_template_scenes
from agentsense.sense.dataset.protocol_fit import check_option_marks, check_replay
from agentsense.sense.dataset.samples import RoleBinding, load_scenarios, no_roles, scene_dataset
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.dataset.shard import Shard, parse_shard, shard_scenes
from agentsense.sense.dataset.validation import DatasetError
from agentsense.sense.protocol import Protocol
from agentsense.sense.score_keys import HEADLINE
from agentsense.sense.simulation import simulation

SceneFilter = Callable[[Scenario], bool]

# Inspect View: the sample list hides Target and Answer (AgentSense has none), the sample
# header shows every score key as wrapping chips.
VIEWER = ViewerConfig(
    task_samples_view=TaskSamplesView(
        name="AgentSense",
        columns=[
            TaskSamplesColumn(id="target", visible=False),
            TaskSamplesColumn(id="answer", visible=False),
        ],
    ),
    sample_score_view=SampleScoreView(default="chips"),
)


def headline(score: str) -> HeadlineMetric:
    """The task's headline in the log list: the mean of one score key, whichever scorer."""
    return HeadlineMetric(score=score, metric="mean")


class TaskArguments(Protocol):
    """The task arguments of every simulation task (`-T name=value`), all recorded in the log."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    dataset: str = Field(
        default="official",
        description="`official`, `official_roles`, `demo`, or the path of a JSONL file",
    )
    seed: int = Field(
        default=0,
        description="seeds the starting speaker and the turn order per scene and epoch: the same "
        "seed gives every model the same turn orders",
    )
    shard: str | None = Field(
        default=None,
        description="`k/n`: run only the k-th of n disjoint parts of the scenes (by sample id), "
        "e.g. one per process or array job; `agentsense report` merges the parts "
        "(docs/throughput.md, 'Scaling out')",
    )
    per_template: int | None = Field(
        default=None,
        ge=1,
        description="`K`: run only the first K scenes of each template (by sample id); "
        "`-T per_template=1 --epochs 3` is the paper's repeated subset (Table 7)",
    )

    @field_validator("shard", mode="before")
    @classmethod
    def _shard_form(cls, value: object) -> str | None:
        return None if value is None else str(parse_shard(str(value)))

    @classmethod
    def parse(cls, values: Mapping[str, Any], exclude: tuple[str, ...] = ()) -> TaskArguments:
        """Validate a task's arguments (its `locals()`); bad ones fail here, naming `-T name`."""
        names = set(cli_names(cls)) - set(exclude)
        try:
            return cls.model_validate({k: v for k, v in values.items() if k in names})
        except ValidationError as error:
            raise PrerequisiteError(argument_errors(error)) from None

    @property
    def settings(self) -> Protocol:
        """The protocol settings alone, as the solver, scorers and the log use them."""
        return Protocol.model_validate(self.model_dump(include=set(Protocol.model_fields)))

    @property
    def part(self) -> Shard | None:
        return None if self.shard is None else parse_shard(self.shard)


def cli_names(model: type[Protocol]) -> dict[str, str]:
    """`-T` name -> field name (`protocol` -> `mode`), in declaration order."""
    return {field.alias or name: name for name, field in model.model_fields.items()}


def argument_errors(error: ValidationError) -> str:
    """One line per bad argument: its name, what was found and what is expected."""
    lines = []
    for problem in error.errors():
        name = ".".join(map(str, problem["loc"]))
        expected = problem["msg"].removeprefix("Input should be ").removeprefix("Value error, ")
        lines.append(f"  -T {name}: found {problem.get('input')!r}; expected {expected}")
    return "Invalid AgentSense task argument(s):\n" + "\n".join(lines)


# What a task's scene filter asks, and where a file without such scenes fits.
NEEDS_ROLES = (
    "scenes whose `roles` label characters sender and receiver, as -T dataset=official_roles "
    "has (`agentsense labels LOG --dataset-out FILE.jsonl` writes them from an "
    "agentsense/labelling run); scenes without roles fit agentsense/goal, info and full"
)
NEEDS_MCQS = "scenes with MCQs (`info_reason_questions`); scenes without them fit agentsense/goal"


def task_scenes(
    arguments: TaskArguments, name: str, keep: SceneFilter | None = None, needs: str = ""
) -> list[Scenario]:
    """The task's scenes, checked against the protocol before any model is called (`needs`:
    what `keep` asks of a scene, and where a file without such scenes fits)."""
    scenes = load_scenarios(arguments.dataset)
    if keep is not None:
        scenes = [scene for scene in scenes if keep(scene)]
    protocol = arguments.settings
    problems = check_replay(scenes, protocol, arguments.dataset)
    problems += check_option_marks(scenes, protocol, arguments.dataset)
    if problems:
        raise DatasetError(arguments.dataset, problems)
    if not scenes:
        raise PrerequisiteError(
            f"No scene of dataset {arguments.dataset!r} fits the task {name!r}"
            + (f": it needs {needs}." if needs else ".")
        )
    if arguments.per_template is not None:
        scenes = per_template_scenes(scenes, arguments.per_template)
    part = arguments.part
    return scenes if part is None else shard_scenes(scenes, part, arguments.dataset)


def dataset_name(dataset: str) -> str:
    return f"agentsense-{dataset}" if "/" not in dataset else dataset


def task_metadata(dataset: str, protocol: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """What every task records: its dataset, protocol settings, seed and the eval version."""
    return {"protocol": protocol, "dataset": dataset, "seed": seed, **eval_version().to_metadata()}


def agentsense_task(
    arguments: TaskArguments,
    *,
    scorer: Scorer,
    scenes: list[Scenario],
    solver: Solver | None = None,
    bind: RoleBinding = no_roles,
    epochs: int | None = None,
    headline_score: str = HEADLINE,
) -> Task:
    """A task on `scenes`: the simulation (unless another solver is given) and `scorer`."""
    protocol = arguments.settings
    return Task(
        dataset=scene_dataset(scenes, name=dataset_name(arguments.dataset), bind=bind),
        solver=solver or simulation(protocol=protocol, seed=arguments.seed),
        scorer=scorer,
        epochs=epochs,
        version=eval_version().comparability_version,
        metadata=task_metadata(arguments.dataset, protocol.model_dump(), arguments.seed),
        viewer=VIEWER,
        headline_metric=headline(headline_score),
    )
