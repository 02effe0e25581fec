"""The OpenAI-compatible stub server: endpoints, reply rules, latency, faults, log, lifecycle."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agentsense.standin.rules import Request, parity, persona
from agentsense.standin.stub import Faults, Latency, StubServer
from agentsense.standin.stub.pytest_plugin import StubFactory
from agentsense.standin.stub.server import UsageMode

PARITY = Path("/work/shared/reference/sense-parity/sense_parity.json")
SYSTEM = (
    "You are Mira. Mira is a nurse.\n\nNow you are in a social scene. A dinner.\n\n"
    "SOCIAL GOALS: To reassure Leo about the move. To keep the evening calm.\n\nSECRETS: N/A."
)


def chat_body(last: str, model: str = "agent", **params: Any) -> dict[str, Any]:
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Leo: Hi, there!"},
        {"role": "user", "content": last},
    ]
    return {"model": model, "messages": messages, **params}


def post(
    url: str, body: dict[str, Any] | bytes, timeout: float = 10
) -> tuple[int, dict[str, str], bytes]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def completion(stub: StubServer, body: dict[str, Any]) -> str:
    status, _, data = post(f"{stub.base_url}/chat/completions", body)
    assert status == 200, data
    return str(json.loads(data)["choices"][0]["message"]["content"])


def test_chat_completion_shape_and_request_log(stub: StubServer) -> None:
    status, _, data = post(
        f"{stub.base_url}/chat/completions",
        chat_body("Leo: What now?", temperature=0.7, max_tokens=64, seed=3),
    )
    assert status == 200
    reply = json.loads(data)
    assert reply["object"] == "chat.completion" and reply["model"] == "agent"
    choice = reply["choices"][0]
    assert choice["message"]["role"] == "assistant" and choice["finish_reason"] == "stop"
    usage = reply["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0

    (record,) = stub.chat_records()
    assert record.model == "agent" and record.temperature == 0.7 and record.max_tokens == 64
    assert record.params == {"temperature": 0.7, "max_tokens": 64, "seed": 3}
    assert record.system == SYSTEM and record.last == "Leo: What now?"
    assert record.outcome == "ok" and record.status == 200 and record.attempt == 0
    assert record.reply == choice["message"]["content"] and record.duration is not None


def test_models_health_and_unknown_routes(stub: StubServer) -> None:
    completion(stub, chat_body("Leo: hello", model="judge-a"))
    status, models = get(f"{stub.base_url}/models")
    assert status == 200 and [m["id"] for m in models["data"]] == ["judge-a"]
    assert models["data"][0]["max_model_len"] > 0
    assert get(f"{stub.root_url}/health") == (200, {"status": "ok"})
    assert get(f"{stub.base_url}/nope")[0] == 404
    assert post(f"{stub.base_url}/completions", chat_body("x"))[0] == 404


@pytest.mark.parametrize("body", [b"not json", b'{"model": "a"}', b'{"messages": []}', b"[1, 2]"])
def test_bad_requests_get_a_400(stub: StubServer, body: bytes) -> None:
    status, _, data = post(f"{stub.base_url}/chat/completions", body)
    assert status == 400 and "model and messages" in json.loads(data)["error"]["message"]
    assert stub.outcomes() == Counter({"bad_request": 1})


def test_streaming_is_refused_clearly(stub: StubServer) -> None:
    status, _, data = post(f"{stub.base_url}/chat/completions", chat_body("x", stream=True))
    assert status == 400 and "non-streaming" in data.decode()


def test_content_parts_are_read_as_text(stub: StubServer) -> None:
    body = chat_body("ignored")
    body["messages"][-1]["content"] = [
        {"type": "text", "text": "Leo: "},
        {"type": "text", "text": "hi"},
    ]
    completion(stub, body)
    assert stub.chat_records()[0].last == "Leo: hi"


def test_auto_rule_picks_parity_by_model_name(stub: StubServer) -> None:
    body = chat_body("Leo: What now?", model="parity/agent-model")
    pairs = [(m["role"], m["content"]) for m in body["messages"]]
    assert completion(stub, body) == parity(Request("agent-model", pairs))
    body["model"] = "some-org/some-model"
    assert completion(stub, body) == persona(Request("some-org/some-model", pairs))


def test_fixed_rule_option(stub_server: StubFactory) -> None:
    stub = stub_server(rule="parity")
    body = chat_body("Leo: What now?", model="agent-model")
    pairs = [(m["role"], m["content"]) for m in body["messages"]]
    assert completion(stub, body) == parity(Request("agent-model", pairs))
    with pytest.raises(ValueError, match="unknown rule"):
        StubServer(rule="nonsense")


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ("zero", {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}),
        ("no-total", {"total_tokens": 0}),
        ("none", None),
    ],
)
def test_usage_as_servers_without_counts_send_it(
    stub_server: StubFactory, usage: UsageMode, expected: dict[str, int] | None
) -> None:
    counted = stub_server()
    stub = stub_server(usage=usage)
    url = "/chat/completions"
    (_, _, real), (_, _, data) = (post(s.base_url + url, chat_body("x")) for s in (counted, stub))
    got = json.loads(data).get("usage")
    if expected is None:
        assert got is None
    else:
        assert got == {**json.loads(real)["usage"], **expected}
        assert json.loads(real)["usage"]["total_tokens"] > 0
    with pytest.raises(ValueError, match="unknown usage"):
        StubServer(usage="nonsense")  # type: ignore[arg-type]


def test_callable_rule(stub_server: StubFactory) -> None:
    stub = stub_server(rule=lambda request: f"{request.model}|{len(request.messages)}")
    assert completion(stub, chat_body("x", model="m")) == "m|3"


def test_reproduces_every_recorded_official_reply(stub: StubServer) -> None:
    """Each request of the official parity fixtures gets the fixture's stand-in response."""
    scenarios = json.loads(PARITY.read_text())["scenarios"]
    requests = [r for s in scenarios for r in s["turn_requests"] + s["evaluation_requests"]]
    mismatches = 0
    for recorded in requests:
        messages = [{"role": m["role"], "content": m["content"]} for m in recorded["messages"]]
        body = {"model": f"parity/{recorded['model']}", "messages": messages}
        mismatches += completion(stub, body) != recorded["response"]
    print(
        f"parity fixture requests replayed through the stub: {len(requests)}, "
        f"mismatches: {mismatches}"
    )
    assert len(requests) > 100 and mismatches == 0


