"""The simulation: one agent per character, taking turns in random order after a scripted greeting.

Reproduces the official AutoGen group chat (docs/protocol.md §2): the starting character says
`Hi, there!`, then `max_messages - 1` model turns follow, each by a character other than the
previous speaker. Each character sees its own persona prompt and the conversation from its seat.
"""

from __future__ import annotations

from inspect_ai.model import GenerateConfig
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store_as

from agentsense.engine.conversation import Conversation, SeatViews, scene_rng
from agentsense.engine.scene_loop import Cast, FixedOrder, converse, speaker_order
from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.persona import system_prompt
from agentsense.sense.prompts import GREETING
from agentsense.sense.protocol import Protocol


def turn_plan(
    scene: Scenario, protocol: Protocol, seed: int, sample_id: int | str, epoch: int
) -> tuple[str, list[str]]:
    """The replayed order of the record if it has one, else a seeded random order."""
    if scene.start_speaker is not None and scene.speaker_order is not None:
        return scene.start_speaker, list(scene.speaker_order)
    rng = scene_rng(seed, sample_id, epoch, "speakers")
    return speaker_order(scene.names, protocol.n_turns, rng)


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
