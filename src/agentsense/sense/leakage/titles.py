"""The truth of script prediction: the title of the script each scenario was built from.

A record's own `source` comes first (records built with `agentsense/construct` carry one: its
`title`, else the stem of its `script` file name; a plain string `source` is the title itself).
A mapping file given as `-T titles=FILE` (a JSON object `template_idx -> title`, or a list of
accepted titles) overrides it for the templates it names; entries for templates not in the
dataset are ignored, so one file serves every shard and subset. Scenes with neither are refused
before any model call, all of them named at once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.schema import Scenario

# Titles of one template: the first is the one shown; any of them counts as right.
Titles = list[str]
MAPPING_FORM = 'a JSON object {"<template_idx>": "<title>" or ["<title>", "<alias>", ...]}'
LISTED = 10


def demo_titles_path() -> Path:
    """The invented titles of the demo templates (they come from no real script)."""
    return Path(str(resources.files("agentsense.sense.dataset") / "data" / "demo_titles.json"))


def _titles(value: Any) -> Titles | None:
    if isinstance(value, str) and value.strip():
        return [value.strip()]
    if isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value):
        return [v.strip() for v in value]
    return None


def read_mapping(path: str) -> dict[str, Titles]:
    """`-T titles=FILE` -> template id -> titles; a bad file is refused naming the entry."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise PrerequisiteError(f"-T titles={path}: no such file; expected {MAPPING_FORM}.")
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        message = f"-T titles={path}: not JSON ({error}); expected {MAPPING_FORM}."
        raise PrerequisiteError(message) from None
    if not isinstance(raw, dict):
        raise PrerequisiteError(
            f"-T titles={path}: found a JSON {type(raw).__name__}; expected {MAPPING_FORM}."
        )
    mapping, bad = {}, []
    for key, value in raw.items():
        titles = _titles(value)
        if titles is None:
            bad.append(f"{key!r}: {json.dumps(value)[:60]}")
        else:
            mapping[str(key)] = titles
    if bad:
        raise PrerequisiteError(
            f"-T titles={path}: entries that are not a title or a list of titles: "
            + "; ".join(bad[:LISTED])
            + f"; expected {MAPPING_FORM}."
        )
    return mapping


def source_titles(scene: Scenario) -> Titles | None:
    """The title a record's own `source` gives (construct's `title`, else its script's name)."""
    source = (scene.model_extra or {}).get("source")
    if isinstance(source, str):
        return _titles(source)
    if not isinstance(source, Mapping):
        return None
    title = _titles(source.get("title"))
    if title is None and isinstance(source.get("script"), str):
        title = _titles(Path(source["script"]).stem)
    return title


def script_titles(
    scenes: Sequence[Scenario], mapping: Mapping[str, Titles], dataset: str, titles: str | None
) -> dict[str, Titles]:
    """Sample id -> its titles; refuses (naming them) the scenes that have no title."""
    truth, missing = {}, []
    for scene in scenes:
        found = mapping.get(str(scene.template_idx)) or source_titles(scene)
        if found is None:
            missing.append(scene)
        else:
            truth[str(scene.sample_idx)] = found
    if missing:
        templates = sorted({str(s.template_idx) for s in missing})
        shown = ", ".join(templates[:LISTED]) + (" ..." if len(templates) > LISTED else "")
        given = f"-T titles={titles} names none of them" if titles else "no -T titles=FILE given"
        raise PrerequisiteError(
            f"Script prediction needs each scenario's script title: {len(missing)} of "
            f"{len(scenes)} scene(s) of dataset {dataset!r} have none (templates {shown}): no "
            f"`source` with a `title` or `script` in the record, and {given}. Give "
            f"-T titles=FILE, {MAPPING_FORM}, or build the scenarios with agentsense/construct "
            "(its records carry `source`)."
        )
    return truth
