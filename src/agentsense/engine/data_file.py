"""A data file known by its content: what a log records of the file it played (`DataFile`,
task metadata `data_file`), so that the report can tell the official data from a file that is
only called so (`analysis.official`). Standard library and pydantic only: every task loads it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict


def git_blob_id(data: bytes) -> str:
    """The id git gives `data` as a blob (`git hash-object`): SHA-1 of a header plus the bytes."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


DATA_FILE = "data_file"  # the task metadata key of a `DataFile`


class DataFile(BaseModel):
    """What a log records of the data file it played, so that the file is known by its content
    whatever it was called (`official`, a path, a URL): its sha256, its git blob id (what the
    official AgentSense files are pinned by) and its records (`rows`: a JSONL file's non-blank
    lines, a JSON list's items; None for a file of another shape)."""

    model_config = ConfigDict(frozen=True)

    sha256: str
    git_blob_id: str
    rows: int | None


def _rows(path: Path, data: bytes) -> int | None:
    lines = sum(1 for line in data.split(b"\n") if line.strip())
    if path.suffix == ".jsonl":
        return lines
    try:
        parsed = json.loads(data)
    except ValueError:  # JSONL under another name
        return lines
    return len(parsed) if isinstance(parsed, list) else None


def recorded_file(path: Path) -> DataFile:
    """The record of the data file at `path` (read whole: data files are megabytes at most)."""
    data = path.read_bytes()
    return DataFile(
        sha256=hashlib.sha256(data).hexdigest(),
        git_blob_id=git_blob_id(data),
        rows=_rows(path, data),
    )
