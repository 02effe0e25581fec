"""The scene loop every benchmark here runs: a selector names the next speaker, who speaks on
the model role that plays it, seeing the conversation from its seat; until the selector stops.

Who speaks when. AgentSense: a random first speaker, then a uniformly random *other* speaker.

With two characters this strictly alternates. Randomness is seeded per sample and epoch, so every
model is evaluated on the same turn order for the same seed. The conversation loop asks a
`SpeakerSelector`; `FixedOrder` is AgentSense's, `next_speaker.NextSpeakerPredictor` (an LLM that
names the next speaker, CoSER's) is the other choice.

Seeded randomness shared by the simulation (turn order) and the interviews (MCQ option marks).

It lives outside `solvers/` and `scorers/` so that both depend on it and neither on the other.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Model,
    ModelOutput,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from agentsense.engine.conversation import (
    TURN_RECORD,
    Conversation,
    Turn,
    Views,
    prefixed_text,
    record_call,
)
from agentsense.engine.roles import character_model


def transcript_message(turn: Turn, model: str | None, role: str | None) -> ChatMessage:
    """A turn as Inspect View's Messages tab shows it: `Speaker: text`, the name once (also when
    the reply starts with it). Metadata only where it adds to that: a bound model role
    (pairwise), and the mark of the scripted greeting."""
    metadata: dict[str, str | bool] = {}
    if role is not None:
        metadata["model_role"] = role
    if turn.scripted:
        metadata["scripted"] = True
    return ChatMessageAssistant(
        content=prefixed_text(turn),
        model=model,
        source="generate" if not turn.scripted else None,
        metadata=metadata or None,
    )


def turn_label(turn: int, speaker: str) -> str:
    """The name of a model turn in the transcript (its record's label)."""
    return f"{speaker} · turn {turn}"


@dataclass(frozen=True)
class Cast:
    """Who may speak: each participant's system prompt and the model role that plays it."""

    prompts: Mapping[str, str]
    model_roles: Mapping[str, str | None]


async def converse(
    state: TaskState,
    cast: Cast,
    selector: SpeakerSelector,
    views: Views,
    config: GenerateConfig,
    max_turns: int,
    scripted: Mapping[int, str] | None = None,
) -> list[Turn]:
    """The conversation loop: the selector names a speaker, who speaks; until it says stop.

    Turn `i` is scripted (no model call) when `scripted` has text for it. Every turn goes to the
    store (`Conversation.turns`, saved per turn so a failed sample still shows its history), the
    views, and the sample's messages.
    """
    scripted = scripted or {}
    conversation = store_as(Conversation)
    models: dict[str, Model] = {}  # looked up once per participant, not per turn
    turns: list[Turn] = []
    first = selector.first()
    conversation.start_speaker = first
    speaker: str | None = first
    while speaker is not None and len(turns) < max_turns:
        index = len(turns)
        role = cast.model_roles.get(speaker)
        if index in scripted:
            turn = Turn(index=index, speaker=speaker, text=scripted[index], scripted=True)
            model_name = None
        else:
            if speaker not in models:
                models[speaker] = character_model(speaker, cast.model_roles)
            model = models[speaker]
            output = await model.generate(
                views.prompt(cast.prompts[speaker], speaker), config=config
            )
            record_call(TURN_RECORD, turn_label(index, speaker))
            turn = Turn(index=index, speaker=speaker, text=output.completion or "")
            model_name = str(model)
        views.append(turn)
        turns = [*turns, turn]
        conversation.turns = turns
        state.messages.append(transcript_message(turn, model_name, role))
        if len(turns) < max_turns:
            speaker = await selector.next(turns)
    if turns:
        last = turns[-1]
        state.output = ModelOutput.from_content(model="simulation", content=prefixed_text(last))
    return turns


def speaker_order(names: Sequence[str], n_turns: int, rng: random.Random) -> tuple[str, list[str]]:
    """Draw the starting speaker (who says the greeting) and the speakers of the next turns."""
    start = rng.choice(list(names))
    order: list[str] = []
    previous = start
    for _ in range(n_turns):
        candidates = [name for name in names if name != previous]
        previous = candidates[0] if len(candidates) == 1 else rng.choice(candidates)
        order.append(previous)
    return start, order


class SpeakerSelector(Protocol):
    """Chooses who speaks: the first speaker, then the next one after each turn (None: stop)."""

    def first(self) -> str: ...

    async def next(self, turns: Sequence[Turn]) -> str | None: ...


class FixedOrder:
    """A speaker order drawn (or replayed) before the conversation starts."""

    def __init__(self, start: str, order: Sequence[str]) -> None:
        self._start = start
        self._order = list(order)

    def first(self) -> str:
        return self._start

    async def next(self, turns: Sequence[Turn]) -> str | None:
        # turns[0] is the first speaker's; turn i (i >= 1) is order[i - 1].
        done = len(turns) - 1
        return self._order[done] if done < len(self._order) else None
