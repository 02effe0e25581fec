"""The records of a Sotopia data file, in the shapes sotopia 0.1.5 serializes them.

Field names are those of `sotopia/database/serialization.py` (0.1.5):
`AgentProfileWithPersonalInformation`, `EnvironmentProfileWithTwoAgentRequirements` and
`EnvAgentComboStorageWithID`; their defaults are those of `BaseAgentProfile` and
`BaseEnvironmentProfile` (`database/persistent_profile.py`). A data file holds three lists:
`environments`, `agents` and `combos` (an environment and the two agents who play it).
"""

from __future__ import annotations

from enum import IntEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator


class RelationshipType(IntEnum):
    """`database/persistent_profile.py:18-24`."""

    stranger = 0
    know_by_name = 1
    acquaintance = 2
    friend = 3
    romantic_relationship = 4
    family_member = 5


class AgentProfile(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    agent_id: str = Field(min_length=1)
    first_name: str = Field(min_length=1)
    last_name: str = Field(min_length=1)
    age: int = Field(default=0, ge=0)
    occupation: str = ""
    gender: str = ""
    gender_pronoun: str = ""
    public_info: str = ""
    big_five: str = ""
    moral_values: list[str] = Field(default_factory=list)
    schwartz_personal_values: list[str] = Field(default_factory=list)
    personality_and_values: str = ""
    decision_making_style: str = ""
    secret: str = ""
    mbti: str = ""
    model_id: str = ""
    # Not a sotopia field: the bio as sotopia's published episodes give it (`agents_background`,
    # the text `get_bio` renders from the fields above), shown instead of one built from them.
    background: str = ""

    @property
    def name(self) -> str:
        """How sotopia names an agent (`agents/base_agent.py:22`)."""
        return f"{self.first_name} {self.last_name}"


class EnvironmentProfile(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    env_id: str = Field(min_length=1)
    codename: str = ""
    source: str = ""
    scenario: str = Field(min_length=1)
    agent_goals: list[str] = Field(min_length=2, max_length=2)
    relationship: RelationshipType = RelationshipType.stranger
    age_constraint: str | None = None
    occupation_constraint: str | None = None
    agent_constraint: list[list[str]] | str | None = None

    @field_validator("relationship", mode="before")
    @classmethod
    def _named(cls, value: object) -> object:
        """serialization.py writes the relationship as a string: `friend`, `3` or
        `RelationshipType.friend`."""
        if isinstance(value, str):
            name = value.removeprefix("RelationshipType.")
            if name.isdigit():
                return int(name)
            if name in RelationshipType.__members__:
                return RelationshipType[name]
        return value


class EnvAgentCombo(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    combo_id: str = Field(min_length=1)
    env_id: str = Field(min_length=1)
    agent_ids: list[str] = Field(min_length=2, max_length=2)


class SotopiaData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    environments: list[EnvironmentProfile]
    agents: list[AgentProfile]
    combos: list[EnvAgentCombo]


class Episode(BaseModel):
    """One sample: a combo with its environment and agents resolved (the sample's metadata)."""

    model_config = ConfigDict(frozen=True)

    combo_id: str
    environment: EnvironmentProfile
    agents: tuple[AgentProfile, AgentProfile]
