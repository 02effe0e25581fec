"""`agentsense/pairwise`: heterogeneous runs, senders played by one model and receivers by another.

Each character is labelled sender or receiver in the record's `roles` (official
`data_with_role.jsonl`, labelled by GPT-4o with paper Prompt 19; the demo set carries labels too).
Senders bind to the Inspect model role `sender` and receivers to `receiver`; an unbound role falls
back to the evaluated model. As in the official `label_role.py`, scenes whose labels do not include
both a sender and a receiver are left out.

The roles can be bound per eval (`--model-role sender=... --model-role receiver=...`) or per task
(`-T sender=... -T receiver=...`); the task form lets one eval-set run a grid of pairs, since the
task identity of an eval-set includes its model roles (docs/analysis.md).
"""

from __future__ import annotations

from inspect_ai import Task, task, task_with

from agentsense.engine.roles import RECEIVER_ROLE, SENDER_ROLE
from agentsense.engine.strict import strict_arguments
from agentsense.sense.persona import has_both_roles, role_binding
from agentsense.sense.protocol import Mode, OptionMark
from agentsense.sense.scorers.scoring import goal_and_mcq
from agentsense.sense.tasks.common import NEEDS_ROLES, TaskArguments, agentsense_task, task_scenes


@task
@strict_arguments
def pairwise(
    dataset: str = "official_roles",
    protocol: Mode = "official",
    seed: int = 0,
    shard: str | None = None,
    per_template: int | None = None,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
    sender: str | None = None,
    receiver: str | None = None,
) -> Task:
    """Goal completion and MCQ accuracy with senders and receivers played by different models.

    Args:
        sender: model for the role `sender` (default: `--model-role sender=...`, else the
            evaluated model).
        receiver: model for the role `receiver` (same fallbacks).
    """
    arguments = TaskArguments.parse(locals())
    scenes = task_scenes(arguments, "pairwise", keep=has_both_roles, needs=NEEDS_ROLES)
    built = agentsense_task(arguments, scorer=goal_and_mcq(), scenes=scenes, bind=role_binding)
    roles = {
        role: model for role, model in ((SENDER_ROLE, sender), (RECEIVER_ROLE, receiver)) if model
    }
    # Task-level roles are defaults: an eval-level --model-role for the same role overrides them.
    return task_with(built, model_roles=roles) if roles else built
