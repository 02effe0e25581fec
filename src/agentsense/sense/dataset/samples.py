"""Scenarios -> Inspect samples, and the `dataset` task argument (official, demo, a URL pinned
by a digest, or a file)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.dataset.validation import DatasetError, Problem, read_scenarios

DEMO = "demo"
OFFICIAL_NAMES = ("official", "official_roles")

# Which Inspect model role plays a character (None: the evaluated model).
RoleBinding = Callable[[Scenario], Mapping[str, str | None]]


def no_roles(scene: Scenario) -> dict[str, str | None]:
    """Homogeneous runs: every character is played by the evaluated model."""
    return {name: None for name in scene.names}


def demo_path() -> Path:
    return Path(str(resources.files("agentsense.sense.dataset") / "data" / "demo.jsonl"))


def dataset_path(dataset: str) -> Path:
    """Resolve the `dataset` task argument to a local, verified JSONL file."""
    if dataset == DEMO:
        return demo_path()
    if dataset in OFFICIAL_NAMES:
        from agentsense.sense.dataset.official import SOURCE  # only they touch the network

        return SOURCE.path(dataset)
    if dataset.startswith(("http://", "https://")):
        return url_path(dataset)
    path = Path(dataset).expanduser()
    if not path.is_file():
        expected = "'official', 'official_roles', 'demo', a URL#sha256=HEX, or a JSONL file's path"
        found = "a path that does not exist" if not path.exists() else "a path that is not a file"
        raise DatasetError(dataset, [Problem(dataset, None, None, "dataset", found, expected)])
    return path


def url_path(dataset: str) -> Path:
    """`URL#sha256=HEX` or `URL#blob=HEX`: that file, verified against the digest, cached. The
    log records its hash, so the official file by any URL is compared with the paper."""
    from agentsense.engine.download import URL_FORM, url_pin  # only a URL touches the network
    from agentsense.sense.dataset.official import SOURCE

    pinned = url_pin(dataset)
    if pinned is None:
        found = "a URL without a digest to verify it by"
        problem = Problem(dataset, None, None, "dataset", found, URL_FORM)
        raise DatasetError(dataset, [problem])
    url, file = pinned
    return SOURCE.fetch(file, url, url)


def load_scenarios(dataset: str) -> list[Scenario]:
    return read_scenarios(dataset_path(dataset))


def scene_metadata(scene: Scenario, model_roles: Mapping[str, str | None]) -> dict[str, Any]:
    """Sample metadata: flat fields for grouping and reports, plus the whole record."""
    return {
        "template_id": scene.template_idx,
        "scenario_type": scene.scenario_type,
        "n_characters": len(scene.characters),
        "has_mcq": scene.has_mcq,
        "goal_categories": sorted(
            {g.category for c in scene.characters for g in c.goals if g.category}
        ),
        "model_roles": dict(model_roles),
        "scenario": scene.model_dump(mode="json", by_alias=True, exclude_none=True),
    }


def scene_input(scene: Scenario) -> str:
    """What Inspect View lists as the sample's input: the setting and who takes part."""
    return f"{scene.background}\n{scene.description}\nCharacters: {', '.join(scene.names)}"


def to_sample(scene: Scenario, model_roles: Mapping[str, str | None]) -> Sample:
    return Sample(
        id=scene.sample_idx,
        input=scene_input(scene),
        metadata=scene_metadata(scene, model_roles),
    )


def scenario_of(metadata: Mapping[str, Any]) -> Scenario:
    """The scenario record back from sample metadata (in the solver, scorers and reports)."""
    return Scenario.model_validate(metadata["scenario"])


def scene_dataset(
    scenes: Iterable[Scenario], name: str, bind: RoleBinding = no_roles
) -> MemoryDataset:
    return MemoryDataset([to_sample(scene, bind(scene)) for scene in scenes], name=name)
