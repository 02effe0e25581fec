"""Say once on the console what each transcript says: the characters judge themselves.

An Inspect hook, registered when an AgentSense task is built (`tasks/strict.py`), not when Inspect
loads the package: registered at import, Inspect would list it at the start of every `inspect`
command, other benchmarks' too.
"""

from __future__ import annotations

from inspect_ai.hooks import Hooks, TaskStart, hooks

from agentsense.engine.console import warn
from agentsense.engine.judge_panel import SELF_JUDGING, judges_goals
from agentsense.engine.roles import JUDGE_ROLE


@hooks(name="agentsense_self_judging", description="Warns when no judge is bound.")
class SelfJudgingCheck(Hooks):
    async def on_task_start(self, data: TaskStart) -> None:
        spec = data.spec
        scorers = [scorer.name for scorer in spec.scorers or []]
        if judges_goals(scorers) and JUDGE_ROLE not in (spec.model_roles or {}):
            warn(f"AgentSense {spec.task}: {SELF_JUDGING} Self-judging inflates scores.")
