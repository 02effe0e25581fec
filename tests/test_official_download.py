"""Download, verification and caching of the official data files, against a local HTTP server."""

from __future__ import annotations

import hashlib
import json
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentsense.analysis.official import official_file
from agentsense.engine import download
from agentsense.engine.cache import cache_dir
from agentsense.engine.data_file import recorded_file
from agentsense.engine.download import PinnedFile, git_blob_id
from agentsense.sense.dataset.official import SOURCE
from agentsense.sense.dataset.samples import dataset_path
from agentsense.sense.dataset.validation import DatasetError
from file_server import FileServer, Reply, file_server

# The real pins, captured before any fixture swaps an entry for the synthetic file.
PINNED = dict(SOURCE.files)
UPSTREAM_PATH = "SENSE/data/final_data.jsonl"
SERVED_PATH = f"/mirror/{UPSTREAM_PATH}"
GOOD = b"".join(
    json.dumps({"sample_idx": i, "scene": f"scene {i}"}).encode() + b"\n" for i in range(20)
)
GOOD_BLOB = git_blob_id(GOOD)


@pytest.fixture
def server() -> Iterator[FileServer]:
    with file_server() as served:
        yield served


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Keep every write in tmp_path and make `official` mean the synthetic GOOD file."""
    for var in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    cache = tmp_path / "cache"
    monkeypatch.setenv("AGENTSENSE_CACHE_DIR", str(cache))
    monkeypatch.delenv("AGENTSENSE_DATA_URL", raising=False)
    monkeypatch.setattr(download, "RETRY_BACKOFF", 0.001)
    monkeypatch.setattr(download, "TIMEOUT", 5.0)
    monkeypatch.setitem(SOURCE.files, "official", PinnedFile(UPSTREAM_PATH, GOOD_BLOB))
    return cache


@pytest.fixture
def online(server: FileServer, monkeypatch: pytest.MonkeyPatch) -> FileServer:
    monkeypatch.setenv("AGENTSENSE_DATA_URL", server.url)
    return server


def cache_listing(cache: Path) -> list[str]:
    """Every entry of the cache folder, hidden temporary files included."""
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


def test_good_file_is_cached_and_reused_without_network(
    online: FileServer, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    online.serve(Reply(GOOD), path=SERVED_PATH)
    path = SOURCE.path("official")
    assert path == isolated / f"final_data-{GOOD_BLOB}.jsonl"
    assert path.read_bytes() == GOOD
    assert online.requests == [SERVED_PATH]
    assert cache_listing(isolated) == [path.name]
    err = capsys.readouterr().err
    assert "downloading final_data.jsonl from" in err and f"{len(GOOD):,} bytes" in err

    assert SOURCE.path("official") == path
    assert online.requests == [SERVED_PATH]  # no second request
    assert capsys.readouterr().err == ""


def test_tampered_file_is_rejected_and_not_cached(online: FileServer, isolated: Path) -> None:
    tampered = GOOD.replace(b"scene 3", b"scene X")
    online.serve(Reply(tampered), path=SERVED_PATH)
    with pytest.raises(DatasetError) as caught:
        SOURCE.path("official")
    message = str(caught.value)
    assert "does not match the pinned blob id" in message and "not cached" in message
    assert GOOD_BLOB in message and git_blob_id(tampered) in message
    assert f"{len(tampered):,} bytes" in message and online.url in message
    assert len(online.requests) == 1 + download.MAX_HASH_RETRIES
    assert cache_listing(isolated) == []


@pytest.mark.parametrize("mode", ["short", "chunked_cut"])
def test_truncated_transfer_is_rejected(online: FileServer, isolated: Path, mode: str) -> None:
    online.serve(Reply(GOOD, mode=mode), path=SERVED_PATH)
    with pytest.raises(DatasetError) as caught:
        SOURCE.path("official")
    message = str(caught.value)
    assert "could not be downloaded" in message and "truncated" in message
    assert len(online.requests) == download.MAX_ATTEMPTS
    assert cache_listing(isolated) == []


def test_server_down_fails_fast_with_offline_hints(
    monkeypatch: pytest.MonkeyPatch, isolated: Path
) -> None:
    # A port bound but not listening refuses connections, and no other test (xdist worker) can
    # take it while the socket is held.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
        monkeypatch.setenv("AGENTSENSE_DATA_URL", url)
        monkeypatch.setattr(download, "RETRY_BACKOFF", 10.0)  # a retry would blow the time budget
        start = time.monotonic()
        with pytest.raises(DatasetError) as caught:
            SOURCE.path("official")
        assert time.monotonic() - start < 2
    message = str(caught.value)
    assert f"could not be downloaded from {url}/{UPSTREAM_PATH}" in message
    assert "-T dataset=demo" in message and "-T dataset=/path/to/final_data.jsonl" in message
    # Which way out keeps the paper comparison: the file by path does if its hash is the pin's.
    assert (
        "-T dataset=/path/to/final_data.jsonl (still compared with the paper if it is the pinned "
        f"file: the log records its hash; `git hash-object FILE` must print {GOOD_BLOB})"
    ) in message
    assert f"final_data-{GOOD_BLOB}.jsonl (compared with the paper" in message
    assert "-T dataset=demo (never compared with the paper)" in message
    assert str(isolated) in message and f"final_data-{GOOD_BLOB}.jsonl" in message
    assert cache_listing(isolated) == []


def test_file_placed_by_hand_in_cache_works_offline(
    monkeypatch: pytest.MonkeyPatch, isolated: Path
) -> None:
    monkeypatch.setenv("AGENTSENSE_DATA_URL", "http://127.0.0.1:9/unreachable")
    isolated.mkdir()
    placed = isolated / f"final_data-{GOOD_BLOB}.jsonl"
    placed.write_bytes(GOOD)
    assert SOURCE.path("official") == placed


def test_corrupted_cache_is_replaced(
    online: FileServer, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    online.serve(Reply(GOOD), path=SERVED_PATH)
    path = SOURCE.path("official")
    path.write_bytes(GOOD[:-10])
    assert SOURCE.path("official") == path
    assert path.read_bytes() == GOOD
    assert len(online.requests) == 2
    assert "does not match blob" in capsys.readouterr().err
    assert cache_listing(isolated) == [path.name]


def test_transient_server_error_is_retried(online: FileServer, isolated: Path) -> None:
    online.serve(Reply(b"busy", status=500), Reply(GOOD), path=SERVED_PATH)
    assert SOURCE.path("official").read_bytes() == GOOD
    assert len(online.requests) == 2


def test_not_found_is_not_retried(online: FileServer, isolated: Path) -> None:
    with pytest.raises(DatasetError) as caught:
        SOURCE.path("official")
    assert "HTTP 404" in str(caught.value)
    assert len(online.requests) == 1
    assert cache_listing(isolated) == []


def test_unknown_source_is_a_clear_error() -> None:
    with pytest.raises(DatasetError, match="official, official_roles"):
        SOURCE.path("nope")


def test_git_blob_id_matches_git() -> None:
    assert git_blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_pins_and_default_locations(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert PINNED["official"].digest == "0bf36a3aadc15bffa686f93feae44ce1d6497c26"
    roles = PINNED["official_roles"]
    assert roles.file_name == "data_with_role-6394521d336900c12604782c72e9a09dd6991f5c.jsonl"
    assert SOURCE.url("official_roles") == (
        "https://raw.githubusercontent.com/ljcleo/agent_sense/"
        "2e12d8c50a5ea3326fe1356fde75b832883433a4/SENSE/data/data_with_role.jsonl"
    )
    assert cache_dir() == isolated
    monkeypatch.delenv("AGENTSENSE_CACHE_DIR")
    if sys.platform.startswith("linux"):  # elsewhere platformdirs ignores XDG_CACHE_HOME
        assert cache_dir() == isolated.parent / "xdg_cache_home" / "agentsense"


def test_the_official_file_by_url_is_verified_and_known_by_its_content(online: FileServer) -> None:
    """`-T dataset=URL#blob=HEX` (or `#sha256=`): downloaded, verified, and, being the pinned
    file, the official set for the paper comparison, whatever the URL."""
    url = f"{online.url.rstrip('/')}/elsewhere/final_data.jsonl"  # the server's base is /mirror/
    online.serve(Reply(GOOD), path="/mirror/elsewhere/final_data.jsonl")
    path = dataset_path(f"{url}#blob={GOOD_BLOB}")
    assert path.read_bytes() == GOOD
    assert official_file({"data_git_blob_id": recorded_file(path).git_blob_id}) == "official"
    by_sha = dataset_path(f"{url}#sha256={hashlib.sha256(GOOD).hexdigest()}")
    assert by_sha.read_bytes() == GOOD
    with pytest.raises(DatasetError) as caught:
        dataset_path(f"{url}#blob={git_blob_id(b'other')}")
    assert "does not match the pinned blob id" in str(caught.value)
    with pytest.raises(DatasetError) as caught:
        dataset_path(url)
    assert "a URL without a digest to verify it by" in str(caught.value)
    assert "URL#sha256=<64 hex digits>" in str(caught.value)
