"""AgentSense (Mou et al., arXiv 2410.19346) as an Inspect AI task suite."""

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
)

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
]
