"""agentsense/sotopia against sotopia 0.1.5 itself (fixtures by scripts/sotopia_parity.py).

Each fixture holds every request sotopia 0.1.5 sent for one demo episode (to the stub server),
the reply it got, and what its own evaluator read from the judge's reply; its PYTHONHASHSEED set
the order of the agent prompt's action list (one fixture is not in the default order), played
here with `-T action_types` read off the recorded prompts. Here the project plays
the same episode through the stub behind `vllm/`, answered with the recorded replies: it must send
the same requests (agent prompts and evaluator prompt, text equal, in the same order, with the
same sampling parameters) and read the same scores. What differs on purpose (docs/sotopia.md §5):
no reformatting request, and NaN where 0.1.5 drops the whole evaluation.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalSample

from agentsense.sotopia import KEYS
from agentsense.sotopia.evaluation import read_evaluation
from agentsense.sotopia.prompts import ACTION_TYPES, DIMENSIONS, SOTOPIA_VERSION
from agentsense.standin.rules import Request
from agentsense.standin.stub.server import RequestRecord, StubServer
from agentsense.tasks import sotopia
from fresh_process import in_fresh_process

FIXTURES = Path(__file__).parent / "fixtures" / "sotopia-parity"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.json"))
# 0.1.5 asks the judge to reformat a reply it cannot parse (`generate.py:284-301`); we do not.
REFORMAT = "Given the string that can not be parsed by json parser"
NO_REPLY = "(no reply recorded for this request)"


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


ACTION_LIST = "Your available action types are\n"
TWO_WORDS = "non-verbal communication"  # the one action type with a space in it


def listed_order(recorded: dict[str, Any]) -> str:
    """The recording's action list, read off its first agent prompt as docs/sotopia.md says:
    the line after "Your available action types are", spaces between the types."""
    prompt = next(
        m["content"]
        for r in recorded["requests"]
        for m in r["messages"]
        if ACTION_LIST in m["content"]
    )
    line = prompt.split(ACTION_LIST, 1)[1].split(".\n", 1)[0]
    words = line.replace(TWO_WORDS, TWO_WORDS.replace(" ", "_")).split(" ")
    return ",".join(word.replace("_", " ") for word in words)


def text(messages: list[dict[str, str]]) -> str:
    return "".join(m["content"] for m in messages)


def episode_requests(recorded: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in recorded["requests"] if REFORMAT not in text(r["messages"])]


def replay(fixtures: list[dict[str, Any]]) -> Any:
    """A stub rule answering each recorded request with its recorded reply."""
    replies = {
        (r["model"], tuple((m["role"], m["content"]) for m in r["messages"])): r["reply"]
        for recorded in fixtures
        for r in recorded["requests"]
    }

    def rule(request: Request) -> str:
        return str(replies.get((request.model, tuple(request.messages)), NO_REPLY))

    return rule


Run = tuple[dict[str, Any], list[RequestRecord], EvalSample]


def _play(logs: Path) -> dict[str, Run]:
    """Each fixture's episode played by the project: one stub (Inspect keeps a `vllm/` model's
    client, so its base URL must not change), its log cleared between episodes."""
    fixtures = {name: fixture(name) for name in NAMES}
    runs: dict[str, Run] = {}
    with (
        StubServer(rule=replay(list(fixtures.values()))) as server,
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setenv("VLLM_BASE_URL", server.base_url)
        for name, recorded in fixtures.items():
            server.clear()
            (log,) = inspect_eval(
                sotopia(dataset="demo", action_types=listed_order(recorded)),
                model=f"vllm/{recorded['agent_model']}",
                model_roles={"judge": f"vllm/{recorded['judge_model']}"},
                sample_id=recorded["combo_id"],
                log_dir=str(logs / name),
                display="none",
            )
            assert log.status == "success", log.error
            assert log.samples and len(log.samples) == 1
            runs[name] = (recorded, server.chat_records(), log.samples[0])
    return runs


@pytest.fixture(scope="module")
def parity_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """In a fresh process: another test of this worker may have made `vllm/agent` against its
    own stub, and Inspect would send this module's requests there (tests/fresh_process.py)."""
    return in_fresh_process(_play, tmp_path_factory.mktemp("logs"))


@pytest.fixture(params=NAMES)
def parity_run(request: pytest.FixtureRequest, parity_runs: dict[str, Run]) -> Run:
    return parity_runs[request.param]


