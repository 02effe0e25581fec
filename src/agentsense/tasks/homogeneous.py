"""The paper's homogeneous tasks: every character played by the evaluated model.

- `agentsense/goal`: all scenes, goal completion (self, other, judges, PSI);
- `agentsense/info`: scenes with MCQs, private-information reasoning accuracy (and its PSI);
- `agentsense/full`: both evaluations on one conversation, as in the paper.
"""

from __future__ import annotations

from inspect_ai import Task, task

from ..protocol import Mode, OptionMark
from ..scorers.scoring import goal_and_mcq, goal_completion, mcq_accuracy
from .common import agentsense_task, make_protocol


@task
def goal(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
) -> Task:
    """Goal completion on every scene."""
    settings = make_protocol(
        mode=protocol,
        max_messages=max_messages,
        agent_temperature=agent_temperature,
        judge_temperature=judge_temperature,
        max_tokens=max_tokens,
    )
    return agentsense_task(
        name="goal", scorer=goal_completion(), dataset=dataset, protocol=settings, seed=seed
    )


@task
def info(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
) -> Task:
    """Private-information MCQ accuracy on the scenes that have MCQs."""
    settings = make_protocol(
        mode=protocol,
        max_messages=max_messages,
        agent_temperature=agent_temperature,
        judge_temperature=judge_temperature,
        max_tokens=max_tokens,
        option_mark=option_mark,
    )
    return agentsense_task(
        name="info",
        scorer=mcq_accuracy(),
        dataset=dataset,
        protocol=settings,
        seed=seed,
        keep=lambda scene: scene.has_mcq,
    )


@task
def full(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
) -> Task:
    """Goal completion and MCQ accuracy on one conversation per scene."""
    settings = make_protocol(
        mode=protocol,
        max_messages=max_messages,
        agent_temperature=agent_temperature,
        judge_temperature=judge_temperature,
        max_tokens=max_tokens,
        option_mark=option_mark,
    )
    return agentsense_task(
        name="full", scorer=goal_and_mcq(), dataset=dataset, protocol=settings, seed=seed
    )
