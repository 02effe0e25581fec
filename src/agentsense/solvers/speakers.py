"""Who speaks when: a random first speaker, then a uniformly random *other* speaker each turn.

With two characters this strictly alternates. Randomness is seeded per sample and epoch, so every
model is evaluated on the same turn order for the same seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def scene_rng(seed: int, sample_id: int | str, epoch: int, purpose: str) -> random.Random:
    """A generator that depends only on the seed, the scene, the epoch and what it is for."""
    # A string seed is hashed with SHA-512 by `random`, so it is stable across processes.
    return random.Random(f"agentsense:{purpose}:{seed}:{sample_id}:{epoch}")


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
