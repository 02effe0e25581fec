"""A Sotopia data file as an Inspect dataset: one sample per combo (an environment and two agents).

`-T dataset=` takes `demo` (10 environments x 2 agent pairs written for this project, bundled),
the path of a JSON file of the same shape (`record.SotopiaData`), or Sotopia's published data
(`published.py`, which reads every form: the pinned episodes file and its hard subset, a URL
with its sha256, sotopia's serialization files).
Every bad record is reported before any model call, by list, index, id and field, with what was
found.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import BaseModel

from agentsense.engine.errors import DataError, data_file, field_problems
from agentsense.sotopia.record import (
    AgentProfile,
    EnvAgentCombo,
    EnvironmentProfile,
    Episode,
    SotopiaData,
)

SCHEMA = "docs/sotopia.md, section 4; e.g. src/agentsense/sotopia/data/demo.json"
DATASETS = (
    "'demo', 'official', 'sotopia_hard', a URL#sha256=HEX, a folder nor a JSON or JSONL file that "
    "exists (docs/sotopia.md §6)."
)
LISTS: dict[str, tuple[type[BaseModel], str]] = {
    "environments": (EnvironmentProfile, "env_id"),
    "agents": (AgentProfile, "agent_id"),
    "combos": (EnvAgentCombo, "combo_id"),
}


class SotopiaDataError(DataError):
    """A Sotopia data file that cannot be used; `problems` lists every bad record and field."""


def demo_path() -> Path:
    return Path(str(resources.files("agentsense.sotopia") / "data" / "demo.json"))


def record_problems(name: str, index: int, raw: Any, where: str = "") -> list[str]:
    """`combos[3] (demo-env-02-2): field `agent_ids`: ...` for every bad field of a record;
    `where` names the record otherwise (`agent_profiles.jsonl line 4`)."""
    model, key = LISTS[name]
    label = where or f"{name}[{index}]"
    if isinstance(raw, dict) and isinstance(raw.get(key), str):
        label += f" ({raw[key]})"
    return field_problems(label, model, raw)


def reference_problems(data: SotopiaData) -> list[str]:
    """Ids a combo names that no record has, and ids used twice."""
    problems: list[str] = []
    for name, ids in (
        ("environments", [e.env_id for e in data.environments]),
        ("agents", [a.agent_id for a in data.agents]),
        ("combos", [c.combo_id for c in data.combos]),
    ):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        problems += [f"{name}: id {i!r} is used more than once" for i in dupes]
    envs, agents = {e.env_id for e in data.environments}, {a.agent_id for a in data.agents}
    for i, combo in enumerate(data.combos):
        label = f"combos[{i}] ({combo.combo_id})"
        if combo.env_id not in envs:
            problems.append(f"{label}: field `env_id`: no environment {combo.env_id!r}")
        for k, agent in enumerate(combo.agent_ids):
            if agent not in agents:
                problems.append(f"{label}: field `agent_ids[{k}]`: no agent {agent!r}")
    return problems


def read_data(path: Path, source: str) -> SotopiaData:
    """The file's records, or one error that lists every bad record and field."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SotopiaDataError(source, f"{source} is not a JSON file ({error}).") from None
    if not isinstance(raw, dict) or not all(isinstance(raw.get(k), list) for k in LISTS):
        raise SotopiaDataError(
            source,
            f"{source} must hold one JSON object with the lists {', '.join(LISTS)} ({SCHEMA}).",
        )
    return checked_data(raw, source)


def checked_data(
    raw: dict[str, list[Any]], source: str, where: dict[str, list[str]] | None = None
) -> SotopiaData:
    """The three lists as records, or one error listing every bad one (named by `where`)."""
    names = where or {}
    problems = [
        line
        for name in LISTS
        for i, record in enumerate(raw[name])
        for line in record_problems(name, i, record, (names.get(name) or [""] * (i + 1))[i])
    ]
    data = None if problems else SotopiaData.model_validate({k: raw[k] for k in LISTS})
    problems += reference_problems(data) if data is not None else []
    if problems or data is None:
        raise SotopiaDataError(
            source,
            f"Invalid Sotopia data file {source}: {len(problems)} problem(s). Fix the records "
            f"listed ({SCHEMA}):",
            problems,
        )
    return data


def episodes(data: SotopiaData) -> list[Episode]:
    envs = {e.env_id: e for e in data.environments}
    agents = {a.agent_id: a for a in data.agents}
    return [
        Episode(
            combo_id=c.combo_id,
            environment=envs[c.env_id],
            agents=(agents[c.agent_ids[0]], agents[c.agent_ids[1]]),
        )
        for c in data.combos
    ]


def to_sample(episode: Episode) -> Sample:
    env = episode.environment
    names = " and ".join(agent.name for agent in episode.agents)
    return Sample(
        id=episode.combo_id,
        input=f"{env.scenario}\nParticipants: {names}",
        metadata={"environment": env.env_id, "episode": episode.model_dump(mode="json")},
    )


def load_data_file(dataset: str) -> list[Episode]:
    """`demo` or a JSON file of this project's shape (`published.load_episodes` takes any)."""
    path = data_file(dataset, demo_path(), SotopiaDataError, DATASETS)
    return episodes(read_data(path, dataset))


def sotopia_dataset(records: list[Episode], name: str) -> MemoryDataset:
    return MemoryDataset([to_sample(r) for r in records], name=name)
