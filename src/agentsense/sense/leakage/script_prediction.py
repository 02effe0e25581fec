"""Script prediction (§4.3, Table 2 "Script Acc."): name a scenario's script from its background.

One sample per scene (the task keeps one scene per template, as the paper): the prompt
(`prompts.SCRIPT_PREDICTION_PROMPT`) with the scene's background as the only user message,
answered by the evaluated model with Inspect's `generate()`; the target is the script's titles
(`titles`). The scorer reads the reply with the answer rule of `script_answers` and keeps the raw
reply, the title it read and the title it matched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from agentsense.sense.dataset.samples import no_roles, scene_metadata
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.leakage.script_answers import matched_title, named_title
from agentsense.sense.leakage.titles import Titles
from agentsense.sense.metrics import clustered_uncertainty, template_metrics
from agentsense.sense.prompts import script_prediction_prompt
from agentsense.sense.score_keys import SCRIPT_ACCURACY

SCRIPT_KEY = SCRIPT_ACCURACY


def script_sample(scene: Scenario, titles: Titles) -> Sample:
    return Sample(
        id=scene.sample_idx,
        input=script_prediction_prompt(scene.background),
        target=list(titles),
        metadata=scene_metadata(scene, no_roles(scene)),
    )


def script_dataset(
    scenes: Sequence[Scenario], truth: Mapping[str, Titles], name: str
) -> MemoryDataset:
    """`truth`: sample id -> titles (`titles.script_titles` refuses scenes without)."""
    return MemoryDataset(
        [script_sample(scene, truth[str(scene.sample_idx)]) for scene in scenes], name=name
    )


# The template mean logs as `script_accuracy_tmean` in a block of its own (a package metric in the
# key's block would print as `agentsense/template_mean`); no PSI: one scene per template.
@scorer(
    metrics=[
        {SCRIPT_KEY: [mean(), *clustered_uncertainty()]},
        template_metrics([SCRIPT_KEY], psi=False),
    ]
)
def script_title() -> Scorer:
    """1 when the reply names the scene's script (tolerant of case, articles, punctuation)."""

    async def score(state: TaskState, target: Target) -> Score:
        reply = state.output.completion
        read = named_title(reply)
        matched = matched_title(reply, target.target)
        verdict = "✓" if matched else "✗"
        return Score(
            value={SCRIPT_KEY: 1.0 if matched else 0.0},
            answer=reply,
            explanation=f"read {read!r} {verdict}; the script: {' / '.join(target.target)}",
            metadata={"reply": reply, "read": read, "matched": matched, "titles": target.target},
        )

    return score
