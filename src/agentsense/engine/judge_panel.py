"""The judge panel: every model bound to the Inspect role `judge` (a list makes a panel)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from inspect_ai.log import transcript
from inspect_ai.model import Model, get_model, model_roles

from agentsense.engine.roles import JUDGE_ROLE

SELF_JUDGING = (
    "No model is bound to the role 'judge': the evaluated model judges the goals. "
    "Bind a panel with --model-role judge=<model>,<model>,<model>."
)


@dataclass(frozen=True)
class Judge:
    """One judge of the panel: its score key (`judge_1`, ...) and its model."""

    key: str
    model: Model

    @property
    def name(self) -> str:
        return str(self.model)


def judge_panel(key: Callable[[int], str]) -> tuple[list[Judge], bool]:
    """The judges bound to the role `judge`, in binding order, and whether the role was bound;
    `key(n)` names the score of judge `n` (from 1).

    Unbound, the evaluated model judges itself; the transcript says so, since that inflates scores.
    """
    bound = model_roles().get(JUDGE_ROLE)
    if bound is None:
        transcript().info(SELF_JUDGING)
        # On the role all the same, so per-role usage counts these calls as judging.
        return [Judge(key(1), get_model(role=JUDGE_ROLE, default=get_model()))], False
    models = bound if isinstance(bound, list) else [bound]
    return [Judge(key(i), model) for i, model in enumerate(models, start=1)], True
