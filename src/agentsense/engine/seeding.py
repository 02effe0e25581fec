"""Seeded randomness shared by the simulation (turn order) and the interviews (MCQ option marks).

It lives outside `solvers/` and `scorers/` so that both depend on it and neither on the other.
"""

from __future__ import annotations

import random


def scene_rng(seed: int, sample_id: int | str, epoch: int, purpose: str) -> random.Random:
    """A generator that depends only on the seed, the scene, the epoch and what it is for."""
    # A string seed is hashed with SHA-512 by `random`, so it is stable across processes.
    return random.Random(f"agentsense:{purpose}:{seed}:{sample_id}:{epoch}")
