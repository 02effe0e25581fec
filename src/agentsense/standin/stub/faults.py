"""Deterministic latency and fault injection for the stub server.

Every draw is a hash of (seed, purpose, request body, attempt number), so a run is reproducible
whatever the order in which concurrent requests arrive: the n-th sending of a given body always
meets the same fate. A retry is a new attempt, so it gets a fresh draw.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Literal

Outcome = Literal["ok", "error_500", "rate_limit_429", "hang", "malformed", "drop"]

# Checked in this order against one uniform draw; whatever is left over is "ok".
FAULT_OUTCOMES: tuple[Outcome, ...] = ("error_500", "rate_limit_429", "hang", "malformed", "drop")


def uniform(seed: int, purpose: str, key: bytes, attempt: int) -> float:
    """A number in [0, 1) that depends only on its arguments."""
    digest = hashlib.sha256(f"{seed}\x1f{purpose}\x1f{attempt}\x1f".encode() + key).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class Latency:
    """Reply delay: `fixed`, `uniform` (low..high), `exp` (mean) or `normal` (mean, sd)."""

    kind: Literal["fixed", "uniform", "exp", "normal"] = "fixed"
    a: float = 0.0
    b: float = 0.0

    @classmethod
    def parse(cls, spec: str | float) -> Latency:
        """`0.2`, `uniform:0.1,0.5`, `exp:0.3` or `normal:0.3,0.1` (seconds)."""
        if isinstance(spec, (int, float)):
            return cls("fixed", float(spec))
        kind, _, args = spec.partition(":")
        if not args:
            return cls("fixed", float(kind))
        values = [float(part) for part in args.split(",")]
        if kind == "uniform" and len(values) == 2:
            return cls("uniform", *values)
        if kind == "exp" and len(values) == 1:
            return cls("exp", values[0])
        if kind == "normal" and len(values) == 2:
            return cls("normal", *values)
        raise ValueError(
            f"bad latency {spec!r}: use SECONDS, uniform:LOW,HIGH, exp:MEAN or normal:MEAN,SD"
        )

    def seconds(self, u: float, v: float) -> float:
        """The delay for two independent uniform draws `u`, `v` (never negative)."""
        if self.kind == "uniform":
            return self.a + (self.b - self.a) * u
        if self.kind == "exp":
            return -self.a * math.log(1.0 - u)
        if self.kind == "normal":
            # Box-Muller; 1 - u keeps the log finite.
            z = math.sqrt(-2.0 * math.log(1.0 - u)) * math.cos(2.0 * math.pi * v)
            return max(0.0, self.a + self.b * z)
        return self.a

    def __str__(self) -> str:
        if self.kind == "fixed":
            return f"{self.a:g}s"
        args = f"{self.a:g}" if self.kind == "exp" else f"{self.a:g},{self.b:g}"
        return f"{self.kind}:{args}"


@dataclass(frozen=True)
class Faults:
    """Fault rates per attempt (each in [0, 1], summing to at most 1) and their parameters."""

    error_500: float = 0.0
    rate_limit_429: float = 0.0
    hang: float = 0.0
    malformed: float = 0.0
    drop: float = 0.0
    retry_after: float = 1.0  # seconds, sent as the 429's Retry-After header
    hang_seconds: float = 600.0  # a hung request is closed without a reply after this long
    seed: int = 0

    def __post_init__(self) -> None:
        rates = [getattr(self, name) for name in FAULT_OUTCOMES]
        if any(not 0.0 <= rate <= 1.0 for rate in rates) or sum(rates) > 1.0 + 1e-9:
            raise ValueError(f"fault rates must lie in [0, 1] and sum to at most 1, got {rates}")

    @property
    def any(self) -> bool:
        return any(getattr(self, name) > 0 for name in FAULT_OUTCOMES)

    def decide(self, key: bytes, attempt: int) -> Outcome:
        """The fate of the `attempt`-th (0-based) sending of the request body `key`."""
        draw = uniform(self.seed, "fault", key, attempt)
        threshold = 0.0
        for outcome in FAULT_OUTCOMES:
            threshold += getattr(self, outcome)
            if draw < threshold:
                return outcome
        return "ok"
