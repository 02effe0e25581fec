"""Sotopia's published data, read without Redis: the episodes file of the HF dataset
`cmu-lti/sotopia` (pinned, sha256-checked, cached), any file of that shape by URL and sha256, and
the JSONL files of sotopia's own serialization; and the hard subset.

`-T dataset=` forms read here (`load_episodes`; `demo` and this project's JSON: `dataset.py`):
- `official`: `sotopia_episodes_v1.jsonl` at the pinned revision of `cmu-lti/sotopia`, downloaded
  by the engine's one download (`engine.download`) into `<agentsense cache>/sotopia/`;
  `AGENTSENSE_SOTOPIA_URL` replaces the base URL (a mirror, or the test file server);
- `sotopia_hard`: the combos of `official` in Sotopia-hard's 14 environments (`hard_subset`);
- `URL#sha256=HEX`: a file in one of these shapes elsewhere, pinned by the sha256 given;
- the path of an episodes file (`*.jsonl`): `TwoAgentEpisodeWithScenarioBackgroundGoals` per line
  (0.1.5's `database/serialization.py:episodes_to_jsonl`; the shape of the HF file);
- the path of a folder with 0.1.5's `agentprofiles_to_jsonl`, `environmentprofiles_to_jsonl` and
  `envagnetcombostorage_to_jsonl` files under their default names (`FOLDER_FILES`).

An episodes file holds many episodes of one combo (one per model pair): each (environment, agent
pair) becomes one sample, from its first episode. It carries each agent's bio as rendered text
(`agents_background`), not the profile's fields, and no relationship: 0.1.5 shows an agent's own
bio whole and the other's as `Unknown`, so the prompts do not depend on them (docs/sotopia.md §6).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agentsense.engine.download import HUGGING_FACE, PinnedFile, Source
from agentsense.engine.errors import data_file, field_problems
from agentsense.sotopia.dataset import (
    DATASETS,
    SotopiaDataError,
    checked_data,
    demo_path,
    episodes,
    load_data_file,
)
from agentsense.sotopia.record import Episode

# A Hugging Face dataset, its files as on main (4330bd6 changed the README only); the sha256 is
# the file's Git LFS oid at that revision (commit fa6501a added it).
SOURCE = Source(
    "Sotopia",
    "cmu-lti/sotopia",
    "2ee2e66df73d94141497b93ad4a9066e2ae3ffba",
    "AGENTSENSE_SOTOPIA_URL",
    {
        "official": PinnedFile(
            "sotopia_episodes_v1.jsonl",
            "100a4ab47e058f6483d51f090cc1a0f76b9006499d32ad901eeb545e1b38cdcf",
        ),
    },
    SotopiaDataError,
    folder="sotopia",
    demo="episodes",
    host=HUGGING_FACE,
)
FOLDER_FILES = {
    "agents": "agent_profiles.jsonl",
    "environments": "environment_profiles.jsonl",
    "combos": "env_agent_combo_storages.jsonl",
}
SHA_MARK = "#sha256="
HARD = "sotopia_hard"


class PublishedEpisode(BaseModel):
    """The fields of `TwoAgentEpisodeWithScenarioBackgroundGoals` an episode is built from."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    episode_id: str = Field(min_length=1)
    environment_id: str = Field(min_length=1)
    agent_ids: list[str] = Field(min_length=2, max_length=2)
    scenario: str = Field(min_length=1)
    codename: str = ""
    agents_background: dict[str, str] = Field(min_length=2, max_length=2)
    social_goals: dict[str, str] = Field(min_length=2, max_length=2)

    @model_validator(mode="after")
    def _same_agents(self) -> PublishedEpisode:
        if list(self.agents_background) != list(self.social_goals):
            raise ValueError("agents_background and social_goals name different agents")
        if any(" " not in name.strip() for name in self.agents_background):
            raise ValueError("an agent's name is not `first_name last_name`")
        return self


def load_episodes(dataset: str) -> list[Episode]:
    """The episodes of any `-T dataset=` form, checked before any model call."""
    path = Path(dataset).expanduser()
    if dataset == HARD:
        return hard_subset(read_episodes(SOURCE.path("official"), "official"), dataset)
    if dataset in SOURCE.files:
        return read_episodes(SOURCE.path(dataset), dataset)
    if dataset.startswith(("http://", "https://")):
        return read_episodes(url_path(dataset), dataset)
    if path.is_dir():
        return read_folder(path, dataset)
    if path.suffix == ".jsonl" and path.is_file():
        return read_episodes(path, dataset)
    return load_data_file(dataset)


def data_path(dataset: str) -> Path | None:
    """The one file `load_episodes` read for `dataset` (None: a folder of three), for the log
    to record by its content; call it after `load_episodes`, which checked the form."""
    if dataset in (HARD, *SOURCE.files):
        return SOURCE.path("official" if dataset == HARD else dataset)
    if dataset.startswith(("http://", "https://")):
        return url_path(dataset)
    path = Path(dataset).expanduser()
    if path.is_dir():
        return None
    if path.suffix == ".jsonl":
        return path
    return data_file(dataset, demo_path(), SotopiaDataError, DATASETS)