def test_persona_answers_like_a_model(stub: StubServer) -> None:
    yes_no = [
        completion(stub, chat_body(f"Has Mira achieved goal {i}? Answer Yes or No."))
        for i in range(40)
    ]
    assert all(a.split(",")[0].rstrip(".") in ("Yes", "No") for a in yes_no)
    assert {"Yes", "No"} <= {a.split(",")[0].rstrip(".") for a in yes_no}
    mcq = (
        "Please answer the question and only output your choice.\n"
        "Who? Options: (A) x; (B) y; (C) z."
    )
    letters = {completion(stub, chat_body(mcq, model=f"m{i}")).strip("()")[0] for i in range(30)}
    assert letters == {"A", "B", "C"}
    turns = [completion(stub, chat_body(f"Leo: Tell me more ({i})")) for i in range(10)]
    assert all("\n" not in t and "Leo" in t for t in turns) and len(set(turns)) > 5


def test_fault_draws_are_deterministic_and_near_their_rates() -> None:
    faults = Faults(error_500=0.2, hang=0.05, rate_limit_429=0.1, seed=7)
    keys = [f"request {i}".encode() for i in range(4000)]
    first = [faults.decide(key, 0) for key in keys]
    assert first == [faults.decide(key, 0) for key in keys]
    counts = Counter(first)
    rates = {name: counts[name] / len(keys) for name in counts}
    print("fault rates over 4000 draws:", {k: round(v, 3) for k, v in sorted(rates.items())})
    assert abs(rates["error_500"] - 0.2) < 0.03 and abs(rates["hang"] - 0.05) < 0.015
    assert abs(rates["rate_limit_429"] - 0.1) < 0.02
    # A retry is a new draw, and another seed gives other draws.
    assert first != [faults.decide(key, 1) for key in keys]
    assert first != [
        Faults(error_500=0.2, hang=0.05, rate_limit_429=0.1, seed=8).decide(k, 0) for k in keys
    ]


def test_fault_rates_are_validated() -> None:
    with pytest.raises(ValueError, match="sum to at most 1"):
        Faults(error_500=0.7, hang=0.5)
    with pytest.raises(ValueError):
        Faults(drop=-0.1)
    assert not Faults().any and Faults(malformed=0.1).any


def test_retries_meet_fresh_draws_over_http(stub_server: StubFactory) -> None:
    stub = stub_server(faults=Faults(error_500=0.5, seed=1))
    body = chat_body("Leo: again?")
    statuses = [post(f"{stub.base_url}/chat/completions", body)[0] for _ in range(12)]
    assert set(statuses) == {200, 500}
    assert [r.attempt for r in stub.chat_records()] == list(range(12))
    # The same sequence on a fresh server with the same seed.
    again = stub_server(faults=Faults(error_500=0.5, seed=1))
    assert [post(f"{again.base_url}/chat/completions", body)[0] for _ in range(12)] == statuses


def test_error_500_and_429_replies(stub_server: StubFactory) -> None:
    stub = stub_server(faults=Faults(error_500=1.0))
    status, _, data = post(f"{stub.base_url}/chat/completions", chat_body("x"))
    assert status == 500 and json.loads(data)["error"]["code"] == 500
    limited = stub_server(faults=Faults(rate_limit_429=1.0, retry_after=2.5))
    status, headers, data = post(f"{limited.base_url}/chat/completions", chat_body("x"))
    assert status == 429 and headers["Retry-After"] == "2.5"
    assert json.loads(data)["error"]["type"] == "RateLimitError"
    assert limited.outcomes() == Counter({"rate_limit_429": 1})


