"""The one download of a pinned data file (the official AgentSense files, CoSER's test set,
Sotopia's episodes): fetched over HTTP (httpx, retried with tenacity), verified against the digest
it is pinned to, and cached. A benchmark declares where its files come from as one `Source`.

The pin is a git blob id (what `git hash-object FILE` prints: upstream AgentSense publishes no
other digest, so Inspect's sha256-only `download` cannot check it) or a sha256. A cached file
is re-verified on every use, with no network call when it matches, and deleted and downloaded
again when it does not. A download goes to a temporary file beside the target that is renamed
into place only once verified, so a failed or interrupted download never leaves a file behind.
Transient failures (reset, timeout, a cut transfer, HTTP 5xx or 429) are retried; a complete
transfer with the wrong content is fetched once more, no more (that is rarely transient).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import httpx
import tenacity

from agentsense.engine.cache import CACHE_DIR_ENV, cache_dir
from agentsense.engine.data_file import git_blob_id as git_blob_id  # where it was
from agentsense.engine.errors import PrerequisiteError

# Seconds per connect or read: generous for slow links, yet a dead server cannot hang a run.
TIMEOUT = 60.0
MAX_ATTEMPTS = 5  # tries for transient failures
MAX_HASH_RETRIES = 1
# Seconds to wait before retry n is RETRY_BACKOFF * n; tests set it near zero.
RETRY_BACKOFF = 1.0
CHUNK_SIZE = 1 << 20
USER_AGENT = "agentsense (python httpx)"


class DownloadError(PrerequisiteError):
    """A pinned file that could not be downloaded, verified or cached; says how to proceed."""


def _hashed(path: Path, digest: hashlib._Hash) -> str:
    """The hex digest of a file, read in chunks so large files need little memory."""
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_SIZE):
            digest.update(chunk)
    return digest.hexdigest()


def file_blob_id(path: Path) -> str:
    """`git_blob_id` of a file."""
    header = b"blob %d\0" % path.stat().st_size
    return _hashed(path, hashlib.sha1(header, usedforsecurity=False))


def file_sha256(path: Path) -> str:
    return _hashed(path, hashlib.sha256())


@dataclass(frozen=True)
class Digest:
    """What a file is pinned by: its name, how to compute it, how a user checks a copy, and how
    many of its digits name the cached copy."""

    name: str
    of: Callable[[Path], str]
    check: str
    shown: int


BLOB_ID = Digest("blob id", file_blob_id, "`git hash-object FILE`", 40)
SHA256 = Digest("sha256", file_sha256, "`sha256sum FILE`", 16)


@dataclass(frozen=True)
class PinnedFile:
    """A data file of a repository at a pinned commit: its path there and the digest it must
    have (a git blob id, 40 hex digits, or a sha256, 64), and how many records it holds."""

    path: str
    digest: str
    records: int | None = None

    @property
    def kind(self) -> Digest:
        return BLOB_ID if len(self.digest) == 40 else SHA256

    @property
    def base_name(self) -> str:
        """The upstream file name, e.g. `final_data.jsonl`."""
        return PurePosixPath(self.path).name

    @property
    def file_name(self) -> str:
        """The cache file name; it carries the digest so a new pin never reuses an old file."""
        upstream = PurePosixPath(self.path)
        return f"{upstream.stem}-{self.digest[: self.kind.shown]}{upstream.suffix}"


@dataclass(frozen=True)
class Pin:
    """One download: the file, where from and into which folder, and how to do without it."""

    file: PinnedFile
    url: str
    folder: Path
    label: str  # e.g. "The official AgentSense file final_data.jsonl"
    origin: str  # e.g. "commit 2e12d8c of ljcleo/agent_sense"
    hints: str  # how to proceed without the download

    @property
    def target(self) -> Path:
        return self.folder / self.file.file_name


GITHUB = "https://raw.githubusercontent.com/{repository}/{commit}"
HUGGING_FACE = "https://huggingface.co/datasets/{repository}/resolve/{commit}"


@dataclass(frozen=True)
class Source:
    """Where a benchmark's pinned files come from: a repository at a pinned commit, served under
    a base URL (`host`) that the environment variable `url_env` replaces (a mirror, a test
    server); the cache folder they are kept in; the error a failure is raised as."""

    title: str  # in messages: "The CoSER file test_set.json"
    repository: str
    commit: str
    url_env: str
    files: dict[str, PinnedFile]  # looked up at call time, so tests can swap an entry
    error: Callable[[str, str], PrerequisiteError]  # (source, message): the benchmark's error
    folder: str = ""  # below the agentsense cache folder
    demo: str = "set"  # what `-T dataset=demo` runs, for the offline hints
    host: str = GITHUB
    # What runs on its pinned files are compared with (e.g. "the paper"), so the offline hints
    # say which way out keeps that comparison; "" for none.
    compared: str = ""

    @property
    def default_url(self) -> str:
        return self.host.format(repository=self.repository, commit=self.commit)

    def file(self, name: str) -> PinnedFile:
        if name not in self.files:
            known = ", ".join(sorted(self.files))
            message = f"Unknown {self.title} data source {name!r}; expected one of: {known}."
            raise self.error(name, message)
        return self.files[name]

    def url(self, name: str) -> str:
        """The URL of the named file: `<base>/<path in the repository>`."""
        base = os.environ.get(self.url_env) or self.default_url
        return f"{base.rstrip('/')}/{self.file(name).path}"

    def path(self, name: str) -> Path:
        """The verified local copy of the named file, downloaded and cached on first use."""
        origin = f"commit {self.commit} of {self.repository}"
        return self.fetch(self.file(name), self.url(name), origin)

    def fetch(self, file: PinnedFile, url: str, origin: str) -> Path:
        """The verified local copy of `file` as served at `url` (not only this source's files:
        Sotopia's `URL#sha256=`); a failure is this source's error, saying how to proceed."""
        folder = cache_dir() / self.folder
        by_path, cached, demo = self._kept(file)
        hints = (
            f"  - download {url} yourself and pass -T dataset=/path/to/{file.base_name}{by_path}\n"
            f"  - or put it in {folder} as {file.file_name}{cached}\n"
            f"  - or run the bundled {self.demo} with -T dataset=demo{demo}"
        )
        label = f"The {self.title} file {file.base_name}"
        try:
            return download(Pin(file, url, folder, label, origin, hints))
        except DownloadError as error:
            raise self.error(url, str(error)) from None

    def _kept(self, file: PinnedFile) -> tuple[str, str, str]:
        """What each offline hint does to the comparison (by path, in the cache, the demo)."""
        if not self.compared or file not in self.files.values():
            return "", "", ""
        return (
            f" (still compared with {self.compared} if it is the pinned file: the log records "
            f"its hash; {file.kind.check} must print {file.digest})",
            f" (compared with {self.compared}, as a downloaded copy is)",
            f" (never compared with {self.compared})",
        )


# `URL#sha256=HEX` or `URL#blob=HEX`: a file elsewhere, pinned by the digest given.
URL_FORM = "URL#sha256=<64 hex digits> (`sha256sum FILE`) or URL#blob=<40> (`git hash-object FILE`)"
URL_DIGESTS = {"sha256": 64, "blob": 40}


def url_pin(dataset: str) -> tuple[str, PinnedFile] | None:
    """The URL and pin of `URL#sha256=HEX` or `URL#blob=HEX` (None: not that form)."""
    url, _, pin = dataset.partition("#")
    kind, _, digest = pin.partition("=")
    digest = digest.strip().lower()
    if len(digest) != URL_DIGESTS.get(kind, -1) or any(c not in "0123456789abcdef" for c in digest):
        return None
    return url, PinnedFile(PurePosixPath(urlsplit(url).path).name or "data", digest)


def _status(message: str) -> None:
    print(f"agentsense: {message}", file=sys.stderr, flush=True)


def download(pin: Pin) -> Path:
    """The verified local copy of a pinned file, downloaded and cached on first use."""
    try:
        if _cached_is_valid(pin):
            return pin.target
        pin.target.parent.mkdir(parents=True, exist_ok=True)
        return _fetch(pin)
    except OSError as error:  # network errors are converted in _fetch: this is the local disk
        detail = error.strerror or str(error)
        where = f" ({error.filename})" if error.filename else ""
        raise DownloadError(
            f"The cache folder {pin.target.parent} for {pin.label} cannot be used: "
            f"{detail}{where}.\nSet {CACHE_DIR_ENV} to a writable folder, or:\n{pin.hints}"
        ) from error


def _cached_is_valid(pin: Pin) -> bool:
    """Whether the target holds the pinned file; a wrong file is deleted so it gets replaced."""
    if not pin.target.is_file():
        return False
    found = pin.file.kind.of(pin.target)
    if found == pin.file.digest:
        return True
    _status(
        f"cached {pin.target} does not match {pin.file.kind.name} {pin.file.digest} (got {found}); "
        "deleting it and downloading again"
    )
    pin.target.unlink(missing_ok=True)
    return False


def _fetch(pin: Pin) -> Path:
    """Download into the target, retrying transient failures and one digest mismatch."""
    for mismatch in range(MAX_HASH_RETRIES + 1):
        temp, size = _retried(pin)
        found = _store_if_valid(temp, pin)
        if found == pin.file.digest:
            _status(
                f"downloaded {pin.file.base_name} ({size:,} bytes, {pin.file.kind.name} verified) "
                f"to {pin.target}"
            )
            return pin.target
        if mismatch < MAX_HASH_RETRIES:
            _status(
                f"download does not match {pin.file.kind.name} {pin.file.digest}; retrying once"
            )
    raise DownloadError(
        f"The download of {pin.file.base_name} from {pin.url} does not match the pinned "
        f"{pin.file.kind.name} (expected {pin.file.digest}, got {found}, {size:,} bytes); it was "
        f"not cached.\nA proxy may have altered it, or that address does not serve the pinned "
        f"version ({pin.origin}; check a copy with {pin.file.kind.check}). Then:\n{pin.hints}"
    )


def _transient(error: BaseException) -> bool:
    """Failures the same request may well not hit a moment later."""
    if isinstance(error, httpx.HTTPStatusError):
        return error.response.status_code >= 500 or error.response.status_code == 429
    return isinstance(error, httpx.TimeoutException | httpx.RemoteProtocolError | httpx.ReadError)


def _reason(error: BaseException) -> str:
    if isinstance(error, httpx.HTTPStatusError):
        return f"HTTP {error.response.status_code} {error.response.reason_phrase}"
    if isinstance(error, httpx.TimeoutException):
        return f"no response within {TIMEOUT:g} s"
    if isinstance(error, httpx.RemoteProtocolError):
        return f"transfer truncated: {error}"
    return str(error) or type(error).__name__


def _retried(pin: Pin) -> tuple[Path, int]:
    """`_transfer`, retried on transient failures with a growing wait."""
    _status(f"downloading {pin.file.base_name} from {pin.url} ...")
    attempt = tenacity.Retrying(
        retry=tenacity.retry_if_exception(_transient),
        stop=tenacity.stop_after_attempt(MAX_ATTEMPTS),
        wait=lambda state: RETRY_BACKOFF * state.attempt_number,
        before_sleep=lambda state: _status(
            f"download failed ({_reason(state.outcome.exception())}); retrying"  # type: ignore[union-attr,arg-type]
        ),
    )
    try:
        return attempt(_transfer, pin)
    except tenacity.RetryError as failed:
        error, tries = failed.last_attempt.exception(), failed.last_attempt.attempt_number
        reason = f"{_reason(error)}, after {tries} attempts"  # type: ignore[arg-type]
    except httpx.HTTPError as error:
        reason = _reason(error)
    raise DownloadError(
        f"{pin.label} could not be downloaded from {pin.url} ({reason}).\n"
        f"To proceed offline:\n{pin.hints}"
    ) from None


def _transfer(pin: Pin) -> tuple[Path, int]:
    """Stream the URL into a new temporary file beside the target; return it and its size."""
    handle, name = tempfile.mkstemp(
        dir=pin.target.parent, prefix=f".{pin.target.name}.", suffix=".part"
    )
    temp = Path(name)
    try:
        with (
            os.fdopen(handle, "wb") as out,
            httpx.stream(
                "GET",
                pin.url,
                headers={"User-Agent": USER_AGENT},
                timeout=TIMEOUT,
                follow_redirects=True,
            ) as response,
        ):
            response.raise_for_status()
            for chunk in response.iter_bytes(CHUNK_SIZE):
                out.write(chunk)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp, temp.stat().st_size


def _store_if_valid(temp: Path, pin: Pin) -> str:
    """Rename `temp` to the target if it has the pinned digest, else delete it; its digest."""
    stored = False
    try:
        found = pin.file.kind.of(temp)
        if found == pin.file.digest:
            # No fsync: a file damaged by a crash fails re-verification and is fetched again.
            os.replace(temp, pin.target)
            stored = True
        return found
    finally:
        if not stored:
            temp.unlink(missing_ok=True)
