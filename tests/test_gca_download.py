"""The pinned CoSER files: downloaded by `engine.download`, sha256-verified and cached, against
the project's test file server (`tests/file_server.py`) (good, tampered, truncated, cut, cached)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import tenacity

from agentsense.coser import dataset
from agentsense.coser.dataset import SOURCE, GCADataError
from agentsense.engine.download import PinnedFile
from file_server import FileServer, Reply, file_server

OFFICIAL = SOURCE.files["official"]  # the real pin, before the fixture swaps it

UPSTREAM = "data/test/test_set.json"
SERVED = f"/mirror/{UPSTREAM}"
GOOD = json.dumps(json.loads(dataset.demo_path().read_text(encoding="utf-8"))).encode()
GOOD_SHA = hashlib.sha256(GOOD).hexdigest()


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Every write in tmp_path; `official` means the synthetic file; no waits between retries."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("AGENTSENSE_CACHE_DIR", str(cache))
    monkeypatch.delenv(SOURCE.url_env, raising=False)
    monkeypatch.setitem(SOURCE.files, "official", PinnedFile(UPSTREAM, GOOD_SHA, 3))
    monkeypatch.setattr(tenacity.nap.time, "sleep", lambda seconds: None)
    return cache / "coser"


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> Iterator[FileServer]:
    with file_server() as served:
        monkeypatch.setenv(SOURCE.url_env, served.url)
        yield served


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_good_file_is_verified_cached_and_reused(online: FileServer, isolated: Path) -> None:
    online.serve(Reply(GOOD), path=SERVED)
    path = SOURCE.path("official")
    assert path.read_bytes() == GOOD and path.parent == isolated
    assert files(isolated) == [SOURCE.files["official"].file_name]
    records = dataset.load_circumstances("official")
    assert records[0].key == "The Lighthouse at Gull Point-3-0"
    assert online.requests == [SERVED]  # the second use read the cache


def test_tampered_file_is_rejected_and_not_cached(online: FileServer, isolated: Path) -> None:
    online.serve(Reply(GOOD.replace(b"Mara", b"Mora")), path=SERVED)
    with pytest.raises(GCADataError) as caught:
        SOURCE.path("official")
    message = str(caught.value)
    assert "does not match the pinned sha256" in message and GOOD_SHA in message
    assert "it was not cached" in message and "-T dataset=demo" in message
    assert files(isolated) == []


def test_truncated_file_is_rejected(online: FileServer, isolated: Path) -> None:
    online.serve(Reply(GOOD[: len(GOOD) // 2]), path=SERVED)  # complete transfer of half a file
    with pytest.raises(GCADataError, match="does not match the pinned sha256"):
        SOURCE.path("official")
    assert files(isolated) == []


def test_cut_transfer_is_retried_then_reported(online: FileServer, isolated: Path) -> None:
    online.serve(Reply(GOOD, mode="short"), path=SERVED)  # Content-Length beyond the body
    with pytest.raises(GCADataError) as caught:
        SOURCE.path("official")
    message = str(caught.value)
    assert "could not be downloaded" in message and "complete message body" in message
    assert "after 5 attempts" in message
    assert len(online.requests) == 5 and files(isolated) == []


def test_cut_transfer_then_good_one_succeeds(online: FileServer, isolated: Path) -> None:
    online.serve(Reply(GOOD, mode="short"), Reply(GOOD), path=SERVED)
    assert SOURCE.path("official").read_bytes() == GOOD
    assert len(online.requests) == 2


def test_damaged_cache_is_downloaded_again(online: FileServer, isolated: Path) -> None:
    online.serve(Reply(GOOD), path=SERVED)
    path = SOURCE.path("official")
    path.write_bytes(GOOD[:-5])
    assert SOURCE.path("official").read_bytes() == GOOD
    assert len(online.requests) == 2


def test_not_found_names_the_url_and_the_ways_out(online: FileServer, isolated: Path) -> None:
    with pytest.raises(GCADataError) as caught:
        SOURCE.path("official")
    message = str(caught.value)
    assert "404" in message and SOURCE.url("official") in message
    assert "-T dataset=/path/to/test_set.json" in message
    assert "compared with" not in message  # CoSER's runs have no published cells to keep


def test_pins() -> None:
    assert SOURCE.commit == "624efc50db7be3a4e37cec6a1c58ed434dc9f2ce"
    assert SOURCE.url_env == "AGENTSENSE_COSER_URL"
    assert SOURCE.url("example") == (
        "https://raw.githubusercontent.com/Neph0s/CoSER/624efc50db7be3a4e37cec6a1c58ed434dc9f2ce/"
        "data/test/example_test_set.json"
    )
    assert (
        PinnedFile(
            "data/test/test_set.json",
            "eb175779d1d5adf99c893ff1f82de9b18ada912d3f385b3f5419195afdfb374a",
            200,
        )
        == OFFICIAL
    )
    assert SOURCE.files["example"].digest == (
        "7d3d771d9dd55d4ff950b4dacc1b79b502c183258d1344c2c3abbe2eddaab451"
    )
