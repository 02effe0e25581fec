"""Sotopia (Zhou et al., ICLR 2024) on this project's engine: episodes and SOTOPIA-EVAL.

This module registers SOTOPIA-EVAL's scorer with Inspect by name (as `agentsense.coser` does);
its body imports the implementation when the scorer is made. docs/sotopia.md has the protocol.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric, Scorer, mean, scorer, stderr

# Score key of each SOTOPIA-EVAL dimension: short, so every name stays whole on an 80-column
# console (tests/test_console_names.py); `financial` is financial_and_material_benefits.
KEYS = {
    "believability": "believability",
    "relationship": "relationship",
    "knowledge": "knowledge",
    "secret": "secret",
    "social_rules": "social_rules",
    "financial_and_material_benefits": "financial",
    "goal": "goal",
}
SCORE_KEYS = (*KEYS.values(), "overall")


def environment_metrics() -> list[Metric]:
    """Inspect leaves NaN (unreadable) values out of the mean and counts them as unscored."""
    return [mean(), stderr(cluster="environment")]


@scorer(metrics={key: environment_metrics() for key in SCORE_KEYS})
def sotopia_eval() -> Scorer:
    """SOTOPIA-EVAL (role `judge`, a panel allowed): seven dimensions per agent, and overall."""
    from agentsense.sotopia.evaluation import evaluation_scorer

    return evaluation_scorer()
