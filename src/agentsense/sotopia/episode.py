"""One Sotopia episode on the engine, as sotopia 0.1.5's `arun_one_episode` runs it.

Who sees what: agent `i` is sent its own background first and, after every turn, the turn's
actions (`render.py`); it is asked for an action (one user message, Sotopia's agent prompt,
`prompts.agent_prompt`) only on its turn (round-robin: agent 0 first). The episode ends after
`max_turns` turns, when an agent leaves, or when the agents do nothing for too long
(`terminated`). Both agents are played by the model on the role `character` (the evaluated
model when unbound). The judge's history (`judge_history`) goes to the store for the scorer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Literal

from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    ResponseSchema,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, json_schema, store_as
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentsense.engine.roles import CHARACTER_ROLE
from agentsense.sotopia import render
from agentsense.sotopia.prompts import (
    ACTION_TYPES,
    ActionType,
    AgentAction,
    action_types,
    agent_prompt,
    render_action,
)
from agentsense.sotopia.record import Episode

ENVIRONMENT = "Environment"


class SotopiaSettings(BaseModel):
    """Every knob of an episode and its evaluation; task arguments, recorded in the log."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_turns: int = Field(default=20, ge=1, description="turns at most (sotopia: 20)")
    max_stale_turns: int = Field(default=2, ge=0, description="sotopia's max_stale_turn: 2")
    action_order: Literal["round-robin", "simultaneous"] = "round-robin"
    # The agent prompt's action list: 0.1.5's order depends on PYTHONHASHSEED (docs/sotopia.md).
    action_types: tuple[ActionType, ...] = ACTION_TYPES
    omniscient: bool = Field(default=False, description="agents see each other's goals")
    structured: bool = Field(default=True, description="ask for the AgentAction JSON schema")
    temperature: float | None = Field(default=None, ge=0.0)
    max_tokens: int | None = Field(default=None, ge=1)
    judge_temperature: float | None = Field(default=None, ge=0.0)
    judge_max_tokens: int | None = Field(default=None, ge=1)

    @field_validator("action_types", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        return action_types(value) if isinstance(value, str | list | tuple) else value


class Action(BaseModel):
    turn: int  # the environment's turn number, from 1
    speaker: str
    action_type: str
    argument: str = ""
    unparsed: bool = False  # the reply was not an action: `none`, as in 0.1.5


class SotopiaEpisode(StoreModel):
    """The episode in the sample store (and so in the log): what the scorer reads."""

    agents: list[str] = Field(default_factory=list)
    actions: list[Action] = Field(default_factory=list)
    terminated_because: str = ""
    judge_history: str = ""
    settings: dict[str, object] = Field(default_factory=dict)


def episode_of(metadata: dict[str, object]) -> Episode:
    return Episode.model_validate(metadata["episode"])


def read_action(text: str) -> AgentAction | None:
    """An action from a reply (0.1.5: a leading ```json fence dropped, `properties` unwrapped)."""
    body = re.sub(r"^```(json)?\s*", "", text.strip()).removesuffix("```").strip()
    try:
        data = json.loads(body)
        if isinstance(data, dict) and isinstance(data.get("properties"), dict):
            data = data["properties"]
        return AgentAction.model_validate(data)
    except (json.JSONDecodeError, ValidationError):
        return None


def terminated(turn: int, actions: Sequence[Action], settings: SotopiaSettings) -> str:
    """`RuleBasedTerminatedEvaluator` (`envs/evaluators.py:52-109`): the reasons, or ''."""
    latest: dict[str, str] = {}
    for action in reversed(actions):
        latest.setdefault(action.speaker, action.action_type)
    active = sum(1 for kind in latest.values() if kind != "leave") if latest else 2
    stale = 0
    for action in reversed(actions):
        if action.action_type != "none" or stale > settings.max_stale_turns:
            break
        stale += 1
    return (
        ("The conversation is too long; " if turn >= settings.max_turns else "")
        + ("Too few active agents; " if active < 2 else "")
        + ("The conversation stales for too long; " if stale > settings.max_stale_turns else "")
    )


def judge_history(episode: Episode, actions: Sequence[Action]) -> str:
    """The environment's inbox, every message whose text holds `did nothing` left out (as 0.1.5
    does, `envs/evaluators.py:143-159`: the masked agent's `none`, and any such utterance)."""
    inbox = [render.environment_background(episode)]
    for turn in sorted({a.turn for a in actions}):
        inbox.append(f"Turn #{turn}")
        inbox += [
            f"{a.speaker} {render_action(a.action_type, a.argument)}"
            for a in actions
            if a.turn == turn
        ]
    return "\n".join(text for text in inbox if "did nothing" not in text)


def config_of(settings: SotopiaSettings) -> GenerateConfig:
    schema = ResponseSchema(name="AgentAction", json_schema=json_schema(AgentAction), strict=True)
    return GenerateConfig(
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        response_schema=schema if settings.structured else None,
    )


def acting(turn: int, agents: int, order: str) -> list[bool]:
    """The action mask: round-robin gives turn `n` to agent `n % agents`."""
    return [order == "simultaneous" or i == turn % agents for i in range(agents)]


@solver
def sotopia_episode(settings: SotopiaSettings | None = None) -> Solver:
    """Run the episode; the actions go to the store and, speaker-named, to the messages."""
    settings = settings or SotopiaSettings()
    config = config_of(settings)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        episode = episode_of(state.metadata)
        names = render.names_of(episode)
        model = get_model(role=CHARACTER_ROLE, default=get_model())
        inboxes = [
            [render.first_observation(render.agent_background(episode, i, settings.omniscient))]
            for i in range(len(names))
        ]
        store = store_as(SotopiaEpisode)
        store.agents, store.settings = names, settings.model_dump()
        actions: list[Action] = []
        turn, reason = 0, ""
        while not reason:
            mask = acting(turn, len(names), settings.action_order)
            step: list[Action] = []
            for i, name in enumerate(names):
                if not mask[i]:
                    step.append(Action(turn=turn + 1, speaker=name, action_type="none"))
                    continue
                history = "\n".join(inboxes[i])
                prompt = agent_prompt(name, history, turn, settings.action_types)
                output = await model.generate([ChatMessageUser(content=prompt)], config=config)
                parsed = read_action(output.completion)
                step.append(
                    Action(
                        turn=turn + 1,
                        speaker=name,
                        action_type=parsed.action_type if parsed else "none",
                        argument=parsed.argument if parsed else "",
                        unparsed=parsed is None,
                    )
                )
            turn += 1
            actions += step
            reason = terminated(turn, actions, settings)
            text = render.actions_text([(a.speaker, a.action_type, a.argument) for a in step])
            for i in range(len(names)):
                inboxes[i].append(render.observation(turn, render.for_agent(text, i)))
            state.messages += [viewer_message(a) for a in step if a.action_type != "none"]
        store.actions, store.terminated_because = actions, reason
        store.judge_history = judge_history(episode, actions)
        return state

    return solve


def viewer_message(action: Action) -> ChatMessageAssistant:
    """A turn as Inspect View shows it: the speaker's name and the rendered action."""
    text = render.actions_text([(action.speaker, action.action_type, action.argument)])
    return ChatMessageAssistant(
        content=f"Turn #{action.turn}: {text}",
        metadata={"speaker": action.speaker, "action_type": action.action_type},
    )
