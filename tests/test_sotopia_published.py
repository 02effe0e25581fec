"""Sotopia's published data shapes (`agentsense.sotopia.published`), on files sotopia 0.1.5's own
serialization wrote (tests/fixtures/sotopia-published/, by scripts/sotopia_parity.py): the
profile / environment / combo files, the episodes file of `cmu-lti/sotopia`'s shape, the pinned
download against the test file server, `URL#sha256=`, the hard subset, and bad records named."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import tenacity
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from agentsense.engine.download import PinnedFile
from agentsense.sotopia import published, render
from agentsense.sotopia.dataset import SotopiaDataError
from agentsense.sotopia.published import SOURCE, hard_environment_ids, load_episodes
from agentsense.sotopia.record import Episode
from agentsense.tasks import sotopia
from file_server import FileServer, Reply, file_server

FIXTURES = Path(__file__).parent / "fixtures" / "sotopia-published"
EPISODES = FIXTURES / "sotopia_episodes_v1.jsonl"
GOOD = EPISODES.read_bytes()
GOOD_SHA = hashlib.sha256(GOOD).hexdigest()
SERVED = "/mirror/sotopia_episodes_v1.jsonl"
OFFICIAL = SOURCE.files["official"]  # the real pin, before the fixture swaps it


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Every write in tmp_path; `official` is the fixture's episodes file; no retry waits."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("AGENTSENSE_CACHE_DIR", str(cache))
    monkeypatch.delenv(SOURCE.url_env, raising=False)
    monkeypatch.setitem(SOURCE.files, "official", PinnedFile(OFFICIAL.path, GOOD_SHA))
    monkeypatch.setattr(tenacity.nap.time, "sleep", lambda seconds: None)
    return cache / "sotopia"


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> Iterator[FileServer]:
    with file_server() as served:
        monkeypatch.setenv(SOURCE.url_env, served.url)  # it ends in /mirror
        yield served


def prompts(episode: Episode) -> list[str]:
    """Everything of an episode that reaches a model: each agent's first view, the judge's."""
    return [render.agent_background(episode, i) for i in range(2)] + [
        render.environment_background(episode)
    ]


def demo(env_id: object, agent_ids: object) -> Episode:
    """The demo episode of that environment and agent pair."""
    return next(
        e
        for e in load_episodes("demo")
        if e.environment.env_id == env_id and [a.agent_id for a in e.agents] == agent_ids
    )


def lines(path: Path = EPISODES) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_lines(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# --- shapes ---------------------------------------------------------------------------------


def test_the_pin_is_the_published_episodes_file_at_a_fixed_revision() -> None:
    assert OFFICIAL.path == "sotopia_episodes_v1.jsonl" and len(OFFICIAL.digest) == 64
    assert len(SOURCE.commit) == 40 and SOURCE.commit in SOURCE.default_url
    assert SOURCE.url_env == "AGENTSENSE_SOTOPIA_URL"
    assert SOURCE.url("official") == (
        f"https://huggingface.co/datasets/cmu-lti/sotopia/resolve/{SOURCE.commit}/"
        "sotopia_episodes_v1.jsonl"
    )


def test_sotopias_serialization_files_give_the_demo_episodes() -> None:
    ours, theirs = load_episodes("demo"), load_episodes(str(FIXTURES))
    assert [e.combo_id for e in theirs] == [e.combo_id for e in ours]
    for mine, written in zip(ours, theirs, strict=True):
        assert written.agents == mine.agents
        # 0.1.5 writes a missing constraint as "" (its serializer takes strings only).
        unconstrained = {"age_constraint": None, "occupation_constraint": None}
        assert written.environment.model_copy(update=unconstrained) == mine.environment
        assert prompts(written) == prompts(mine)


def test_an_episodes_file_gives_one_sample_per_combo_with_the_same_prompts() -> None:
    records = lines()
    assert len(records) == 2 and records[0]["agent_ids"] == records[1]["agent_ids"]
    (episode,) = load_episodes(str(EPISODES))
    mine = demo(records[0]["environment_id"], records[0]["agent_ids"])
    assert episode.environment.env_id == mine.environment.env_id
    assert [a.name for a in episode.agents] == [a.name for a in mine.agents]
    assert prompts(episode) == prompts(mine)
    assert episode.agents[0].secret == "" and mine.agents[0].secret in prompts(episode)[0]


# --- bad records ----------------------------------------------------------------------------


def test_a_bad_episode_line_is_named_with_its_field(tmp_path: Path) -> None:
    records = lines()
    del records[1]["social_goals"]
    records[0]["agent_ids"] = ["only-one"]
    path = write_lines(tmp_path / "episodes.jsonl", records)
    with pytest.raises(SotopiaDataError) as error:
        load_episodes(str(path))
    message = str(error.value)
    first, second = records[0]["episode_id"], records[1]["episode_id"]
    assert f"line 1 ({first}): field `agent_ids`:" in message
    assert f"line 2 ({second}): field `social_goals`: missing" in message
    path.write_text(path.read_text() + "{not json\n")
    with pytest.raises(SotopiaDataError, match="line 3 is not JSON"):
        load_episodes(str(path))


def test_a_bad_serialization_record_is_named_by_file_and_line(tmp_path: Path) -> None:
    for name in published.FOLDER_FILES.values():
        (tmp_path / name).write_bytes((FIXTURES / name).read_bytes())
    agents = lines(tmp_path / "agent_profiles.jsonl")
    del agents[2]["first_name"]
    write_lines(tmp_path / "agent_profiles.jsonl", agents)
    with pytest.raises(SotopiaDataError) as error:
        load_episodes(str(tmp_path))
    assert (
        f"agent_profiles.jsonl line 3 ({agents[2]['agent_id']}): field `first_name`: missing"
        in (str(error.value))
    )
    (tmp_path / "env_agent_combo_storages.jsonl").unlink()
    with pytest.raises(SotopiaDataError, match=r"without env_agent_combo_storages\.jsonl"):
        load_episodes(str(tmp_path))


# --- downloads ------------------------------------------------------------------------------


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_official_is_downloaded_verified_cached_and_reused(
    online: FileServer, isolated: Path
) -> None:
    online.serve(Reply(GOOD), path=SERVED)
    (episode,) = load_episodes("official")
    assert prompts(episode) == prompts(load_episodes(str(EPISODES))[0])
    assert files(isolated) == [SOURCE.files["official"].file_name]
    load_episodes("official")
    assert online.requests == [SERVED]  # the second use read the cache


def test_a_tampered_download_is_rejected_and_not_cached(online: FileServer, isolated: Path) -> None:
    online.serve(Reply(GOOD.replace(b"Marisol", b"Marisa")), path=SERVED)
    with pytest.raises(SotopiaDataError) as error:
        load_episodes("official")
    assert "does not match the pinned sha256" in str(error.value) and GOOD_SHA in str(error.value)
    assert files(isolated) == []


def test_a_url_is_read_only_with_its_sha256(online: FileServer, isolated: Path) -> None:
    url = f"{online.url}/elsewhere/episodes.jsonl"
    path = urlsplit(url).path
    online.serve(Reply(GOOD), path=path)
    with pytest.raises(SotopiaDataError, match="must end in #sha256="):
        load_episodes(url)
    with pytest.raises(SotopiaDataError, match="does not match the pinned sha256"):
        load_episodes(f"{url}#sha256={'0' * 64}")
    assert len(load_episodes(f"{url}#sha256={GOOD_SHA}")) == 1
    assert online.requests.count(path) >= 2


# --- the hard subset ------------------------------------------------------------------------


def serve_with_a_hard_combo(online: FileServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """`official` as the fixture's episodes plus one combo in a hard environment; its env id."""
    hard = sorted(hard_environment_ids())[0]
    records = lines()
    records.append({**records[0], "environment_id": hard, "agent_ids": ["a-1", "a-2"]})
    body = "".join(json.dumps(r) + "\n" for r in records).encode()
    monkeypatch.setitem(
        SOURCE.files, "official", PinnedFile(OFFICIAL.path, hashlib.sha256(body).hexdigest())
    )
    online.serve(Reply(body), path=SERVED)
    return hard


