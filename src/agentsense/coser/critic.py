"""CoSER's penalty-based critics: one call per dimension that lists flaws with severities.

A reply is read as CoSER reads it (coser-gca.md §3.4): newlines inside JSON strings escaped,
`json.loads`, else the longest JSON value found anywhere in the text, else one repair call;
then it must be an object keyed by dimension names whose values hold a `flaws` list, and it
must have the dimension asked for. A reply that fails is retried (the first try at temperature
0, later ones at 1, as CoSER); after the last try the dimension is *unreadable*: it gets no
score (NaN: Inspect leaves it out of the metrics and counts it in `unscored_samples`), never a
silent 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
)
from inspect_ai.util import span
from pydantic import BaseModel, Field

from agentsense.coser.prompts import DIMENSIONS, Dimension, json_repair_prompt
from agentsense.engine.reply_json import NoJSON, reply_json

DIMENSION_NAMES = tuple(dimension.name for dimension in DIMENSIONS)


class Verdict(BaseModel):
    """One critic call's outcome for one dimension, as kept in the score metadata."""

    dimension: str
    readable: bool
    flaws: list[dict[str, Any]] = Field(default_factory=list)
    attempts: int = 0
    replies: list[str] = Field(default_factory=list)  # raw replies, repair calls included


def extract_json(text: str) -> Any:
    """The reply's JSON value as CoSER reads it: newlines in strings escaped, the whole text,
    else the longest value decodable at any offset; None when there is none."""
    try:
        return reply_json(text, escape_newlines=True, longest=True)
    except NoJSON:
        return None


def read_flaws(value: Any, dimension: str) -> list[dict[str, Any]] | None:
    """CoSER's `parse_response`, plus: the dimension asked for must be there (else None)."""
    if not isinstance(value, dict) or dimension not in value:
        return None
    for key, entry in value.items():
        if key not in DIMENSION_NAMES or not isinstance(entry, dict) or "flaws" not in entry:
            return None
        if not isinstance(entry["flaws"], list) or not all(
            isinstance(flaw, dict) for flaw in entry["flaws"]
        ):
            return None
    flaws = [dict(flaw) for flaw in value[dimension]["flaws"]]
    for flaw in flaws:
        if flaw.get("severity") is None:
            flaw["severity"] = 1  # a missing severity counts as minor
    return flaws


def critic_messages(system: str, simulation: str) -> list[ChatMessage]:
    return [ChatMessageSystem(content=system), ChatMessageUser(content=simulation)]


async def judge_dimension(
    model: Model,
    dimension: Dimension,
    messages: Sequence[ChatMessage],
    attempts: int,
    max_tokens: int,
) -> Verdict:
    """Ask the critic about one dimension until a readable reply or `attempts` tries."""
    verdict = Verdict(dimension=dimension.name, readable=False)
    async with span(f"critic: {dimension.name}", type="critic"):
        for attempt in range(attempts):
            config = GenerateConfig(temperature=0.0 if attempt == 0 else 1.0, max_tokens=max_tokens)
            reply = (await model.generate(list(messages), config=config)).completion
            verdict.attempts = attempt + 1
            verdict.replies.append(reply)
            value = extract_json(reply)
            if not value:
                repair = await model.generate(
                    [ChatMessageUser(content=json_repair_prompt(reply))],
                    config=GenerateConfig(temperature=0.0, max_tokens=max_tokens),
                )
                verdict.replies.append(repair.completion)
                value = extract_json(repair.completion)
            flaws = read_flaws(value, dimension.name)
            if flaws is not None:
                verdict.readable = True
                verdict.flaws = flaws
                return verdict
    return verdict
