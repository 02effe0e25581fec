"""Whether BASE and NEW of `agentsense compare` measure the same thing.

A paired regression test only means something when the two runs differ in the model under test
and in nothing else. Everything else is read from the runs and from the scoring actually
compared (score metadata, so a log re-judged with `inspect score --action append` counts with
the panel that re-judged it):

- the task (`--allow-task-change`);
- the dataset, the protocol (mode, temperatures, max tokens, option marks, max messages), the
  seed and any other task argument (`--allow-mixed`);
- the judge panel of the compared scoring (`--allow-mixed`);
- the cast: which model played each character, the evaluated model counted as one, so two
  models' runs compare but a different partner does not (`--allow-mixed`);
- the pairing: each character's role, sender / receiver (`--allow-mixed`).

Each difference is one line naming BASE's and NEW's values and the flag that overrides it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..analysis.log_reader import PROTOCOL_FIELDS

ALLOW_TASK = "--allow-task-change"
ALLOW_MIXED = "--allow-mixed"
# Task arguments compared on their own line (or not at all: `shard` selects samples).
NAMED_ARGS = ("dataset", "seed", "max_messages", "protocol", "sender", "receiver", "shard")


@dataclass(frozen=True)
class Difference:
    what: str
    base: str
    new: str
    flag: str

    def line(self) -> str:
        return f"  - {self.what}: BASE {self.base}; NEW {self.new} (override with {self.flag})"


def _args(run: Mapping[str, Any]) -> dict[str, Any]:
    config = json.loads(str(run.get("config") or "{}"))
    return dict(config.get("args") or {})


def _seed(run: Mapping[str, Any]) -> Any:
    config = json.loads(str(run.get("config") or "{}"))
    return _args(run).get("seed", (config.get("metadata") or {}).get("seed"))


def _shown(value: Any) -> str:
    return "(unset)" if value is None or value == "" else str(value)


def _run_differences(base: Mapping[str, Any], new: Mapping[str, Any]) -> list[Difference]:
    pairs: list[tuple[str, Any, Any, str]] = [
        ("task", base["task"], new["task"], ALLOW_TASK),
        ("dataset", base["dataset"], new["dataset"], ALLOW_MIXED),
        *((f"protocol {f}", base.get(f), new.get(f), ALLOW_MIXED) for f in PROTOCOL_FIELDS),
        ("protocol max_messages", base.get("rounds"), new.get("rounds"), ALLOW_MIXED),
        ("seed", _seed(base), _seed(new), ALLOW_MIXED),
    ]
    base_args, new_args = _args(base), _args(new)
    others = sorted((set(base_args) | set(new_args)) - set(NAMED_ARGS) - set(PROTOCOL_FIELDS))
    pairs += [
        (f"task argument {a}", base_args.get(a), new_args.get(a), ALLOW_MIXED) for a in others
    ]
    return [
        Difference(what, _shown(b), _shown(n), flag)
        for what, b, n, flag in pairs
        if _shown(b) != _shown(n)
    ]


def _values(scenes: pd.DataFrame, column: str) -> list[str]:
    return sorted({str(v) for v in scenes[column].dropna()}) if column in scenes.columns else []


def _sample_difference(
    base: pd.DataFrame, new: pd.DataFrame, column: str, what: str
) -> Difference | None:
    """`column` compared sample by sample over the shared (id, epoch) pairs."""
    if column not in base.columns or column not in new.columns:
        return None
    shared = base.index.intersection(new.index)
    left, right = base.loc[shared, column].astype(str), new.loc[shared, column].astype(str)
    differ = shared[(left != right).to_numpy()]
    if differ.empty:
        return None
    first = differ[0]
    return Difference(
        f"{what} ({len(differ)} of {len(shared)} paired samples, e.g. id {first[0]} epoch "
        f"{first[1]})",
        _shown(base.loc[first, column]),
        _shown(new.loc[first, column]),
        ALLOW_MIXED,
    )


def differences(
    base_run: Mapping[str, Any],
    new_run: Mapping[str, Any],
    base: pd.DataFrame,
    new: pd.DataFrame,
) -> list[Difference]:
    """Every way BASE and NEW (scene frames indexed by id, epoch) differ besides the model."""
    found = _run_differences(base_run, new_run)
    panels = (_values(base, "judges"), _values(new, "judges"))
    if panels[0] != panels[1]:
        found.append(
            Difference(
                "judge panel of the compared scoring",
                " | ".join(panels[0]) or "(no judges)",
                " | ".join(panels[1]) or "(no judges)",
                ALLOW_MIXED,
            )
        )
    for column, what in (("cast", "cast (model per character)"), ("pairing", "pairing (roles)")):
        difference = _sample_difference(base, new, column, what)
        if difference is not None:
            found.append(difference)
    return found
