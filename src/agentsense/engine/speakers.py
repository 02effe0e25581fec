"""Who speaks when. AgentSense: a random first speaker, then a uniformly random *other* speaker.

With two characters this strictly alternates. Randomness is seeded per sample and epoch, so every
model is evaluated on the same turn order for the same seed. The conversation loop asks a
`SpeakerSelector`; `FixedOrder` is AgentSense's, `next_speaker.NextSpeakerPredictor` (an LLM that
names the next speaker, CoSER's) is the other choice.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from agentsense.engine.conversation import Turn


def speaker_order(names: Sequence[str], n_turns: int, rng: random.Random) -> tuple[str, list[str]]:
    """Draw the starting speaker (who says the greeting) and the speakers of the next turns."""
    start = rng.choice(list(names))
    order: list[str] = []
    previous = start
    for _ in range(n_turns):
        candidates = [name for name in names if name != previous]
        previous = candidates[0] if len(candidates) == 1 else rng.choice(candidates)
        order.append(previous)
    return start, order


class SpeakerSelector(Protocol):
    """Chooses who speaks: the first speaker, then the next one after each turn (None: stop)."""

    def first(self) -> str: ...

    async def next(self, turns: Sequence[Turn]) -> str | None: ...


class FixedOrder:
    """A speaker order drawn (or replayed) before the conversation starts."""

    def __init__(self, start: str, order: Sequence[str]) -> None:
        self._start = start
        self._order = list(order)

    def first(self) -> str:
        return self._start

    async def next(self, turns: Sequence[Turn]) -> str | None:
        # turns[0] is the first speaker's; turn i (i >= 1) is order[i - 1].
        done = len(turns) - 1
        return self._order[done] if done < len(self._order) else None
