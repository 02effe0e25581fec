"""Sotopia's agent and evaluator prompts, reproduced exactly from sotopia 0.1.5 (one module).

Written out of the 0.1.5 wheel's source (docs/sotopia.md has the file and line of each): the
templates as `agenerate` sends them (after `format_docstring`, before substitution), the
`AgentAction` and `SotopiaDimensions` models whose JSON schemas are the format instructions, and
the dimensions' ranges. Long strings are split for the line length only; their text is 0.1.5's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Annotated, Generic, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, Field

SOTOPIA_VERSION = "0.1.5"  # the release these prompts come from (task metadata: sotopia_version)

ActionType = Literal["none", "speak", "non-verbal communication", "action", "leave"]
# 0.1.5 lists them from a set (`envs/parallel.py:161`), in an order that depends on
# PYTHONHASHSEED; this one is the default, and `-T action_types` takes any (`action_types`).
ACTION_TYPES: tuple[ActionType, ...] = (
    "none",
    "speak",
    "non-verbal communication",
    "action",
    "leave",
)


def action_types(listed: str | Sequence[str]) -> tuple[ActionType, ...]:
    """The agent prompt's action list from `-T action_types` (comma-separated; Inspect's CLI
    passes a list): each of the five action types exactly once, in the order given; anything
    else is refused by name."""
    text = listed if isinstance(listed, str) else ",".join(map(str, listed))
    given = [part.strip() for part in text.split(",")]
    unknown = [part for part in given if part not in ACTION_TYPES]
    repeated = sorted({part for part in given if given.count(part) > 1})
    absent = [kind for kind in ACTION_TYPES if kind not in given]
    problems = [
        f"{label} {', '.join(map(repr, names))}"
        for label, names in (("unknown", unknown), ("repeated", repeated), ("missing", absent))
        if names
    ]
    if problems:
        raise ValueError(
            f"each of {', '.join(ACTION_TYPES)} once, comma-separated, in the order of the "
            f"prompt's action list ({'; '.join(problems)})"
        )
    return tuple(kind for name in given for kind in ACTION_TYPES if kind == name)


def format_docstring(docstring: str) -> str:
    """sotopia.utils.format_docstring: a newline and the spaces after it become a newline."""
    return re.sub("\n +", "\n", docstring).strip()


class AgentAction(BaseModel):
    action_type: ActionType = Field(
        description="whether to speak at this turn or choose to not do anything"
    )
    argument: str = Field(
        description=(
            "the utterance if choose to speak, the expression or gesture if choose "
            "non-verbal communication, or the physical action if choose action"
        )
    )


def render_action(action_type: str, argument: str) -> str:
    """AgentAction.to_natural_language (`messages/message_classes.py:133-144`)."""
    if action_type == "speak":
        return f'said: "{argument}"'
    if action_type in ("non-verbal communication", "action"):
        return f"[{action_type}] {argument}"
    if action_type == "leave":
        return "left the conversation"
    return "did nothing"


def zero_to_ten(v: int) -> int:
    if v < 0 or v > 10:
        raise ValueError("The value should be between 0 and 10")
    return v


def minus_five_to_five(v: int) -> int:
    if v < -5 or v > 5:
        raise ValueError("The value should be between -5 and 5")
    return v


def minus_ten_to_zero(v: int) -> int:
    if v < -10 or v > 0:
        raise ValueError("The value should be between -10 and 0")
    return v


class SotopiaDimensions(BaseModel):
    """The social dimensions used in Sotopia paper (ICLR 2024)"""

    believability: Annotated[
        tuple[str, int], AfterValidator(lambda x: (x[0], zero_to_ten(x[1])))
    ] = Field(
        ...,
        description=(
            "Reasoning requirement: 1. Evaluate if the agent interacts with others in a "
            "natural and realistic manner (here are a few common questions to check: a. "
            "whether the agent is confusing with its own identity? b. whether the agent "
            "repeats others' words/actions without any reason? c. whether the agent is "
            "being overly polite considering the context?). Start the analysis with tag "
            "<naturalness> 2. Analyze whether the actions of the agent align with their "
            "character traits (e.g., personality, values, and etc.). Start the analysis "
            "with tag <consistency>. Output your reasoning process to the 'reasoning' "
            "field. Output an integer score ranging from 0 and 10 in the 'score' field. "
            "A higher score indicates that the agent is more believable."
        ),
    )

    relationship: Annotated[
        tuple[str, int], AfterValidator(lambda x: (x[0], minus_five_to_five(x[1])))
    ] = Field(
        ...,
        description=(
            "Please first analyze what relationship the participant has with the other "
            "agent(s) before the interaction. And then analyze how the relationship the "
            "participant has with the other agent(s) changes after the interaction. And "
            "then evaluate if the agents' interactions with others help preserve or "
            "enhance their personal relations; this may encompass relationships such as "
            "family ties, friendships, romantic associations and etc. Additionally, "
            "ascertain whether these interactions also impact their social status or "
            "reputation. In the 'reasoning' field, provide a comprehensive account of "
            "the logic or thought process that led you to your conclusion. Further, "
            "provide an integer score ranging from -5 to 5 in the 'score' field. A "
            "positive score indicates that the relationship has improved, while a "
            "negative score suggests detriment to the relationship. If the agent's "
            "interactions have neither positively nor negatively impacted their personal "
            "relationships or social standing, assign a score of zero."
        ),
    )

    knowledge: Annotated[tuple[str, int], AfterValidator(lambda x: (x[0], zero_to_ten(x[1])))] = (
        Field(
            ...,
            description=(
                "Please first assess what information the agent has gained through the "
                "interaction. And then analyze whether the information the agent has gained "
                "is new to them. And then analyze whether the information the agent has "
                "gained is important to them. In the 'reasoning' field, provide a "
                "comprehensive account of the logic or thought process that led you to your "
                "conclusion. Further, provide an integer score ranging from 0 and 10 in the "
                "'score' field. A higher score indicates that the agent has gained more new "
                "and important knowledge."
            ),
        )
    )

    secret: Annotated[
        tuple[str, int], AfterValidator(lambda x: (x[0], minus_ten_to_zero(x[1])))
    ] = Field(
        ...,
        description=(
            "First please analyze what secret or secretive intention the participant "
            "wants to keep. And then analyze whether they keep it successfully. Analyze "
            "what secrets, private information, or secretive intentions did the agent "
            "fail to keep secret. Please output the reasoning in the reasoning field. "
            "Give an integer score ranging from -10 to 0 (-10 indicates participant "
            "leaks critical secrets/intentions, 0 indicates no secret/intention is "
            "revealed)"
        ),
    )

    social_rules: Annotated[
        tuple[str, int], AfterValidator(lambda x: (x[0], minus_ten_to_zero(x[1])))
    ] = Field(
        ...,
        description=(
            "Please evaluate whether the agent violates any moral rules or laws in their "
            "interactions with others. In the 'reasoning' field, provide a comprehensive "
            "account of the logic or thought process that led you to your conclusion. "
            "Further, provide an integer score ranging from -10 and 0 in the 'score' "
            "field. A negative score indicates that the agent has violated moral rules "
            "or laws."
        ),
    )

    financial_and_material_benefits: Annotated[
        tuple[str, int], AfterValidator(lambda x: (x[0], minus_five_to_five(x[1])))
    ] = Field(
        ...,
        description=(
            "Please evaluate whether the agent's interactions with others contribute "
            "towards financial and material benefits. Analyze what the agent would "
            "gain/lose after the interactions. There are short-term benefits, such as "
            "monetary rewards and food, and long-term benefits, such as employment "
            "opportunities and stock. In the 'reasoning' field, provide a comprehensive "
            "account of the logic or thought process that led you to your conclusion. "
            "Further, provide an integer score ranging from -5 and 5 in the 'score' "
            "field. Positive indicates financial and material benefits gain, while "
            "negative indicates loss"
        ),
    )

    goal: Annotated[tuple[str, int], AfterValidator(lambda x: (x[0], zero_to_ten(x[1])))] = Field(
        ...,
        description=(
            "Please first reiterate agent's social goals. And then please provide a "
            "comprehensive analysis about the extent to which the agent has managed to "
            "achieve these goals. In the 'reasoning' field, provide a comprehensive "
            "account of the logic or thought process that led you to your conclusion. "
            "Further, provide an integer score ranging from 0 and 10 in the 'score' "
            "field. 0 represents minimal goals achievement, 10 represents complete goal "
            "achievement, and a higher score indicates that the agent is making progress "
            "towards their social goals."
        ),
    )


# Each dimension's closed range of integer scores (the validators above).
RANGES: dict[str, tuple[int, int]] = {
    "believability": (0, 10),
    "relationship": (-5, 5),
    "knowledge": (0, 10),
    "secret": (-10, 0),
    "social_rules": (-10, 0),
    "financial_and_material_benefits": (-5, 5),
    "goal": (0, 10),
}
DIMENSIONS = tuple(RANGES)

T_eval_dim = TypeVar("T_eval_dim", bound=BaseModel)


class EvaluationForAgents(BaseModel, Generic[T_eval_dim]):
    evaluations: dict[str, T_eval_dim]


AGENT_TEMPLATE = (
    "Imagine you are {agent}, your task is to act/speak as {agent} would, keeping in "
    "mind {agent}'s social goal.\nYou can find {agent}'s goal (or background) in the "
    "'Here is the context of the interaction' field.\nNote that {agent}'s goal is only "
    "visible to you.\nYou should try your best to achieve {agent}'s goal in a way that "
    "align with their character traits.\nAdditionally, maintaining the conversation's "
    "naturalness and realism is essential (e.g., do not repeat what other people has "
    "already said before).\n{history}.\nYou are at Turn #{turn_number}. Your available "
    'action types are\n{action_list}.\nNote: You can "leave" this conversation if 1. you '
    "have achieved your social goals, 2. this conversation makes you uncomfortable, 3. "
    "you find it uninteresting/you lose your patience, 4. or for other reasons you want "
    "to leave.\n\nPlease only generate a JSON string including the action type and the "
    "argument.\nYour action should follow the given format:\n{format_instructions}"
)

EVALUATOR_TEMPLATE = (
    "{history}\nBased on previous interactions, evaluate how well participants achieve "
    "their goals.\n{agent_instruction}\nPlease follow the format:\n{format_instructions}"
)


def fill(template: str, values: dict[str, str]) -> str:
    """`agenerate`'s substitution (`generation_utils/generate.py:150-155`), in its key order."""
    for key, value in values.items():
        template = template.replace(f"{{{key}}}", str(value))
    return template