def url_path(dataset: str) -> Path:
    """`URL#sha256=HEX`: that file, verified against the sha256 given, cached."""
    url, _, digest = dataset.partition(SHA_MARK)
    digest = digest.strip().lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise SotopiaDataError(
            dataset,
            f"-T dataset={dataset!r}: a URL must end in {SHA_MARK}<64 hex digits> (what "
            "`sha256sum FILE` prints), so that what is downloaded is what you meant.",
        )
    name = PurePosixPath(urlsplit(url).path).name or "sotopia.jsonl"
    return SOURCE.fetch(PinnedFile(name, digest), url, url)


def _lines(path: Path, source: str) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of each non-blank line; a line that is not JSON is an error."""
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield number, json.loads(line)
    except json.JSONDecodeError as error:
        raise SotopiaDataError(
            source, f"{source} line {number} is not JSON ({error}); expected one record a line."
        ) from None
    except UnicodeDecodeError as error:
        raise SotopiaDataError(source, f"{source} is not UTF-8 text ({error}).") from None


def _episode(record: PublishedEpisode) -> Episode:
    names = list(record.agents_background)
    agents = [
        {
            "agent_id": agent_id,
            "first_name": name.strip().split(" ", 1)[0],
            "last_name": name.strip().split(" ", 1)[1],
            "background": record.agents_background[name],
        }
        for agent_id, name in zip(record.agent_ids, names, strict=True)
    ]
    environment = {
        "env_id": record.environment_id,
        "codename": record.codename,
        "scenario": record.scenario,
        "agent_goals": [record.social_goals[n] for n in names],
    }
    return Episode.model_validate(
        {
            "combo_id": "_".join([record.environment_id, *record.agent_ids]),
            "environment": environment,
            "agents": agents,
        }
    )


def read_episodes(path: Path, source: str) -> list[Episode]:
    """One episode per (environment, agent pair) of an episodes file, in the file's order."""
    found: dict[tuple[str, ...], Episode] = {}
    problems: list[str] = []
    for number, raw in _lines(path, source):
        label = f"line {number}" + (
            f" ({raw['episode_id']})" if isinstance(raw, dict) and "episode_id" in raw else ""
        )
        bad = field_problems(label, PublishedEpisode, raw)
        problems += bad
        if not bad:
            record = PublishedEpisode.model_validate(raw)
            found.setdefault((record.environment_id, *record.agent_ids), _episode(record))
    if problems or not found:
        raise SotopiaDataError(
            source,
            f"Invalid Sotopia episodes file {source}: "
            + (f"{len(problems)} problem(s) (docs/sotopia.md §6):" if problems else "no episodes."),
            problems,
        )
    return list(found.values())


def read_folder(folder: Path, source: str) -> list[Episode]:
    """sotopia's serialization files: profiles, environments and combos, one record a line."""
    missing = [name for name in FOLDER_FILES.values() if not (folder / name).is_file()]
    if missing:
        raise SotopiaDataError(
            source,
            f"-T dataset={source!r} is a folder without {', '.join(missing)}: a folder must "
            f"hold sotopia's serialization files {', '.join(FOLDER_FILES.values())} "
            "(docs/sotopia.md §6).",
        )
    raw: dict[str, list[Any]] = {}
    where: dict[str, list[str]] = {}
    for name, file in FOLDER_FILES.items():
        lines = list(_lines(folder / file, str(folder / file)))
        raw[name] = [_from_serialization(value) for _, value in lines]
        where[name] = [f"{file} line {number}" for number, _ in lines]
    return episodes(checked_data(raw, source, where))


def _from_serialization(value: Any) -> Any:
    """0.1.5 writes a missing agent constraint as the string `none` (and reads it back so)."""
    if isinstance(value, dict) and value.get("agent_constraint") == "none":
        return {**value, "agent_constraint": None}
    return value


def hard_environment_ids() -> frozenset[str]:
    text = (resources.files("agentsense.sotopia") / "data" / "hard_environments.json").read_text()
    return frozenset(json.loads(text)["env_ids"])


def hard_subset(records: list[Episode], dataset: str) -> list[Episode]:
    """The combos of Sotopia-hard's 14 environments (data/hard_environments.json)."""
    hard = hard_environment_ids()
    chosen = [r for r in records if r.environment.env_id in hard]
    if not chosen:
        raise SotopiaDataError(
            dataset,
            f"The Sotopia data of -T dataset={dataset!r} has none of Sotopia-hard's {len(hard)} "
            "environments (src/agentsense/sotopia/data/hard_environments.json).",
        )
    return chosen
