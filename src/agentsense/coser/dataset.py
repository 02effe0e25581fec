"""CoSER's test set as an Inspect dataset: the pinned files (downloaded, sha256-verified, cached),
the bundled demo fixtures, or a local JSON file in CoSER's schema.

`-T dataset=` takes:
- `official`: `data/test/test_set.json` (200 scenes of 101 books) at the pinned commit;
- `example`: `data/test/example_test_set.json` (3 scenes) at the pinned commit;
- `demo`: three small scenes written for this project in CoSER's schema (offline smoke runs);
- a path to a JSON list of records.

Downloads are `dataset.download`'s (sha256 check, retries, atomic rename), into
`<agentsense cache>/coser/`; `AGENTSENSE_COSER_URL` replaces the base URL (a mirror, or a local
server in tests). A record missing a field the protocol needs is rejected before any model call,
with its index and the field.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from agentsense.coser.compared_texts import reference_text
from agentsense.coser.record import Circumstance
from agentsense.engine.cache import cache_dir
from agentsense.engine.download import DownloadError, Pin, PinnedFile, download
from agentsense.engine.errors import DataError, data_file, field_problems
from agentsense.sense.dataset.validation import FITS, schema_of

REPOSITORY = "Neph0s/CoSER"
COMMIT = "624efc50db7be3a4e37cec6a1c58ed434dc9f2ce"
DEFAULT_BASE_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}"
URL_ENV = "AGENTSENSE_COSER_URL"


# Looked up at call time, so tests can swap an entry for a synthetic file.
PINNED: dict[str, PinnedFile] = {
    "official": PinnedFile(
        "data/test/test_set.json",
        "eb175779d1d5adf99c893ff1f82de9b18ada912d3f385b3f5419195afdfb374a",
        200,
    ),
    "example": PinnedFile(
        "data/test/example_test_set.json",
        "7d3d771d9dd55d4ff950b4dacc1b79b502c183258d1344c2c3abbe2eddaab451",
        3,
    ),
}


class GCADataError(DataError):
    """A CoSER data file that cannot be used: not downloadable, not verified, or bad records."""


def demo_path() -> Path:
    return Path(str(resources.files("agentsense.coser") / "data" / "demo.json"))


def coser_url(name: str) -> str:
    base = os.environ.get(URL_ENV) or DEFAULT_BASE_URL
    return f"{base.rstrip('/')}/{PINNED[name].path}"


def pinned_path(name: str) -> Path:
    """The verified local copy of a pinned CoSER file, downloaded on first use."""
    pinned, url, folder = PINNED[name], coser_url(name), cache_dir() / "coser"
    hints = (
        f"  - download {url} yourself and pass -T dataset=/path/to/{pinned.base_name}\n"
        f"  - or put it in {folder} as {pinned.file_name}\n"
        "  - or run the bundled scenes with -T dataset=demo"
    )
    label = f"The CoSER file {pinned.path}"
    pin = Pin(pinned, url, folder, label, f"commit {COMMIT} of {REPOSITORY}", hints)
    try:
        return download(pin)
    except DownloadError as error:
        raise GCADataError(url, str(error)) from None


def dataset_path(dataset: str) -> Path:
    if dataset in PINNED:
        return pinned_path(dataset)
    expected = "'official', 'example', 'demo' nor a JSON file that exists."
    return data_file(dataset, demo_path(), GCADataError, expected)


def _record_problems(index: int, raw: Any) -> list[str]:
    """`record 3 (Book-70-0): field `plot.summary`: missing, ...` for every bad field."""
    label = f"record {index}"
    key = [raw.get(k) for k in ("book", "i_p", "i_c")] if isinstance(raw, dict) else [None]
    if all(isinstance(part, (str, int)) for part in key):
        label += f" ({'-'.join(map(str, key))})"
    return field_problems(label, Circumstance, raw, missing="missing; the GCA protocol needs it")


def _first_record(text: str) -> Any:
    """The first record of a file that is not one JSON document (JSON Lines, say), or None."""
    for line in text.splitlines():
        if line.strip():
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def _other_schema(source: str, record: Any) -> None:
    """An AgentSense dataset given to gca: one error naming the tasks it fits."""
    if schema_of(record) == "agentsense":
        raise GCADataError(
            source,
            f"{source} holds {FITS['agentsense']}; agentsense/gca reads CoSER's JSON list of "
            "scenes (docs/gca.md, 'Data'): -T dataset=official, example, demo, or such a file.",
        )


def read_circumstances(path: Path, source: str) -> list[Circumstance]:
    """Every record of the file, or one error that lists every bad record and field."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise GCADataError(source, f"{source} is not a JSON file ({error}).") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        _other_schema(source, _first_record(text))
        raise GCADataError(source, f"{source} is not a JSON file ({error}).") from None
    _other_schema(source, data[0] if isinstance(data, list) and data else data)
    if not isinstance(data, list):
        raise GCADataError(source, f"{source} must hold a JSON list of records.")
    problems = [line for i, raw in enumerate(data) for line in _record_problems(i, raw)]
    if problems:
        raise GCADataError(
            source,
            f"Invalid CoSER dataset {source}: {len(problems)} problem(s). Fix the records listed "
            "(schema: docs/gca.md, 'Data'):",
            problems,
        )
    return [Circumstance.model_validate(raw) for raw in data]


def to_sample(record: Circumstance) -> Sample:
    return Sample(
        id=record.key,
        input=f"{record.book}\n{record.scenario}\nSpeakers: {', '.join(record.speakers)}",
        target=reference_text(record.dialogues),
        metadata={
            "book": record.book,
            "tag": record.tag,
            "circumstance": record.model_dump(mode="json"),
        },
    )


def load_circumstances(dataset: str) -> list[Circumstance]:
    return read_circumstances(dataset_path(dataset), dataset)


def gca_dataset(records: list[Circumstance], name: str) -> MemoryDataset:
    return MemoryDataset([to_sample(record) for record in records], name=name)
