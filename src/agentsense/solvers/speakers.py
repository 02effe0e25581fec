"""Who speaks when: a random first speaker, then a uniformly random *other* speaker each turn.

With two characters this strictly alternates. Randomness is seeded per sample and epoch, so every
model is evaluated on the same turn order for the same seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


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
