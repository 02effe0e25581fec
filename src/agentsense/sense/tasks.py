"""AgentSense's tasks, as the task table (`agentsense.tasks`) builds them from their arguments.

- `goal`, `info`, `full` (homogeneous: every character played by the evaluated model): goal
  completion (self, other, judges, PSI) on all scenes; MCQ accuracy on the scenes with MCQs; both
  on one conversation, as in the paper.
- `pairwise`: senders bound to the model role `sender` and receivers to `receiver`, from the
  record's `roles` (official `data_with_role.jsonl`, paper Prompt 19); as in the official
  `label_role.py`, scenes without both a sender and a receiver are left out. The roles can be
  bound per eval or per task (`-T sender=...`): the task form lets one eval-set run a grid of
  pairs, since an eval-set's task identity includes its model roles (docs/analysis.md).
- `blind` (paper section 4.3): each character answers its MCQs from its persona prompt alone, no
  conversation, three times by default; questions, parsing and aggregation are those of the real
  MCQ evaluation, so `blind_mcq_accuracy` is the accuracy a model gets without interacting.
- `judge_check`: the judges on transcripts whose yes/no truth is known by construction
  (`sense/dataset/judge_check_items.py`, `sense/judge_check.py`).
- `script_prediction` (section 4.3, Table 2 "Script Acc."): the model names the script a
  scenario's background comes from, one scene per template by default; the truth is each
  record's `source` or `-T titles=FILE` (docs/leakage.md).

Each entry takes its arguments as keywords (the table has declared, defaulted and checked their
names) and validates them with `TaskArguments.parse` before any model call.

Say once on the console what each transcript says: the characters judge themselves.

An Inspect hook, registered when an AgentSense task is built (`sense/tasks/common.py` imports it),
not when Inspect loads the package: registered at import, Inspect would list it at the start of
every `inspect` command, other benchmarks' too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from inspect_ai import Task, task_with
from inspect_ai.hooks import Hooks, TaskStart, hooks
from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver
from inspect_ai.viewer import SampleScoreView, TaskSamplesColumn, TaskSamplesView, ViewerConfig

from agentsense.engine.console import warn
from agentsense.engine.data_file import DATA_FILE, recorded_file
from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.roles import JUDGE_ROLE, RECEIVER_ROLE, SELF_JUDGING, SENDER_ROLE
from agentsense.engine.version import versioned
from agentsense.sense import (
    goal_and_mcq,
    goal_completion,
    mcq_accuracy,
)
from agentsense.sense.dataset.samples import (
    RoleBinding,
    dataset_path,
    load_scenarios,
    no_roles,
    scene_dataset,
)
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.dataset.selection import parse_shard, per_template_scenes, shard_scenes
from agentsense.sense.dataset.validation import DatasetError, check_option_marks, check_replay
from agentsense.sense.persona import has_both_roles, role_binding
from agentsense.sense.protocol import TaskArguments
from agentsense.sense.score_keys import HEADLINE, MCQ_ACCURACY
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
    if arguments.shard is None:
        return scenes
    return shard_scenes(scenes, parse_shard(arguments.shard), arguments.dataset)


def dataset_name(dataset: str) -> str:
    return f"agentsense-{dataset}" if "/" not in dataset else dataset


def task_metadata(
    dataset: str, protocol: dict[str, Any], seed: int | None, file: Path
) -> dict[str, Any]:
    """What every task records (with the eval version, `versioned`): its dataset, protocol
    settings and seed, and the data `file`'s hashes and rows (`DATA_FILE`): a name alone is
    no proof of what was played (the paper comparison, `analysis.official`, reads the hash)."""
    recorded = recorded_file(file).model_dump()
    return {"protocol": protocol, "dataset": dataset, "seed": seed, DATA_FILE: recorded}


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
        **versioned(
            task_metadata(
                arguments.dataset,
                protocol.model_dump(),
                arguments.seed,
                dataset_path(arguments.dataset),
            )
        ),
        viewer=VIEWER,
        headline_metric=headline(headline_score),
    )


def scene_task(
    name: str,
    values: Mapping[str, Any],
    scorer: Scorer,
    keep: SceneFilter | None = None,
    needs: str = "",
    headline_score: str = HEADLINE,
) -> Task:
    """A homogeneous task: every character played by the evaluated model, on the scenes `keep`
    selects, scored by `scorer`."""
    arguments = TaskArguments.parse(values)
    scenes = task_scenes(arguments, name, keep=keep, needs=needs)
    return agentsense_task(arguments, scorer=scorer, scenes=scenes, headline_score=headline_score)


def has_mcq(scene: Scenario) -> bool:
    return scene.has_mcq


def goal(**values: Any) -> Task:
    """Goal completion on every scene."""
    return scene_task("goal", values, goal_completion())


def info(**values: Any) -> Task:
    """Private-information MCQ accuracy on the scenes that have MCQs."""
    return scene_task("info", values, mcq_accuracy(), has_mcq, NEEDS_MCQS, MCQ_ACCURACY)


def full(**values: Any) -> Task:
    """Goal completion and MCQ accuracy on one conversation per scene."""
    return scene_task("full", values, goal_and_mcq())


def pairwise(**values: Any) -> Task:
    """Goal completion and MCQ accuracy with senders and receivers played by different models."""
    arguments = TaskArguments.parse(values)
    scenes = task_scenes(arguments, "pairwise", keep=has_both_roles, needs=NEEDS_ROLES)
    built = agentsense_task(arguments, scorer=goal_and_mcq(), scenes=scenes, bind=role_binding)
    roles = {
        role: model
        for role, model in ((SENDER_ROLE, values["sender"]), (RECEIVER_ROLE, values["receiver"]))
        if model
    }
    # Task-level roles are defaults: an eval-level --model-role for the same role overrides them.
    return task_with(built, model_roles=roles) if roles else built


# The scorers that put goals to the panel (registry names as the eval spec records them).
JUDGED_SCORERS = ("goal_completion", "goal_and_mcq")


def judges_goals(scorers: list[str]) -> bool:
    return any(name.rpartition("/")[2] in JUDGED_SCORERS for name in scorers)


@hooks(name="agentsense_self_judging", description="Warns when no judge is bound.")
class SelfJudgingCheck(Hooks):
    async def on_task_start(self, data: TaskStart) -> None:
        spec = data.spec
        scorers = [scorer.name for scorer in spec.scorers or []]
        if judges_goals(scorers) and JUDGE_ROLE not in (spec.model_roles or {}):
            warn(f"AgentSense {spec.task}: {SELF_JUDGING} Self-judging inflates scores.")
