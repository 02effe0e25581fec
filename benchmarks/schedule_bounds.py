"""The three schedule lower bounds of a run against a model server of fixed latency L.

`throughput.py` prints a run's wall time beside them (its docstring defines them in full);
tests/test_throughput_bounds.py checks them against the reference figures.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bounds:
    """The three schedule lower bounds (seconds) of a run against a server of latency L.

    - critical path: every scene's chain of sequential rounds, (turns + interview rounds) x L;
    - call volume: every call holds one of the C connections for L, calls x L / C;
    - turns first: no interview starts before turns x L, and until then at most min(C, scenes)
      turn calls are in flight, so the other calls still need the connections afterwards:
      turns x L + (calls - turns x min(C, scenes)) x L / C.
    """

    critical_path: float
    call_volume: float
    turns_first: float

    @property
    def largest(self) -> float:
        return max(self.critical_path, self.call_volume, self.turns_first)


def schedule_bounds(
    turns: int, chain: int, calls: int, scenes: int, connections: int, latency: float
) -> Bounds:
    """`turns`: sequential turns per scene; `chain`: turns + interview rounds."""
    in_flight = min(connections, scenes)
    after_turns = max(0, calls - turns * in_flight)
    return Bounds(
        critical_path=chain * latency,
        call_volume=calls * latency / connections,
        turns_first=turns * latency + after_turns * latency / connections,
    )
