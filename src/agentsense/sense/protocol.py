"""Protocol settings: how a scenario is simulated and scored, in one typed, logged object.

Two modes share every setting except the points where the official code has quirks:

- `official` (default) reproduces the official AgentSense code as it ran, quirks included, so
  results are comparable with the paper;
- `corrected` fixes those quirks (see README, "Known differences from the official code").
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Mode = Literal["official", "corrected"]
OptionMark = Literal["upper", "lower", "number", "all"]


class Protocol(BaseModel):
    """Every knob of the benchmark; all of them are task arguments and recorded in the log.

    The descriptions are those of the README's Parameters section (generated from them).
    """

    # `mode` is the task argument `protocol` (`-T protocol=corrected`); logs record it as `mode`.
    model_config = ConfigDict(frozen=True, populate_by_name=True)

    mode: Mode = Field(
        default="official",
        alias="protocol",
        description="`official` reproduces the official code and its quirks; `corrected` fixes "
        "them (README, 'Official and corrected protocol')",
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
