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
    """Every knob of the benchmark; all of them are task arguments and recorded in the log."""

    model_config = ConfigDict(frozen=True)

    mode: Mode = "official"
    max_messages: int = Field(
        default=15, ge=2, description="messages in all, the greeting included"
    )
    agent_temperature: float = Field(default=1.0, ge=0.0)
    judge_temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int = Field(default=128, ge=1)
    option_mark: OptionMark = "upper"

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
