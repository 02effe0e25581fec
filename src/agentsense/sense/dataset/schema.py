"""The AgentSense scenario record (official `final_data.jsonl` schema) as pydantic models.

A scenario has a background, a description and 2-5 characters; each character has a profile,
social goals with their evaluation questions, maybe a secret (`private_info`), and
multiple-choice questions about the other characters' secrets (`info_reason_questions`).
Fields the official code ignores are tolerated (`extra="allow"`), so richer files still load.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from agentsense.sense.prompts import GOAL_CATEGORIES, SCENARIO_TYPES

# Character roles used by the heterogeneous (sender x receiver) mode.
Role = Literal["sender", "receiver"]


def _unwrap_question(value: Any) -> Any:
    """A question may be a string or a one-element list of strings (official `simulation.py`)."""
    if isinstance(value, list):
        if len(value) == 1:
            return value[0]
        raise ValueError(f"a question list must hold exactly one string, found {len(value)} items")
    return value


def _int_label(value: Any) -> Any:
    """`answer_label` is a 0-based index, given as an int or an int-like string."""
    if isinstance(value, bool):
        raise ValueError("expected an integer index, found a boolean")
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.lstrip("-").isdigit():
            return int(stripped)
        raise ValueError(f"expected an integer index (0-based), found the string {value!r}")
    return value


def _render_profile(value: Any) -> Any:
    """Profiles may be objects; render them as the official code does (`str()` of the dict).

    `str()` of a dict keeps the JSON key order, so the rendering is deterministic.
    """
    if isinstance(value, dict):
        return str(value)
    return value


def _one_of(choices: Iterable[str], what: str) -> AfterValidator:
    """Only the values declared in `sense/prompts.py` (the labelling prompts offer the same)."""
    allowed = tuple(choices)

    def check(value: str) -> str:
        if value not in allowed:
            raise ValueError(f"one of the {what} {', '.join(map(repr, allowed))}")
        return value

    return AfterValidator(check)


Question = Annotated[str, BeforeValidator(_unwrap_question)]
GoalCategory = Annotated[str, _one_of(GOAL_CATEGORIES, "goal categories")]
ScenarioType = Annotated[str, _one_of(SCENARIO_TYPES, "scenario types")]


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, strict=False)


class EvalQuestion(_Record):
    """One interview question: `obj` names the interviewee (ignored for judge questions)."""

    obj: str | None = None
    question: Question = Field(min_length=1)

    @property
    def interviewee(self) -> str:
        """`obj` of a self or others question (the validator makes it one of the scene's names)."""
        if self.obj is None:
            raise ValueError(f"no `obj` for the question {self.question!r}")
        return self.obj


class EvalQuestions(BaseModel):
    """The three kinds of goal questions; the official code rejects any other key."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    # `self` and `others` are required keys in the official code (a missing one raises there).
    self_: list[EvalQuestion] = Field(alias="self")
    others: list[EvalQuestion]
    judge: list[EvalQuestion] = Field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.self_) + len(self.others) + len(self.judge)


class Goal(_Record):
    goal: str = Field(min_length=1)
    eval_questions: EvalQuestions
    # Not in the official schema: one of the paper's 8 goal categories (App. B.3).
    category: GoalCategory | None = None


class MCQ(_Record):
    """A private-information multiple-choice question, asked to the character it is listed under."""

    question: str = Field(min_length=1)
    options: list[str] | None = None
    answer_label: Annotated[int, BeforeValidator(_int_label)]


class Character(_Record):
    name: str = Field(min_length=1)
    profile: Annotated[str, BeforeValidator(_render_profile)]
    goals: list[Goal] = Field(min_length=1)
    private_info: str | None = None
    info_reason_questions: list[MCQ] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _no_newline(cls, value: str) -> str:
        # A name is prefixed to every utterance and cut at the first newline.
        if "\n" in value or value != value.strip():
            raise ValueError("a character name must be one line without surrounding spaces")
        return value

    @property
    def secret(self) -> str:
        """The secret as the official code uses it: a falsy value means no secret."""
        return self.private_info or ""


class Scenario(_Record):
    """One scenario (scene) of the benchmark: a template filled with one set of characters."""

    sample_idx: int | str
    template_idx: int | str
    background: str
    description: str
    characters: list[Character] = Field(min_length=2)
    # Only in `data_with_role.jsonl` and the demo set: name -> sender/receiver.
    roles: dict[str, Role] | None = None
    # Not in the official schema: one of the paper's 3 scenario types (App. B.2).
    scenario_type: ScenarioType | None = None
    # Not in the official schema: a fixed turn order to replay (e.g. a recorded official run).
    start_speaker: str | None = None
    speaker_order: list[str] | None = None

    @property
    def names(self) -> list[str]:
        return [character.name for character in self.characters]

    def character(self, name: str) -> Character:
        for character in self.characters:
            if character.name == name:
                return character
        raise KeyError(f"no character named {name!r} in scenario {self.sample_idx}")

    @property
    def has_mcq(self) -> bool:
        return any(character.info_reason_questions for character in self.characters)
