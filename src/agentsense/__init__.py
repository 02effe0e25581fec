"""AgentSense (Mou et al., arXiv 2410.19346) and CoSER's Given-Circumstance Acting as an Inspect AI
task suite. The tasks (`agentsense.goal`, ...) are those of the task table, `agentsense.tasks`,
loaded on first use so that importing a submodule loads nothing else."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "blind",
    "construct",
    "full",
    "gca",
    "goal",
    "info",
    "judge_check",
    "labelling",
    "pairwise",
    "script_prediction",
    "sotopia",
]

if TYPE_CHECKING:
    from agentsense.tasks import (
        blind,
        construct,
        full,
        gca,
        goal,
        info,
        judge_check,
        labelling,
        pairwise,
        script_prediction,
        sotopia,
    )


def __getattr__(name: str) -> Any:
    if name in __all__:
        from agentsense import tasks

        return getattr(tasks, name)
    raise AttributeError(f"module 'agentsense' has no attribute {name!r}")