def test_sotopia_hard_is_the_official_combos_of_its_fourteen_environments(
    online: FileServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(hard_environment_ids()) == 14
    hard = serve_with_a_hard_combo(online, monkeypatch)
    assert len(sotopia(dataset="official").dataset) == 2
    (sample,) = sotopia(dataset="sotopia_hard").dataset
    assert sample.metadata and sample.metadata["environment"] == hard
    monkeypatch.setitem(SOURCE.files, "official", PinnedFile(OFFICIAL.path, GOOD_SHA))
    online.serve(Reply(GOOD), path=SERVED)
    with pytest.raises(SotopiaDataError, match="none of Sotopia-hard's 14 environments"):
        load_episodes("sotopia_hard")


def test_sotopia_hard_runs(
    online: FileServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    serve_with_a_hard_combo(online, monkeypatch)
    (log,) = inspect_eval(
        sotopia(dataset="sotopia_hard", max_turns=4),
        model="standin/persona/agent",
        model_roles={"judge": "standin/persona/judge"},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.eval.metadata and log.eval.metadata["dataset"] == "sotopia_hard"
    (sample,) = read_eval_log(log.location, resolve_attachments=True).samples or []
    assert sample.scores
    value = next(iter(sample.scores.values())).value
    assert isinstance(value, dict) and not math.isnan(value["overall"])
    first = next(e for e in sample.events if e.event == "model").input[0].text
    name, bio = next(iter(lines()[0]["agents_background"].items()))  # type: ignore[attr-defined]
    assert first.startswith(f"Imagine you are {name},") and bio in first
