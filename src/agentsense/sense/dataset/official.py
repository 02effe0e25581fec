"""Fetch the official AgentSense data files, verified against pinned git blob ids, and cache them.

The files come from the authors' repository `ljcleo/agent_sense` at a pinned commit. Each file is
checked against its git blob id (what `git hash-object FILE` prints), so a proxy, a truncated
transfer or a changed upstream file never reaches an evaluation.

Environment variables:

`AGENTSENSE_DATA_URL`
    Base URL the files are fetched from: a file's URL is `<base>/<path in the repository>`, e.g.
    `<base>/SENSE/data/final_data.jsonl`. Default:
    `https://raw.githubusercontent.com/ljcleo/agent_sense/2e12d8c50a5ea3326fe1356fde75b832883433a4`.
    Point it at a mirror (or, in tests, at a local server).
`AGENTSENSE_CACHE_DIR`
    Folder the verified files are kept in. Default: the user cache folder,
    `platformdirs.user_cache_dir("agentsense")` (e.g. `~/.cache/agentsense` on Linux).

A cached file is named `<stem>-<blob id><suffix>` (e.g. `final_data-0bf36a3a....jsonl`); to work
offline, copy the file into the cache folder under that exact name. Downloading, verifying and
caching are `dataset.download`'s, the one download of the project's pinned files.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentsense.engine.cache import cache_dir
from agentsense.engine.download import DownloadError, Pin, PinnedFile, download
from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.validation import DatasetError

REPOSITORY = "ljcleo/agent_sense"
COMMIT = "2e12d8c50a5ea3326fe1356fde75b832883433a4"
DEFAULT_BASE_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}"
DATA_URL_ENV = "AGENTSENSE_DATA_URL"


# Looked up at call time, so tests can swap an entry for a synthetic file.
OFFICIAL_SOURCES: dict[str, PinnedFile] = {
    "official": PinnedFile(
        "SENSE/data/final_data.jsonl", "0bf36a3aadc15bffa686f93feae44ce1d6497c26"
    ),
    "official_roles": PinnedFile(
        "SENSE/data/data_with_role.jsonl", "6394521d336900c12604782c72e9a09dd6991f5c"
    ),
}


class OfficialDataError(DatasetError):
    """An official data file that could not be downloaded, verified or cached."""

    def __init__(self, message: str, url: str = "") -> None:
        # Skip DatasetError's record-by-record message: there are no records to list here.
        PrerequisiteError.__init__(self, message)
        self.path = url
        self.problems = []


def _source(name: str) -> PinnedFile:
    try:
        return OFFICIAL_SOURCES[name]
    except KeyError:
        known = ", ".join(sorted(OFFICIAL_SOURCES))
        raise OfficialDataError(
            f"Unknown official AgentSense data source {name!r}; expected one of: {known}."
        ) from None


def official_url(name: str = "official") -> str:
    """The URL the named file is downloaded from (honours `AGENTSENSE_DATA_URL`)."""
    base = os.environ.get(DATA_URL_ENV) or DEFAULT_BASE_URL
    return f"{base.rstrip('/')}/{_source(name).path}"


def official_path(name: str = "official") -> Path:
    """The verified local copy of an official data file, downloaded and cached on first use.

    Raises `OfficialDataError` (a `DatasetError`, hence a `PrerequisiteError`) with a message that
    says how to proceed when the file cannot be downloaded, verified or cached.
    """
    source = _source(name)
    url = official_url(name)
    hints = (
        f"  - download the file elsewhere and pass -T dataset=/path/to/{source.base_name}\n"
        f"  - or put it in the cache folder {cache_dir()} under the exact file name "
        f"{source.file_name}\n"
        "  - or run on the bundled set with -T dataset=demo"
    )
    label = f"The official AgentSense file {source.base_name}"
    pin = Pin(source, url, cache_dir(), label, f"commit {COMMIT} of {REPOSITORY}", hints)
    try:
        return download(pin)
    except DownloadError as error:
        raise OfficialDataError(str(error), url) from None