def test_the_fixtures_are_sotopia_0_1_5_episodes_with_an_in_range_and_a_dropped_evaluation() -> (
    None
):
    recorded = [fixture(name) for name in NAMES]
    assert len(recorded) >= 2
    assert {r["sotopia_version"] for r in recorded} == {SOTOPIA_VERSION}
    # 0.1.5's episode log zeroes the rewards whatever the judge said (docs/deviations.md §5).
    assert {r["episode_log_rewards"] for r in recorded} == {"[0.0, 0.0]"}
    assert any(r["p1_rate"] is not None for r in recorded)
    assert any(r["evaluator_responses"] == [] for r in recorded)
    # 0.1.5's action list follows PYTHONHASHSEED: a recording in another order than the default.
    assert {listed_order(r) for r in recorded} > {",".join(ACTION_TYPES)}


def test_the_project_sends_sotopias_requests_text_equal(
    parity_run: Run,
) -> None:
    recorded, sent, _ = parity_run
    expected = episode_requests(recorded)
    assert len(expected) >= 3
    assert [r.model for r in sent] == [r["model"] for r in expected]
    for i, (ours, theirs) in enumerate(zip(sent, expected, strict=True)):
        assert ours.messages == theirs["messages"], f"request {i} ({ours.model}) differs"
        assert ours.reply != NO_REPLY
        assert (ours.temperature, ours.max_tokens) == (theirs["temperature"], None)
        assert ("response_format" in ours.params) == ("response_format" in theirs["params"])
        if "response_format" in theirs["params"]:
            ours_format, theirs_format = ours.params["response_format"], theirs["params"]
            assert without_titles(ours_format) == without_titles(theirs_format["response_format"])
            assert "title" in json.dumps(theirs_format) and "title" not in json.dumps(ours_format)


def without_titles(value: Any) -> Any:
    """The schema without pydantic's `title` annotations (litellm sends them; Inspect's
    `JSONSchema` has no such field) and without Inspect's `description: null`."""
    if isinstance(value, dict):
        return {
            k: without_titles(v)
            for k, v in value.items()
            if k != "title" and not (k == "description" and v is None)
        }
    if isinstance(value, list):
        return [without_titles(v) for v in value]
    return value


def sotopia_readings(recorded: dict[str, Any]) -> list[dict[str, tuple[float, str]]]:
    """Per agent, what sotopia's evaluator read: dimension -> (score, reasoning)."""
    readings: list[dict[str, tuple[float, str]]] = [{}, {}]
    for agent, ((dimension, score), reasoning) in recorded["evaluator_responses"]:
        readings[int(agent.removeprefix("agent_")) - 1][dimension] = (float(score), reasoning)
    return readings


def judge_reply(recorded: dict[str, Any]) -> str:
    (reply,) = [
        r["reply"] for r in episode_requests(recorded) if r["model"] == recorded["judge_model"]
    ]
    return str(reply)


def test_the_project_reads_the_scores_sotopias_evaluator_reads(
    parity_run: Run,
) -> None:
    recorded, _, sample = parity_run
    assert sample.scores
    score = next(iter(sample.scores.values()))
    value, metadata = score.value, score.metadata or {}
    assert isinstance(value, dict)
    (judge,) = metadata["judges"]
    agents = list(judge["agents"].values())
    readings, problems = read_evaluation(judge_reply(recorded), 2)
    if recorded["p1_rate"] is not None:
        # sotopia parsed the reply: every score, reasoning and overall as its evaluator has them.
        theirs = sotopia_readings(recorded)
        assert readings == theirs and problems == []
        for i, rate in enumerate((recorded["p1_rate"], recorded["p2_rate"])):
            overall, per_dimension = rate
            assert {KEYS[d]: agents[i][KEYS[d]]["score"] for d in DIMENSIONS} == {
                KEYS[d]: per_dimension[d] for d in DIMENSIONS
            }
            assert math.isclose(sum(per_dimension[d] for d in DIMENSIONS) / 7, overall)
        overall_mean = (recorded["p1_rate"][0] + recorded["p2_rate"][0]) / 2
        assert math.isclose(value["overall"], overall_mean)
        for d in DIMENSIONS:
            pair = (recorded["p1_rate"][1][d], recorded["p2_rate"][1][d])
            assert math.isclose(value[KEYS[d]], sum(pair) / 2)
    else:
        # sotopia dropped all 14 values for one bad one; here only that one is NaN, and counted.
        assert recorded["evaluator_responses"] == []
        assert problems and metadata["unreadable"] == [f"{judge['judge']} {p}" for p in problems]
        bad = {tuple(p.split(":")[0].split(" ")) for p in problems}
        raw = json.loads(judge_reply(recorded))["evaluations"]
        for i, agent in enumerate(agents):
            for d in DIMENSIONS:
                got = agent[KEYS[d]]["score"]
                if (f"agent_{i + 1}", d) in bad:
                    assert got is None and math.isnan(readings[i][d][0])
                else:
                    assert got == raw[f"agent_{i + 1}"][d][1]
        bad_keys = {KEYS[d] for _, d in bad} | {"overall"}
        assert all(math.isnan(value[k]) == (k in bad_keys) for k in value)
