"""The paper's homogeneous tasks: every character played by the evaluated model.

- `agentsense/goal`: all scenes, goal completion (self, other, judges, PSI);
- `agentsense/info`: scenes with MCQs, private-information reasoning accuracy (and its PSI);
- `agentsense/full`: both evaluations on one conversation, as in the paper.

The arguments are `TaskArguments` (tasks/common.py), the same for every simulation task.
"""

from __future__ import annotations

from inspect_ai import Task, task

from agentsense.engine.strict import strict_arguments
from agentsense.sense.protocol import Mode, OptionMark
from agentsense.sense.score_keys import MCQ_ACCURACY
from agentsense.sense.scorers.scoring import goal_and_mcq, goal_completion, mcq_accuracy
from agentsense.sense.tasks.common import NEEDS_MCQS, TaskArguments, agentsense_task, task_scenes


@task
@strict_arguments
def goal(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    shard: str | None = None,
    per_template: int | None = None,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
) -> Task:
    """Goal completion on every scene."""
    arguments = TaskArguments.parse(locals())
    scenes = task_scenes(arguments, "goal")
    return agentsense_task(arguments, scorer=goal_completion(), scenes=scenes)


@task
@strict_arguments
def info(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    shard: str | None = None,
    per_template: int | None = None,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
) -> Task:
    """Private-information MCQ accuracy on the scenes that have MCQs."""
    arguments = TaskArguments.parse(locals())
    scenes = task_scenes(arguments, "info", keep=lambda scene: scene.has_mcq, needs=NEEDS_MCQS)
    return agentsense_task(
        arguments,
        scorer=mcq_accuracy(),
        scenes=scenes,
        headline_score=MCQ_ACCURACY,
    )


@task
@strict_arguments
def full(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    shard: str | None = None,
    per_template: int | None = None,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
) -> Task:
    """Goal completion and MCQ accuracy on one conversation per scene."""
    arguments = TaskArguments.parse(locals())
    scenes = task_scenes(arguments, "full")
    return agentsense_task(arguments, scorer=goal_and_mcq(), scenes=scenes)
