"""A CoSER test record (a "circumstance"): one scene of a book, as `data/test/test_set.json` has it.

Only the fields the protocol reads are declared (coser-gca.md §4.2); the others (`topic`,
`weight`, `plot.prominence`, ...) are kept as extra fields and ignored. Known quirk: the official
test set names a character's motivation `thought`, the example set `motivation`; both are read
(docs/gca.md, ambiguity 1).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentsense.coser.prompts import ENVIRONMENT


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class KeyCharacter(_Open):
    name: str
    motivation: str | None = None
    thought: str | None = None  # test_set.json's name for the motivation

    @property
    def inner_thoughts(self) -> str:
        return self.motivation or self.thought or ""


class PlotCharacter(_Open):
    name: str
    description: str | None = None


class Plot(_Open):
    summary: str
    key_characters: list[PlotCharacter]


class Message(_Open):
    character: str
    message: str


class Circumstance(_Open):
    book: str
    i_p: int
    i_c: int
    scenario: str
    plot: Plot
    character_profiles: dict[str, str]
    major_characters: list[str]
    speaking_characters_w_env: list[str] = Field(min_length=1)
    key_characters: list[KeyCharacter]
    dialogues: list[Message] = Field(min_length=1)
    tag: str | None = None

    @property
    def key(self) -> str:
        """CoSER's case key, unique over the test set."""
        return f"{self.book}-{self.i_p}-{self.i_c}"

    @property
    def speakers(self) -> list[str]:
        """`speaking_characters_w_env` with the Environment appended when absent."""
        names = list(self.speaking_characters_w_env)
        return names if ENVIRONMENT in names else [*names, ENVIRONMENT]

    @property
    def characters(self) -> list[str]:
        return [name for name in self.speakers if name != ENVIRONMENT]

    def profile(self, name: str) -> str:
        """The plot description (if any) then the book profile, as CoSER joins them."""
        profile = self.character_profiles.get(name, "")
        for entry in self.plot.key_characters:
            if entry.name == name and entry.description:
                profile = entry.description.strip("\n") + "\n\n" + profile.strip("\n")
                break
        return profile.strip(" \n")

    def involved_profiles(self) -> dict[str, str]:
        """Every speaking character's non-empty profile (minor speakers included)."""
        profiles = {name: self.profile(name) for name in self.characters}
        return {name: text for name, text in profiles.items() if text}

    def motivation(self, name: str) -> str:
        for entry in self.key_characters:
            if entry.name == name:
                return entry.inner_thoughts
        return ""
