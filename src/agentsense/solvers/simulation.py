"""The simulation: one agent per character, taking turns in random order after a scripted greeting.

Reproduces the official AutoGen group chat (docs/protocol.md §2): the starting character says
`Hi, there!`, then `max_messages - 1` model turns follow, each by a character other than the
previous speaker. Each character sees its own persona prompt and the conversation from its seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from inspect_ai.model import ChatMessage, ChatMessageAssistant, GenerateConfig, Model, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store_as

from ..dataset.samples import scenario_of
from ..dataset.schema import Scenario
from ..prompts import GREETING
from ..protocol import Protocol
from ..scenario.conversation import Conversation, SeatViews, Turn, Views, prefixed_text
from ..scenario.persona import character_model, system_prompt
from ..seeding import scene_rng
from ..transcript import TURN_RECORD, record_call
from .speakers import FixedOrder, SpeakerSelector, speaker_order


def turn_plan(
    scene: Scenario, protocol: Protocol, seed: int, sample_id: int | str, epoch: int
) -> tuple[str, list[str]]:
    """The replayed order of the record if it has one, else a seeded random order."""
    if scene.start_speaker is not None and scene.speaker_order is not None:
        return scene.start_speaker, list(scene.speaker_order)
    rng = scene_rng(seed, sample_id, epoch, "speakers")
    return speaker_order(scene.names, protocol.n_turns, rng)


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


@solver
def simulation(protocol: Protocol | None = None, seed: int = 0) -> Solver:
    """Role-play the scene; the conversation goes to the store (`Conversation`) and messages.

    The roles it plays on are checked before the first call (`roles.role_check`)."""
    protocol = protocol or Protocol()
    config = GenerateConfig(temperature=protocol.agent_temperature, max_tokens=protocol.max_tokens)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scene = scenario_of(state.metadata)
        start, order = turn_plan(scene, protocol, seed, state.sample_id, state.epoch)
        cast = Cast(
            prompts={
                character.name: system_prompt(scene, character) for character in scene.characters
            },
            model_roles=state.metadata.get("model_roles", {}),
        )
        conversation = store_as(Conversation)
        conversation.protocol = protocol.model_dump()
        conversation.seed = seed
        await converse(
            state,
            cast,
            FixedOrder(start, order),
            SeatViews(),  # each seat's history, extended per turn, not rebuilt per call
            config,
            max_turns=len(order) + 1,
            scripted={0: GREETING},
        )
        return state

    return solve
