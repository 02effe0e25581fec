"""`agentsense/gca`: CoSER's Given-Circumstance Acting (Wang et al., 2025) on this project's engine.

The evaluated model plays every character of a scene from a book; the roles `environment`,
`next_speaker` and `critic` play the Environment, the next-speaker predictor and the four
critics (each falls back to the evaluated model when unbound). docs/gca.md has the protocol and
every decision taken where CoSER's code and paper differ.
"""

from __future__ import annotations

from inspect_ai import Task, task
from pydantic import ValidationError

from agentsense.coser.dataset import gca_dataset, load_circumstances
from agentsense.coser.scorer import gca_critics
from agentsense.coser.simulation import GCASettings, NextSpeakerPrompt, gca_simulation
from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.strict import strict_arguments
from agentsense.engine.version import eval_version
from agentsense.sense.tasks.common import argument_errors


def gca_settings(**values: object) -> GCASettings:
    try:
        return GCASettings.model_validate(values)
    except ValidationError as error:
        raise PrerequisiteError(argument_errors(error)) from None


@task
@strict_arguments
def gca(
    dataset: str = "official",
    seed: int = 0,
    max_rounds: int = 20,
    continue_from: int = 0,
    thoughts: bool = True,
    output_example: bool = True,
    next_speaker_prompt: NextSpeakerPrompt = "feb2025",
    temperature: float = 0.0,
    max_tokens: int = 512,
    critic_max_tokens: int = 8196,
    critic_attempts: int = 6,
) -> Task:
    """Given-Circumstance Acting: simulate each scene, then CoSER's four penalty-based critics.

    Args:
        dataset: `official` (CoSER's 200 test scenes), `example` (its 3), `demo` (3 scenes
            written for this project), or the path of a JSON file in CoSER's schema.
        seed: seeds the Environment's role phrase, the profile separator and the next-speaker
            fallback per scene and epoch.
        max_rounds: messages at most (CoSER: 20).
        continue_from: the first k messages are the book's (docs/gca.md, ambiguity 7).
        thoughts: ask actors for `[thought]`s; false is CoSER's `--wo_thought`.
        output_example: the thought/action example in the actor prompt (CoSER drops it for
            CoSER-trained actors).
        next_speaker_prompt: `feb2025` (the paper's code) or `head` (the Dec-2025 prompt and
            parser).
        temperature: actor, Environment and next-speaker temperature.
        max_tokens: per actor, Environment and next-speaker call.
        critic_max_tokens: per critic call.
        critic_attempts: critic tries per dimension before it counts as unreadable.
    """
    settings = gca_settings(
        max_rounds=max_rounds,
        continue_from=continue_from,
        thoughts=thoughts,
        output_example=output_example,
        next_speaker_prompt=next_speaker_prompt,
        temperature=temperature,
        max_tokens=max_tokens,
        critic_max_tokens=critic_max_tokens,
        critic_attempts=critic_attempts,
    )
    records = load_circumstances(dataset)
    return Task(
        dataset=gca_dataset(records, name=f"coser-{dataset}" if "/" not in dataset else dataset),
        solver=gca_simulation(settings=settings, seed=seed),
        scorer=gca_critics(),
        version=eval_version().comparability_version,
        metadata={
            "gca": settings.model_dump(),
            "dataset": dataset,
            "seed": seed,
            **eval_version().to_metadata(),
        },
    )
