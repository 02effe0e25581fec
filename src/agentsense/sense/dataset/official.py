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
caching are `engine.download`'s, the one download of the project's pinned files.
"""

from __future__ import annotations

from agentsense.engine.download import PinnedFile, Source
from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.validation import DatasetError


class OfficialDataError(DatasetError):
    """An official data file that could not be downloaded, verified or cached."""

    def __init__(self, url: str, message: str) -> None:
        # Skip DatasetError's record-by-record message: there are no records to list here.
        PrerequisiteError.__init__(self, message)
        self.path = url
        self.problems = []


# `SOURCE.path(name)` raises `OfficialDataError` (a `DatasetError`, hence a `PrerequisiteError`)
# with a message that says how to proceed when the file cannot be downloaded, verified or cached.
SOURCE = Source(
    "official AgentSense",
    "ljcleo/agent_sense",
    "2e12d8c50a5ea3326fe1356fde75b832883433a4",
    "AGENTSENSE_DATA_URL",
    {
        "official": PinnedFile(
            "SENSE/data/final_data.jsonl", "0bf36a3aadc15bffa686f93feae44ce1d6497c26"
        ),
        "official_roles": PinnedFile(
            "SENSE/data/data_with_role.jsonl", "6394521d336900c12604782c72e9a09dd6991f5c"
        ),
    },
    OfficialDataError,
    compared="the paper",
)
