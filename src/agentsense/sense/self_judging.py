"""Say once on the console what each transcript says: the characters judge themselves.

An Inspect hook, registered when an AgentSense task is built (`sense/tasks/common.py` imports it),
not when Inspect loads the package: registered at import, Inspect would list it at the start of
every `inspect` command, other benchmarks' too.
"""

from __future__ import annotations

from inspect_ai.hooks import Hooks, TaskStart, hooks

from agentsense.engine.console import warn
from agentsense.engine.judge_panel import SELF_JUDGING
from agentsense.engine.roles import JUDGE_ROLE

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
