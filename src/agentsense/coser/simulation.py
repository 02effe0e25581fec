"""CoSER's simulation of one scene on the project's conversation loop (coser-gca.md §2.6).

The evaluated model plays every character; the Environment is the model bound to the role
`environment`; after every turn the model bound to `next_speaker` names who acts next (CoSER's
prompt, parser, `<END CHAT>` rule and random fallback). Messages are `speech (action) [thought]`;
the others are shown them without the thoughts (`ThoughtViews`). Unbound roles fall back to
the evaluated model, and the transcript says so.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Literal

from inspect_ai.log import transcript
from inspect_ai.model import GenerateConfig, Model, get_model, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store_as
from pydantic import BaseModel, ConfigDict, Field

from agentsense.coser import prompts as coser_prompts
from agentsense.coser.record import Circumstance
from agentsense.engine.conversation import Conversation, scene_rng
from agentsense.engine.next_speaker import END_CHAT, NextSpeakerPredictor, ParserName
from agentsense.engine.roles import ENVIRONMENT_ROLE, NEXT_SPEAKER_ROLE
from agentsense.engine.scene_loop import Cast, converse
from agentsense.engine.thoughts import ThoughtViews

NextSpeakerPrompt = Literal["feb2025", "head"]


class GCASettings(BaseModel):
    """Every knob of a GCA run; task arguments, recorded in the log and read by the scorer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_rounds: int = Field(default=20, ge=1, description="messages at most (CoSER: 20)")
    continue_from: int = Field(default=0, ge=0, description="first k messages from the book")
    thoughts: bool = Field(default=True, description="ask actors for [thoughts] (wo_thought: no)")
    output_example: bool = Field(
        default=True, description="the thought/action example in Requirements (off for CoSER)"
    )
    next_speaker_prompt: NextSpeakerPrompt = Field(
        default="feb2025", description="feb2025: bare name, colon parser; head: Dec-2025 format"
    )
    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int = Field(default=512, ge=1)
    critic_max_tokens: int = Field(default=8196, ge=1)
    critic_attempts: int = Field(default=6, ge=1, description="critic tries per dimension")

    @property
    def parser(self) -> ParserName:
        return "colon" if self.next_speaker_prompt == "feb2025" else "head"


def circumstance_of(metadata: Mapping[str, object]) -> Circumstance:
    return Circumstance.model_validate(metadata["circumstance"])


def cast_prompts(record: Circumstance, settings: GCASettings, rng: random.Random) -> dict[str, str]:
    """Every speaker's system prompt, drawn in CoSER's agent order (one RNG stream)."""
    involved = record.involved_profiles()
    requirements = coser_prompts.output_format(settings.thoughts, settings.output_example)
    result: dict[str, str] = {}
    for name in record.speakers:
        if name == coser_prompts.ENVIRONMENT:
            role = rng.choice(coser_prompts.ENVIRONMENT_ROLES)
            result[name] = coser_prompts.environment_prompt(
                role, record.major_characters, record.scenario
            )
            continue
        decorator = rng.choice(coser_prompts.PROFILE_DECORATORS) if involved else ""
        result[name] = coser_prompts.character_prompt(
            character=name,
            book=record.book,
            profile=record.profile(name),
            scenario=record.scenario,
            other_profiles=list(involved.items()),
            decorator=decorator,
            motivation=record.motivation(name),
            requirements=requirements,
        )
    return result


def note_unbound(role: str) -> None:
    """Say in the transcript when the evaluated model stands in for an unbound role."""
    if role not in model_roles():
        transcript().info(
            f"No model is bound to the role '{role}': the evaluated model plays it. "
            f"Bind one with --model-role {role}=<model>."
        )


def role_model(role: str) -> Model:
    """The model bound to `role`, else the evaluated model."""
    note_unbound(role)
    # By design an unbound role is played by the evaluated model (and the transcript says so).
    return get_model(role=role, default=get_model())


def predictor(
    record: Circumstance,
    settings: GCASettings,
    views: ThoughtViews,
    rng: random.Random,
    config: GenerateConfig,
) -> NextSpeakerPredictor:
    speakers = record.speakers
    k = min(settings.continue_from, len(record.dialogues))
    reference = [message.character for message in record.dialogues]
    # Seeded rounds keep the book's speakers; after the last one the book's next speaker is the
    # predictor's answer, checked like any other (docs/gca.md, ambiguity 7).
    forced = {i: reference[i] for i in range(1, k)}
    seeded = [reference[i + 1] if i + 1 < len(reference) else END_CHAT for i in range(k)]
    models: list[Model] = []

    def model() -> Model:
        if not models:
            models.append(role_model(NEXT_SPEAKER_ROLE))
        return models[0]

    return NextSpeakerPredictor(
        model=model,
        system=coser_prompts.next_speaker_prompt(
            speakers, record.scenario, output_format=settings.next_speaker_prompt == "head"
        ),
        views=views,
        first_speaker=reference[0] if k else speakers[0],
        speakers=speakers,
        fallback=[*record.major_characters, coser_prompts.ENVIRONMENT],
        rng=rng,
        config=config,
        parser=settings.parser,
        seeded=seeded,
        forced=forced,
        name=coser_prompts.NSP,
        reprompt_on_invalid=settings.next_speaker_prompt == "head",
    )


@solver
def gca_simulation(settings: GCASettings | None = None, seed: int = 0) -> Solver:
    """Simulate the scene as CoSER does; the conversation goes to the store and messages."""
    settings = settings or GCASettings()
    config = GenerateConfig(temperature=settings.temperature, max_tokens=settings.max_tokens)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        record = circumstance_of(state.metadata)
        rng = scene_rng(seed, state.sample_id, state.epoch, "gca")
        cast = Cast(
            prompts=cast_prompts(record, settings, rng),
            model_roles={coser_prompts.ENVIRONMENT: ENVIRONMENT_ROLE},
        )
        note_unbound(ENVIRONMENT_ROLE)
        conversation = store_as(Conversation)
        conversation.protocol = settings.model_dump()
        conversation.seed = seed
        views = ThoughtViews(coser_prompts.CONVERSATION_START)
        k = min(settings.continue_from, len(record.dialogues))
        await converse(
            state,
            cast,
            predictor(record, settings, views, rng, config),
            views,
            config,
            max_turns=settings.max_rounds,
            scripted={i: record.dialogues[i].message for i in range(k)},
        )
        return state

    return solve
