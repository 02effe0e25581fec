"""`agentsense/blind`: the paper's blind test (§4.3), the leakage baseline of MCQ accuracy.

Each character answers its private-information MCQs from the scenario information alone: its
persona system prompt (background, description, its own goals and secret) and the MCQ as the only
user message, with no conversation. The paper asks each question three times (`epochs=3`).
Questions, formatting, parsing (official MCQ parser) and aggregation (per character, then per
scene) are those of the real MCQ evaluation, at the protocol's interview temperature, so
`blind_mcq_accuracy` sits next to `mcq_accuracy` as the accuracy a model gets without interacting.
"""

from __future__ import annotations

from inspect_ai import Task, task

from agentsense.engine.strict import strict_arguments
from agentsense.sense.leakage.blind_test import BLIND_KEY, blind_interview, blind_mcq
from agentsense.sense.protocol import Mode, OptionMark
from agentsense.sense.tasks.common import NEEDS_MCQS, TaskArguments, agentsense_task, task_scenes

# No conversation: the message budget does not apply.
BLIND_EXCLUDES = ("max_messages",)


@task
@strict_arguments
def blind(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    shard: str | None = None,
    per_template: int | None = None,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
    epochs: int = 3,
) -> Task:
    """Blind test: MCQs answered before any interaction, on the scenes that have MCQs.

    Args:
        epochs: times each question is asked (the paper: 3).
    """
    arguments = TaskArguments.parse(locals(), exclude=BLIND_EXCLUDES)
    scenes = task_scenes(arguments, "blind", keep=lambda scene: scene.has_mcq, needs=NEEDS_MCQS)
    return agentsense_task(
        arguments,
        solver=blind_interview(protocol=arguments.settings, seed=seed),
        scorer=blind_mcq(),
        scenes=scenes,
        epochs=epochs,
        headline_score=BLIND_KEY,
    )
