"""Judge repeats: the same conversations judged again, told apart from epochs in the log.

An epoch plays a scene again (a new conversation); a judge repeat asks the same interview and
judge questions again about the same conversation, with `inspect score LOG -S repeat=K`. The
eval's own scoring is repeat 0 and sends no seed (requests as the protocol prescribes); repeat
K >= 1 sends a seed derived from the run's seed, the scene, the epoch and K with every interview
and judge call, so a repeat is reproducible where the provider honours seeds and repeats differ
from each other. Each score records its repeat in its metadata (`score_keys.JUDGE_REPEAT`;
`report.variance_components` reads it).
"""

from __future__ import annotations

from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.seeding import scene_rng

SEED_BITS = 31  # providers take 32-bit signed seeds


def checked_repeat(repeat: object) -> int:
    """The scorer argument `repeat` as an int >= 0, or a clear error before any model call."""
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
        raise PrerequisiteError(
            f"Scorer argument repeat={repeat!r}: expected a whole number >= 0 (0 is the eval's "
            "own judging; re-judge with -S repeat=1, then -S repeat=2, ...)."
        )
    return repeat


def repeat_seed(seed: int, sample_id: int | str, epoch: int, repeat: int) -> int | None:
    """The generation seed of judge repeat `repeat` of one sample and epoch (None for repeat 0)."""
    if repeat == 0:
        return None
    return scene_rng(seed, sample_id, epoch, f"judge-repeat:{repeat}").getrandbits(SEED_BITS)