def test_malformed_reply_is_valid_http_with_broken_json(stub_server: StubFactory) -> None:
    stub = stub_server(faults=Faults(malformed=1.0))
    status, headers, data = post(f"{stub.base_url}/chat/completions", chat_body("x"))
    assert status == 200 and headers["Content-Type"] == "application/json"
    with pytest.raises(json.JSONDecodeError):
        json.loads(data)


def test_dropped_connection_has_no_reply(stub_server: StubFactory) -> None:
    stub = stub_server(faults=Faults(drop=1.0))
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError, urllib.error.URLError)):
        post(f"{stub.base_url}/chat/completions", chat_body("x"))
    (record,) = stub.chat_records()
    assert record.outcome == "drop" and record.status is None


def test_hung_request_times_out_the_client(stub_server: StubFactory) -> None:
    stub = stub_server(faults=Faults(hang=1.0))
    with pytest.raises((TimeoutError, socket.timeout, urllib.error.URLError)):
        post(f"{stub.base_url}/chat/completions", chat_body("x"), timeout=0.5)
    assert stub.chat_records()[0].outcome == "hang"


def test_hung_request_does_not_hang_shutdown() -> None:
    stub = StubServer(faults=Faults(hang=1.0, hang_seconds=600)).start()
    errors: list[BaseException] = []

    def client() -> None:
        try:
            post(f"{stub.base_url}/chat/completions", chat_body("x"), timeout=60)
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    while not stub.chat_records():
        time.sleep(0.01)
    start = time.monotonic()
    stub.stop()
    thread.join(timeout=10)
    print(f"stop() with a hung request in flight took {time.monotonic() - start:.3f} s")
    assert not thread.is_alive() and errors  # the client saw the connection close
    assert stub.chat_records()[0].duration is not None


def test_latency_specs() -> None:
    assert Latency.parse("0.2") == Latency("fixed", 0.2) == Latency.parse(0.2)
    assert Latency.parse("uniform:0.1,0.5").seconds(0.5, 0.0) == pytest.approx(0.3)
    assert Latency.parse("exp:0.3").seconds(0.0, 0.0) == 0.0
    assert Latency.parse("exp:0.3").seconds(1 - 1 / 2.718281828459045, 0.0) == pytest.approx(0.3)
    assert Latency.parse("normal:0.3,0.1").seconds(0.999999, 0.0) > 0.3
    assert Latency.parse("normal:0.0,1.0").seconds(0.9, 0.5) == 0.0  # never negative
    with pytest.raises(ValueError, match="bad latency"):
        Latency.parse("gamma:1")


def test_latency_is_deterministic_per_request(stub_server: StubFactory) -> None:
    stub = stub_server(latency="uniform:0.05,0.15", faults=Faults(seed=3))
    keys = [f"k{i}".encode() for i in range(50)]
    delays = [stub.delay(key, 0) for key in keys]
    assert delays == [stub.delay(key, 0) for key in keys] and len(set(delays)) == 50
    assert all(0.05 <= d <= 0.15 for d in delays)
    start = time.monotonic()
    completion(stub, chat_body("x"))
    print(f"one request at latency uniform:0.05,0.15 took {time.monotonic() - start:.3f} s")


def test_jsonl_log_file(stub_server: StubFactory, tmp_path: Path) -> None:
    path = tmp_path / "requests.jsonl"
    stub = stub_server(log_path=path, faults=Faults(error_500=0.5, seed=2))
    for i in range(6):
        post(f"{stub.base_url}/chat/completions", chat_body(f"Leo: {i}"))
    stub.stop()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["outcome"] for line in lines] == [r.outcome for r in stub.chat_records()]
    assert {line["outcome"] for line in lines} == {"ok", "error_500"}
    assert all(line["messages"][-1]["content"] == f"Leo: {i}" for i, line in enumerate(lines))


def test_clear_resets_log_and_attempts(stub: StubServer) -> None:
    completion(stub, chat_body("x"))
    completion(stub, chat_body("x"))
    assert [r.attempt for r in stub.chat_records()] == [0, 1]
    stub.clear()
    completion(stub, chat_body("x"))
    assert [r.attempt for r in stub.chat_records()] == [0]


def test_command_line(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentsense.standin.stub",
            "--port",
            "0",
            "--fail-500",
            "1",
            "--log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        assert post(f"{base_url}/chat/completions", chat_body("x"))[0] == 500
        process.terminate()
        _, err = process.communicate(timeout=10)
    finally:
        process.kill()
    assert process.returncode == 0
    assert "1 chat requests: error_500=1" in err
    assert json.loads(log.read_text())["outcome"] == "error_500"


def test_command_line_rejects_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m agentsense.standin.stub --latency soon`, its main() in-process: a usage error."""
    from agentsense.standin.stub.__main__ import main

    with pytest.raises(SystemExit) as exited:
        main(["--latency", "soon"])
    assert exited.value.code == 2 and "--latency" in capsys.readouterr().err
