"""An LLM that names the next speaker after every turn: CoSER's next-speaker predictor (NSP).

The predictor is a participant that never speaks: it sees the conversation as the others do
(thoughts hidden) and answers with a name, `random` or `<END CHAT>`. Its answer is parsed
(`parse_colon`: the paper's Feb-2025 code; `parse_head`: the Dec-2025 code, for its prompt with
a `Next Speaker:` line), then validated: a name of the scene other than the current speaker is
taken; `<END CHAT>` ends the conversation once enough turns were made; anything else falls back
to a uniformly random pick among the major characters and the Environment, minus the current
speaker (coser-gca.md §2.4). Every decision is kept in the store (`SpeakerChoices`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from inspect_ai.model import GenerateConfig, Model
from inspect_ai.util import StoreModel, span, store_as
from pydantic import BaseModel, Field

from agentsense.engine.conversation import Turn
from agentsense.engine.thoughts import ThoughtViews

END_CHAT = "<END CHAT>"
ParserName = Literal["colon", "head"]
ChoiceSource = Literal["model", "reference"]

_NEXT_SPEAKER = re.compile(
    r"(?:\*\*|#)?\s*Next\s+Speaker\s*(?:\*\*|#)?\s*(?:[:\-]|\bis\b)?\s*\*?([^\n\*]+)",
    re.IGNORECASE,
)


def parse_colon(response: str) -> str:
    """Feb-2025 parser: the text before the first colon, else the whole reply (unstripped)."""
    return response.split(":")[0].strip() if ":" in response else response


def parse_head(response: str) -> str:
    """Dec-2025 parser: the last `Next Speaker: X` line (`extract_nsp`), else `parse_colon`."""
    matches = _NEXT_SPEAKER.findall(response)
    if matches:
        name = matches[-1].strip().rstrip(".,!\"'").replace("*", "")
        if name:
            return str(name)
    return parse_colon(response)


PARSERS: Mapping[ParserName, Callable[[str], str]] = {"colon": parse_colon, "head": parse_head}


class SpeakerChoice(BaseModel):
    """One decision of the predictor: what it said, how that was read, who speaks next."""

    after_turn: int
    source: ChoiceSource
    response: str
    parsed: str
    valid: bool
    chosen: str  # a speaker, or END_CHAT


class SpeakerChoices(StoreModel):
    choices: list[SpeakerChoice] = Field(default_factory=list)


@dataclass
class NextSpeakerPredictor:
    """A `SpeakerSelector` backed by a model (the role `next_speaker`) and CoSER's rules."""

    model: Callable[[], Model]
    system: str
    views: ThoughtViews
    first_speaker: str
    speakers: Sequence[str]  # every name the predictor may give (Environment included)
    fallback: Sequence[str]  # who a random fallback may pick (majors and Environment)
    rng: random.Random
    config: GenerateConfig
    parser: ParserName = "colon"
    # `<END CHAT>` counts only after this many turns (CoSER: from round index 5 on).
    min_turns_to_end: int = 6
    # Seeded answers (continue_from): the predictor's reply after turn i, no model call.
    seeded: Sequence[str] = ()
    # Speakers that are not predicted at all (continue_from: the seeded turns' own speakers).
    forced: Mapping[int, str] = field(default_factory=dict)
    name: str = "NSP"
    # Dec-2025 history: the raw reply when valid; else the parsed one and the prompt again.
    reprompt_on_invalid: bool = False

    def first(self) -> str:
        return self.first_speaker

    async def next(self, turns: Sequence[Turn]) -> str | None:
        done = len(turns)
        current = turns[-1].speaker
        source: ChoiceSource = "reference"
        if done in self.forced:
            forced = self.forced[done]
            self._record(done, source, forced, forced, True, forced)
            return forced
        if done - 1 < len(self.seeded):
            response = self.seeded[done - 1]
        else:
            async with span(f"next speaker after turn {done - 1}", type="next_speaker"):
                output = await self.model().generate(
                    self.views.prompt(self.system, self.name), config=self.config
                )
            response, source = output.completion or "", "model"
        parsed = PARSERS[self.parser](response)
        chosen, valid = self.validate(parsed, current, done)
        self._record(done, source, response, parsed, valid, chosen)
        return None if chosen == END_CHAT else chosen

    def _record(
        self, done: int, source: ChoiceSource, response: str, parsed: str, valid: bool, chosen: str
    ) -> None:
        self._remember(response, parsed, valid)
        choice = SpeakerChoice(
            after_turn=done - 1,
            source=source,
            response=response,
            parsed=parsed,
            valid=valid,
            chosen=chosen,
        )
        choices = store_as(SpeakerChoices)
        choices.choices = [*choices.choices, choice]  # reassigned so the store records it

    def validate(self, parsed: str, current: str, done: int) -> tuple[str, bool]:
        """CoSER's rule: a known other speaker, or a late `<END CHAT>`; else a random pick."""
        if parsed == END_CHAT and done >= self.min_turns_to_end:
            return END_CHAT, True
        if parsed in self.speakers and parsed != current:
            return parsed, True
        # Sorted, so the pick depends only on the seeded generator (CoSER draws from a set).
        candidates = sorted(set(self.fallback) - {current}) or sorted(
            set(self.speakers) - {current}
        )
        return self.rng.choice(candidates), False

    def _remember(self, response: str, parsed: str, valid: bool) -> None:
        if not self.reprompt_on_invalid:
            self.views.note(self.name, parsed)
        elif valid:
            self.views.note(self.name, response)
        else:
            self.views.note(self.name, parsed)
            self.views.note(self.name, self.system, role="user")
