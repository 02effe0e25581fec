"""The judge panel: every model bound to the Inspect role `judge` (a list makes a panel)."""

from __future__ import annotations

from dataclasses import dataclass

from inspect_ai.log import transcript
from inspect_ai.model import Model, get_model, model_roles

JUDGE_ROLE = "judge"


@dataclass(frozen=True)
class Judge:
    """One judge of the panel: its score key (`judge_1`, ...) and its model."""

    key: str
    model: Model

    @property
    def name(self) -> str:
        return str(self.model)


def judge_panel() -> tuple[list[Judge], bool]:
    """The judges bound to the role `judge`, in binding order, and whether the role was bound.

    Unbound, the evaluated model judges itself; the transcript says so, since that inflates scores.
    """
    bound = model_roles().get(JUDGE_ROLE)
    if bound is None:
        transcript().info(
            "No model is bound to the role 'judge': the evaluated model judges the goals. "
            "Bind a panel with --model-role judge=<model>,<model>,<model>."
        )
        # On the role all the same, so per-role usage counts these calls as judging.
        return [Judge("judge_1", get_model(role=JUDGE_ROLE, default=get_model()))], False
    models = bound if isinstance(bound, list) else [bound]
    return [Judge(f"judge_{i}", model) for i, model in enumerate(models, start=1)], True