def agent_format_instructions() -> str:
    return json.dumps(AgentAction.model_json_schema())


def evaluator_format_instructions() -> str:
    return json.dumps(EvaluationForAgents[SotopiaDimensions].model_json_schema())


def agent_prompt(agent: str, history: str, turn_number: int, actions: Sequence[str]) -> str:
    """The prompt `agenerate_action` sends (not script-like): one user message."""
    values = {
        "agent": agent,
        "turn_number": str(turn_number),
        "history": history,
        "action_list": " ".join(actions),
        "format_instructions": agent_format_instructions(),
    }
    return fill(AGENT_TEMPLATE, values)


def agent_instruction(agents: int) -> str:
    """`EpisodeLLMEvaluator`'s line on the agents' keys (`envs/evaluators.py:171-180`)."""
    if agents <= 0:
        return ""
    keys = ", ".join(f'"agent_{i + 1}"' for i in range(agents))
    return (
        f"There are exactly {agents} agents. Under the 'evaluations' field, use exactly these "
        f"keys: [{keys}] (no other keys).\n"
    )


def evaluator_prompt(history: str, agents: int) -> str:
    """The prompt `EpisodeLLMEvaluator.__acall__` sends: one user message."""
    values = {
        "history": history,
        "agent_instruction": agent_instruction(agents),
        "format_instructions": evaluator_format_instructions(),
    }
    return fill(EVALUATOR_TEMPLATE, values)
