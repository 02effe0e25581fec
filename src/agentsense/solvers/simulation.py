"""The simulation: one agent per character, taking turns in random order after a scripted greeting.

Reproduces the official AutoGen group chat (docs/protocol.md §2): the starting character says
`Hi, there!`, then `max_messages - 1` model turns follow, each by a character other than the
previous speaker. Each character sees its own persona prompt and the conversation from its seat.
"""

from __future__ import annotations

from inspect_ai.model import ChatMessage, ChatMessageAssistant, GenerateConfig, Model, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span, store_as

from ..dataset.samples import scenario_of
from ..dataset.schema import Scenario
from ..prompts import GREETING
from ..protocol import Protocol
from ..seeding import scene_rng
from .characters import character_model, system_prompt
from .conversation import Conversation, SeatViews, Turn
from .speakers import speaker_order

# Not "turn": Inspect View reserves that span type for its own outline, where it would fold
# our turns into unnamed "1 turn" rows.
TURN_SPAN = "utterance"


def turn_plan(
    scene: Scenario, protocol: Protocol, seed: int, sample_id: int | str, epoch: int
) -> tuple[str, list[str]]:
    """The replayed order of the record if it has one, else a seeded random order."""
    if scene.start_speaker is not None and scene.speaker_order is not None:
        return scene.start_speaker, list(scene.speaker_order)
    rng = scene_rng(seed, sample_id, epoch, "speakers")
    return speaker_order(scene.names, protocol.n_turns, rng)


def transcript_message(turn: Turn, model: str | None, role: str | None) -> ChatMessage:
    """A turn as Inspect View's Messages tab shows it: `Speaker: text`. Metadata only where it
    adds to that: a bound model role (pairwise), and the mark of the scripted greeting."""
    metadata: dict[str, str | bool] = {}
    if role is not None:
        metadata["model_role"] = role
    if turn.scripted:
        metadata["scripted"] = True
    return ChatMessageAssistant(
        content=f"{turn.speaker}: {turn.text}",
        model=model,
        source="generate" if not turn.scripted else None,
        metadata=metadata or None,
    )


def turn_span(turn: int, speaker: str) -> str:
    """The span name of a model turn (type `TURN_SPAN`), as the Transcript outline lists it."""
    return f"{speaker} · turn {turn}"


@solver
def simulation(protocol: Protocol | None = None, seed: int = 0) -> Solver:
    """Role-play the scene; the conversation goes to the store (`Conversation`) and messages."""
    protocol = protocol or Protocol()
    config = GenerateConfig(temperature=protocol.agent_temperature, max_tokens=protocol.max_tokens)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scene = scenario_of(state.metadata)
        model_roles = state.metadata.get("model_roles", {})
        start, order = turn_plan(scene, protocol, seed, state.sample_id, state.epoch)
        prompts = {
            character.name: system_prompt(scene, character) for character in scene.characters
        }
        models: dict[str, Model] = {}  # looked up once per character, not per turn

        conversation = store_as(Conversation)
        turns = [Turn(index=0, speaker=start, text=GREETING, scripted=True)]
        conversation.start_speaker = start
        conversation.protocol = protocol.model_dump()
        conversation.seed = seed
        conversation.turns = turns
        state.messages.append(transcript_message(turns[0], None, model_roles.get(start)))
        views = SeatViews(turns)  # each seat's history, extended per turn, not rebuilt per call

        for index, speaker in enumerate(order, start=1):
            async with span(turn_span(index, speaker), type=TURN_SPAN):
                if speaker not in models:
                    models[speaker] = character_model(speaker, model_roles)
                model = models[speaker]
                output = await model.generate(
                    views.prompt(prompts[speaker], speaker), config=config
                )
                turn = Turn(index=index, speaker=speaker, text=output.completion or "")
                views.append(turn)
                turns = [*turns, turn]
                conversation.turns = (
                    turns  # saved per turn: a failed sample still shows its history
                )
                state.messages.append(
                    transcript_message(turn, str(model), model_roles.get(speaker))
                )

        last = turns[-1]
        state.output = ModelOutput.from_content(
            model="simulation", content=f"{last.speaker}: {last.text}"
        )
        return state

    return solve
