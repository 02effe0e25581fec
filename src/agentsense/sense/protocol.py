"""Protocol settings: how a scenario is simulated and scored, in one typed, logged object.

Two modes share every setting except the points where the official code has quirks:

- `official` (default) reproduces the official AgentSense code as it ran, quirks included, so
  results are comparable with the paper;
- `corrected` fixes those quirks (see README, "Known differences from the official code").

The task arguments every AgentSense simulation task takes, declared once.

The task table (`agentsense.tasks`) builds each task's signature from these fields (Inspect reads
`-T` arguments from a signature); the task validates what it is given with `TaskArguments.parse`
before any model call. Light on purpose: the table imports it for every `agentsense/...` name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Mode = Literal["official", "corrected"]


OptionMark = Literal["upper", "lower", "number", "all"]


class Protocol(BaseModel):
    """Every knob of the benchmark; all of them are task arguments and recorded in the log.

    The descriptions are those of the guide's Parameters section (generated from them).
    """

    # `mode` is the task argument `protocol` (`-T protocol=corrected`); logs record it as `mode`.
    model_config = ConfigDict(frozen=True, populate_by_name=True)

    mode: Mode = Field(
        default="official",
        alias="protocol",
        description="`official` reproduces the official code and its quirks; `corrected` fixes "
        "them (docs/usage.md, 'Official and corrected protocol')",
    )
    max_messages: int = Field(
        default=15,
        ge=2,
        description="messages per conversation, the scripted greeting included (14 model turns)",
    )
    agent_temperature: float = Field(
        default=1.0, ge=0.0, description="characters' sampling temperature"
    )
    judge_temperature: float = Field(
        default=0.0,
        ge=0.0,
        description="judges' temperature (and characters' interview temperature in corrected mode)",
    )
    max_tokens: int = Field(default=128, ge=1, description="per model call, for everyone")
    option_mark: OptionMark = Field(
        default="upper",
        description="MCQ labels: `upper` (A), `lower` (a), `number` (1), `all` (one of them "
        "drawn per question)",
    )

    @property
    def n_turns(self) -> int:
        """Model-generated turns: every message but the scripted greeting."""
        return self.max_messages - 1

    @property
    def official(self) -> bool:
        return self.mode == "official"

    @property
    def interview_temperature(self) -> float:
        """Official: characters answer at their simulation temperature (AutoGen resets nothing)."""
        return self.agent_temperature if self.official else self.judge_temperature

    @property
    def shared_interview_view(self) -> bool:
        """Official: every interviewee and judge sees the starting speaker's view of the history."""
        return self.official


class TaskArguments(Protocol):
    """The task arguments of every simulation task (`-T name=value`), all recorded in the log."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    dataset: str = Field(
        default="official",
        description="`official`, `official_roles`, `demo`, the path of a JSONL file, or "
        "`URL#sha256=HEX` (or `#blob=` a git blob id); the log records the file's hashes, so "
        "the official file is compared with the paper however it is given",
    )
    seed: int = Field(
        default=0,
        description="seeds the starting speaker and the turn order per scene and epoch: the same "
        "seed gives every model the same turn orders",
    )
    shard: str | None = Field(
        default=None,
        description="`k/n`: run only the k-th of n disjoint parts of the scenes (balanced by "
        "model calls), e.g. one per process or array job; `agentsense report` merges the parts "
        "(docs/throughput.md, 'Scaling out')",
    )
    per_template: int | None = Field(
        default=None,
        ge=1,
        description="`K`: run only the first K scenes of each template (by sample id); "
        "`-T per_template=1 --epochs 3` is the paper's repeated subset (Table 7)",
    )

    @field_validator("shard", mode="before")
    @classmethod
    def _shard_form(cls, value: object) -> str | None:
        from agentsense.sense.dataset.selection import parse_shard  # the dataset code, when used

        return None if value is None else str(parse_shard(str(value)))

    @classmethod
    def parse(cls, values: Mapping[str, Any], exclude: tuple[str, ...] = ()) -> TaskArguments:
        """Validate a task's arguments (its `locals()`); bad ones fail here, naming `-T name`."""
        from agentsense.engine.strict import task_settings

        return task_settings(cls, {k: v for k, v in values.items() if k not in exclude})

    @property
    def settings(self) -> Protocol:
        """The protocol settings alone, as the solver, scorers and the log use them."""
        return Protocol.model_validate(self.model_dump(include=set(Protocol.model_fields)))


def cli_names(model: type[Protocol]) -> dict[str, str]:
    """`-T` name -> field name (`protocol` -> `mode`), in declaration order."""
    return {field.alias or name: name for name, field in model.model_fields.items()}
