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

A cached file is named `<stem>-<blob id><suffix>` (e.g. `final_data-0bf36a3a....jsonl`). It is
re-verified on every use, with no network call when it matches, and deleted and downloaded again
when it does not. A download goes to a temporary file in the cache folder that is renamed into
place only once verified, so a failed or interrupted download never leaves a file behind. To work
offline, copy the file into the cache folder under that exact name.

Why not `inspect_ai.util.download`: it verifies a SHA-256 that must be known before the transfer
(a mismatch raises and deletes the file), and upstream publishes only git blob ids. Once someone
with network access records the SHA-256 of each pinned file, the transfer below can become
`download(url, sha256, dest)` followed by the blob check.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from agentsense.engine.cache import CACHE_DIR_ENV, cache_dir
from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.validation import DatasetError

REPOSITORY = "ljcleo/agent_sense"
COMMIT = "2e12d8c50a5ea3326fe1356fde75b832883433a4"
DEFAULT_BASE_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}"
DATA_URL_ENV = "AGENTSENSE_DATA_URL"

# Seconds per connect or read: generous for slow links, yet a dead server cannot hang a run.
TIMEOUT = 60.0
# Tries for transient failures (reset, timeout, HTTP 5xx/429, truncated transfer).
MAX_ATTEMPTS = 3
# A complete transfer with the wrong content is rarely transient: try again once, no more.
MAX_HASH_RETRIES = 1
# Seconds to wait before retry n is RETRY_BACKOFF * n; tests set it near zero.
RETRY_BACKOFF = 1.0
CHUNK_SIZE = 1 << 20
USER_AGENT = "agentsense (python urllib)"


@dataclass(frozen=True)
class OfficialSource:
    """One official data file: where it lives in the repository and the blob id it must have."""

    path: str
    blob: str

    @property
    def base_name(self) -> str:
        """The upstream file name, e.g. `final_data.jsonl`."""
        return PurePosixPath(self.path).name

    @property
    def file_name(self) -> str:
        """The cache file name; it carries the blob id so a new pin never reuses an old file."""
        upstream = PurePosixPath(self.path)
        return f"{upstream.stem}-{self.blob}{upstream.suffix}"


# Looked up at call time, so tests can swap an entry for a synthetic file.
OFFICIAL_SOURCES: dict[str, OfficialSource] = {
    "official": OfficialSource(
        path="SENSE/data/final_data.jsonl",
        blob="0bf36a3aadc15bffa686f93feae44ce1d6497c26",
    ),
    "official_roles": OfficialSource(
        path="SENSE/data/data_with_role.jsonl",
        blob="6394521d336900c12604782c72e9a09dd6991f5c",
    ),
}


class OfficialDataError(DatasetError):
    """An official data file that could not be downloaded, verified or cached."""

    def __init__(self, message: str, url: str = "") -> None:
        # Skip DatasetError's record-by-record message: there are no records to list here.
        PrerequisiteError.__init__(self, message)
        self.path = url
        self.problems = []


class _TransientError(Exception):
    """A failure the same request may well not hit a moment later."""


class _PermanentError(Exception):
    """A failure a retry within seconds will not fix (refused connection, unknown host, 4xx)."""


