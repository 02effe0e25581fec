"""CoSER's Given-Circumstance Acting (GCA): dataset, simulation, critics, scores.

This module registers GCA's scorer, and the reference-free critics that score AgentSense
conversations (`--scorer agentsense/critics`), with Inspect by name (see `agentsense.sense`);
their bodies import the critics when they are made.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric, Scorer, mean, scorer, stderr

# Score key of each dimension: short, so that every key stays whole on an 80-column console
# (tests/test_console_names.py); docs/gca.md maps them back to CoSER's names.
KEYS = {
    "Storyline Consistency": "consistency",
    "Anthropomorphism": "humanlike",
    "Character Fidelity": "fidelity",
    "Storyline Quality": "quality",
}
SCORE_KEYS = (*KEYS.values(), "average", "bleu", "rouge_l")
# The reference-free critics (`critics`): the dimensions that need no original conversation.
REFERENCE_FREE = ("Anthropomorphism", "Character Fidelity", "Storyline Quality")
CRITIC_KEYS = (*(KEYS[name] for name in REFERENCE_FREE), "average")


def book_metrics() -> list[Metric]:
    """Inspect leaves NaN (unreadable) values out and counts them as `unscored_samples`."""
    return [mean(), stderr(cluster="book")]


@scorer(metrics={key: book_metrics() for key in SCORE_KEYS})
def gca_critics() -> Scorer:
    """CoSER's four critics (role `critic`), the length-corrected scores, BLEU and ROUGE-L."""
    from agentsense.coser.scorer import critics_scorer

    return critics_scorer()


def template_clustered() -> list[Metric]:
    """An AgentSense scene's critics: their mean, and its stderr clustered by template."""
    return [mean(), stderr(cluster="template_id")]


@scorer(metrics={key: template_clustered() for key in CRITIC_KEYS})
def critics() -> Scorer:
    """Anthropomorphism, Character Fidelity and Storyline Quality (role `critic`), CoSER-scored."""
    from agentsense.coser.reference_free import scene_critics_scorer

    return scene_critics_scorer()
