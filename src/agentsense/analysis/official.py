"""Whether a run is comparable to the paper's published numbers (`sense/reference/paper.csv`).

A run is comparable when it played the official data, known by its content: the log records
its data file's hashes (`sense.tasks.task_metadata`), and one of them is the digest an official
file is pinned by (`sense/dataset/official.py`), however the file was given (`-T
dataset=official`, from the default address or a mirror, or the path of a copy); a log that
says `official` without that hash is refused, as a log edited to say so would be. It must also
have played every scene its task holds (no `--limit` or `--sample-id` subset, every shard
`-T shard=k/n` present), and finished (`log_merge.shortfall`). Table 7 is the paper's
one-scene-per-template subset run over epochs, so it asks for `-T per_template=1`; the other
tables ask for every scene.

`reason(run, table)` is None for a comparable run, else one line saying why not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentsense.analysis.log_merge import shortfall
from agentsense.analysis.logs import as_int, missing
from agentsense.sense.dataset.official import SOURCE
from agentsense.sense.dataset.samples import DEMO, OFFICIAL_NAMES

__all__ = ["SUBSET_TABLE", "data_reason", "official_file", "reason"]

SUBSET_TABLE = "7"  # the table of the paper run on one scene per template (App. D.2)
# Script prediction asks one scene per template by itself: that is its test, not a subset.
OWN_SUBSET_KINDS = ("script",)


def official_file(run: Mapping[str, Any]) -> str | None:
    """The official file (`official`, `official_roles`) whose pinned digest the run's recorded
    data file has (None: none). The pins are read at call time, so tests can swap one."""
    recorded = {"blob id": run.get("data_git_blob_id"), "sha256": run.get("data_sha256")}
    for name, pin in SOURCE.files.items():
        if recorded[pin.kind.name] == pin.digest:
            return name
    return None


def _pins() -> str:
    return "; ".join(
        f"{name}: {pin.kind.name} {pin.digest[:12]}" for name, pin in SOURCE.files.items()
    )


def data_reason(run: Mapping[str, Any]) -> str | None:
    """Why a run's data file is not an official one (None: it is). Alone, for what does not
    need every scene: Table 6's human labels are on a sample of scenes."""
    if official_file(run) is not None:
        return None
    dataset, blob = str(run.get("dataset", "")), run.get("data_git_blob_id")
    if dataset == DEMO:
        return "demo data (-T dataset=demo), not the official set"
    if missing(blob):
        content = "the log records no hash of its data file (written by an older agentsense)"
    else:
        content = (
            f"its data file has git blob id {str(blob)[:12]}, not that of a pinned official file "
            f"({_pins()})"
        )
    if dataset in OFFICIAL_NAMES:
        return f"says -T dataset={dataset}, but {content}"
    return f"a custom dataset ({dataset}), not the official set: {content}"


def _shard_reason(shards: list[str]) -> str | None:
    """Why the shards of a sharded run do not cover the task (None: all n of n, or unsharded)."""
    if not shards:
        return None
    totals = {shard.partition("/")[2] for shard in shards}
    if len(totals) != 1 or not next(iter(totals)).isdigit():
        return f"shards of different splits ({', '.join(shards)})"
    total = int(next(iter(totals)))
    if len(set(shards)) == total:
        return None
    return f"{len(set(shards))} of {total} shards ({', '.join(shards)})"


def _scene_reason(run: Mapping[str, Any]) -> str | None:
    """Why the run's plan is not every scene of its task: a --limit (or --sample-id) run."""
    planned, total = as_int(run.get("planned_scenes")), as_int(run.get("dataset_scenes"))
    if planned is None or total is None or planned >= total:
        return None
    return f"a --limit run: {planned:,} of {total:,} scenes"


def _subset_reason(run: Mapping[str, Any], table: str) -> str | None:
    """Table 7 needs `-T per_template=1`; the other tables every scene of each template."""
    per_template = as_int(run.get("per_template"))
    if run.get("kind") in OWN_SUBSET_KINDS:
        return None
    if table == SUBSET_TABLE:
        return None if per_template == 1 else "Table 7 is a -T per_template=1 run over epochs"
    if per_template is not None:
        return f"a -T per_template={per_template} run (a subset of each template's scenes)"
    return None


def reason(run: Mapping[str, Any], table: str = "1") -> str | None:
    """None when the run (a merged run of `log_reader`, e.g. a row of `Runs.evals`) is comparable
    to the paper's `table`; otherwise why not, in one line."""
    for why in (
        data_reason(run),
        shortfall(run),
        _shard_reason(list(run.get("shards") or [])),
        _scene_reason(run),
        _subset_reason(run, str(table)),
    ):
        if why is not None:
            return why
    return None