def git_blob_id(data: bytes) -> str:
    """The id git gives `data` as a blob (`git hash-object`): SHA-1 of a header plus the bytes."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def _file_blob_id(path: Path) -> str:
    """`git_blob_id` of a file, read in chunks so large files need little memory."""
    digest = hashlib.sha1(b"blob %d\0" % path.stat().st_size, usedforsecurity=False)
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_SIZE):
            digest.update(chunk)
    return digest.hexdigest()


def _source(name: str) -> OfficialSource:
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
    directory = cache_dir()
    target = directory / source.file_name
    try:
        if _cached_is_valid(target, source):
            return target
        directory.mkdir(parents=True, exist_ok=True)
        return _fetch(official_url(name), source, target)
    except OSError as error:
        # Network errors are converted inside _fetch, so what reaches here is the local disk.
        raise OfficialDataError(_cache_message(source, directory, error)) from error


def _cached_is_valid(target: Path, source: OfficialSource) -> bool:
    """Whether `target` holds the pinned file; a wrong file is deleted so it gets replaced."""
    if not target.is_file():
        return False
    found = _file_blob_id(target)
    if found == source.blob:
        return True
    _status(
        f"cached {target} does not match blob {source.blob} (got {found}); "
        "deleting it and downloading again"
    )
    target.unlink(missing_ok=True)
    return False


def _fetch(url: str, source: OfficialSource, target: Path) -> Path:
    """Download `url` into `target`, retrying transient failures and one hash mismatch."""
    mismatches = 0
    attempt = 0
    while True:
        attempt += 1
        _status(f"downloading {source.base_name} from {url} ...")
        try:
            temp, size = _download_to_temp(url, target.parent, source.file_name)
        except _PermanentError as error:
            raise OfficialDataError(_unreachable_message(url, source, str(error)), url) from None
        except _TransientError as error:
            if attempt >= MAX_ATTEMPTS:
                message = _unreachable_message(url, source, str(error))
                raise OfficialDataError(message, url) from None
            _status(f"download failed ({error}); retrying")
            time.sleep(RETRY_BACKOFF * attempt)
            continue
        found = _store_if_valid(temp, target, source)
        if found == source.blob:
            _status(f"downloaded {source.base_name} ({size:,} bytes, blob verified) to {target}")
            return target
        mismatches += 1
        if mismatches > MAX_HASH_RETRIES:
            raise OfficialDataError(_mismatch_message(url, source, found, size), url)
        _status(f"download does not match blob {source.blob} (got {found}); retrying once")


def _store_if_valid(temp: Path, target: Path, source: OfficialSource) -> str:
    """Rename `temp` to `target` if it has the pinned blob id, else delete it; return its id."""
    stored = False
    try:
        found = _file_blob_id(temp)
        if found == source.blob:
            # No fsync: a file damaged by a crash fails re-verification and is fetched again.
            os.replace(temp, target)
            stored = True
        return found
    finally:
        if not stored:
            temp.unlink(missing_ok=True)


def _download_to_temp(url: str, directory: Path, file_name: str) -> tuple[Path, int]:
    """Stream `url` into a new temporary file in `directory`; return it and its size."""
    with _open(url) as response:
        handle, name = tempfile.mkstemp(dir=directory, prefix=f".{file_name}.", suffix=".part")
        temp = Path(name)
        try:
            with os.fdopen(handle, "wb") as out:
                size = _copy_body(response, out)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
    return temp, size


def _open(url: str) -> http.client.HTTPResponse:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    try:
        response: http.client.HTTPResponse = urllib.request.urlopen(request, timeout=TIMEOUT)
    except urllib.error.HTTPError as error:
        error.close()
        reason = f"HTTP {error.code} {error.reason}"
        if error.code >= 500 or error.code == 429:
            raise _TransientError(reason) from None
        raise _PermanentError(reason) from None
    except urllib.error.URLError as error:
        raise _classify(error.reason) from None
    except (OSError, http.client.HTTPException) as error:
        # Errors while reading the status line are not wrapped in URLError.
        raise _classify(error) from None
    return response


def _copy_body(response: http.client.HTTPResponse, out: BinaryIO) -> int:
    """Copy the body to `out`; a transfer shorter than Content-Length is an error."""
    size = 0
    while True:
        try:
            chunk = response.read(CHUNK_SIZE)
        except (OSError, http.client.HTTPException) as error:
            raise _classify(error) from None
        if not chunk:
            break
        out.write(chunk)
        size += len(chunk)
    # http.client returns b"" at a premature EOF instead of raising, so compare sizes here.
    expected = response.headers.get("Content-Length", "")
    if expected.isdigit() and int(expected) != size:
        raise _TransientError(f"transfer truncated: received {size:,} of {int(expected):,} bytes")
    return size


def _classify(reason: object) -> _TransientError | _PermanentError:
    """Sort a network error: resets, timeouts and cut transfers are worth retrying."""
    text = _describe(reason)
    if isinstance(reason, http.client.IncompleteRead):
        got, more = len(reason.partial), reason.expected
        return _TransientError(f"transfer truncated: received {got:,} bytes, {more} more expected")
    if isinstance(reason, (TimeoutError, http.client.HTTPException)):
        return _TransientError(text)
    if isinstance(reason, ConnectionError) and not isinstance(reason, ConnectionRefusedError):
        return _TransientError(text)
    return _PermanentError(text)


def _describe(reason: object) -> str:
    if isinstance(reason, TimeoutError):
        return f"no response within {TIMEOUT:g} s"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason) or type(reason).__name__


def _status(message: str) -> None:
    print(f"agentsense: {message}", file=sys.stderr, flush=True)


def _offline_hints(source: OfficialSource) -> str:
    return (
        f"  - download the file elsewhere and pass -T dataset=/path/to/{source.base_name}\n"
        f"  - or put it in the cache folder {cache_dir()} under the exact file name "
        f"{source.file_name}\n"
        "  - or run on the bundled set with -T dataset=demo"
    )


def _unreachable_message(url: str, source: OfficialSource, reason: str) -> str:
    return (
        f"The official AgentSense file {source.base_name} could not be downloaded from {url} "
        f"({reason}).\nTo proceed offline:\n{_offline_hints(source)}"
    )


def _mismatch_message(url: str, source: OfficialSource, found: str, size: int) -> str:
    return (
        f"The download of {source.base_name} from {url} does not match the pinned blob id "
        f"(expected {source.blob}, got {found}, {size:,} bytes) and was not cached.\n"
        "A proxy may have altered it, or that address does not serve the pinned version (commit "
        f"{COMMIT} of {REPOSITORY}; check a copy with `git hash-object FILE`). Then:\n"
        f"{_offline_hints(source)}"
    )


def _cache_message(source: OfficialSource, directory: Path, error: OSError) -> str:
    detail = error.strerror or str(error)
    where = f" ({error.filename})" if error.filename else ""
    return (
        f"The cache folder {directory} for the official AgentSense file {source.base_name} "
        f"cannot be used: {detail}{where}.\n"
        f"Set {CACHE_DIR_ENV} to a writable folder, pass -T dataset=/path/to/{source.base_name}, "
        "or run on the bundled set with -T dataset=demo."
    )
