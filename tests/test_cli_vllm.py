"""The real `inspect eval` CLI against the stub through the `vllm/` (and `openai-api/`) providers.

No vllm package and no GPU: `VLLM_BASE_URL` (or a role's `base_url`) points Inspect's vLLM provider
at the stub, which then sees exactly what a served model would.
"""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest

from agentsense.sense.prompts import JUDGE_SYSTEM_PROMPT
from agentsense.standin.stub import StubServer
from agentsense.standin.stub.harness import InspectCLI, sample_scores, score_differences
from agentsense.standin.stub.pytest_plugin import StubFactory

pytestmark = pytest.mark.slow

SAMPLES = "101,301"  # a 2-character and a 3-character scene, both with MCQs
JUDGES = "judge=vllm/judge-a,vllm/judge-b,vllm/judge-c"


def full_demo(*extra: str, samples: str = SAMPLES) -> list[str]:
    return [
        "eval",
        "agentsense/full",
        "-T",
        "dataset=demo",
        "--sample-id",
        samples,
        "--display",
        "none",
        *extra,
    ]


def run_ok(cli: InspectCLI, args: list[str], env: dict[str, str]) -> None:
    result = cli.run(args, env=env)
    print(f"{' '.join(args[:2])} ... took {result.seconds:.1f} s")
    assert result.returncode == 0, result.output[-3000:]


def test_vllm_provider_with_judge_panel(stub: StubServer, inspect_cli: InspectCLI) -> None:
    run_ok(
        inspect_cli,
        full_demo("--model", "vllm/agent", "--model-role", JUDGES),
        {"VLLM_BASE_URL": stub.base_url},
    )

    chats = stub.chat_records()
    by_model = Counter(r.model for r in chats)
    print("requests per model:", dict(by_model))
    assert set(by_model) == {"agent", "judge-a", "judge-b", "judge-c"}
    assert by_model["judge-a"] == by_model["judge-b"] == by_model["judge-c"] > 0
    assert all(r.outcome == "ok" for r in chats)
    assert any(r.path == "/v1/models" for r in stub.records)  # the context-window probe
    judges = [r for r in chats if r.model != "agent"]
    assert all(r.system == JUDGE_SYSTEM_PROMPT and r.temperature == 0 for r in judges)
    agent = [r for r in chats if r.model == "agent"]
    assert all(r.system.startswith("You are ") and r.temperature == 1 for r in agent)
    assert {r.max_tokens for r in chats} == {128}
    # Every prompt ends with a user turn, so vLLM is never asked to continue an assistant message.
    assert all(
        r.messages[-1]["role"] == "user" and "continue_final_message" not in r.params for r in chats
    )
    # The vLLM provider merges consecutive user messages ("\n"-joined): none reach the server.
    for record in chats:
        roles = [m["role"] for m in record.messages]
        assert all(not (a == b == "user") for a, b in itertools.pairwise(roles))
    (log,) = inspect_cli.eval_logs()
    scores = sample_scores(log)
    assert sorted(scores) == ["101", "301"]
    assert {"self", "judge_3", "mcq_accuracy"} <= set(scores["101"]["goal_and_mcq"])


def test_per_role_base_urls(stub_server: StubFactory, inspect_cli: InspectCLI) -> None:
    agents, judges = stub_server(), stub_server()
    role = (
        "judge=["
        + ", ".join(
            f'{{model: vllm/{name}, model_args: {{base_url: "{judges.base_url}"}}}}'
            for name in ("judge-a", "judge-b", "judge-c")
        )
        + "]"
    )
    run_ok(
        inspect_cli,
        full_demo("--model", "vllm/agent", "--model-role", role),
        {"VLLM_BASE_URL": agents.base_url},
    )
    agent_models = Counter(r.model for r in agents.chat_records())
    judge_models = Counter(r.model for r in judges.chat_records())
    print("server A:", dict(agent_models), "server B:", dict(judge_models))
    assert set(agent_models) == {"agent"}
    assert set(judge_models) == {"judge-a", "judge-b", "judge-c"}


def test_same_model_name_shares_the_first_url(
    stub_server: StubFactory, inspect_cli: InspectCLI
) -> None:
    """Inspect 0.3.285 keeps one endpoint per vLLM model name: give each endpoint its own names."""
    first, second = stub_server(), stub_server()
    role = f'judge={{model: vllm/same, model_args: {{base_url: "{second.base_url}"}}}}'
    run_ok(
        inspect_cli,
        full_demo("--model", "vllm/same", "--model-role", role, samples="101"),
        {"VLLM_BASE_URL": first.base_url},
    )
    print(
        "first URL:", len(first.chat_records()), "requests; second URL:", len(second.chat_records())
    )
    assert len(first.chat_records()) > 0 and second.chat_records() == []


def test_http_stub_matches_the_in_process_stand_in(
    stub: StubServer, inspect_cli: InspectCLI
) -> None:
    """Through `openai-api/` (no message merging) the stub scores exactly like `standin/` (run
    in-process: the same task, scenes and arguments)."""
    from inspect_ai import eval as inspect_eval

    (standin,) = inspect_eval(
        "agentsense/full",
        task_args={"dataset": "demo"},
        sample_id=[int(i) for i in SAMPLES.split(",")],
        model="standin/persona/agent",
        model_roles={"judge": [f"standin/persona/judge-{j}" for j in "abc"]},
        log_dir=str(inspect_cli.log_dir),
        display="none",
    )
    assert standin.status == "success", standin.error
    http_judges = "judge=" + ",".join(f"openai-api/stub/judge-{j}" for j in "abc")
    env = {"STUB_BASE_URL": stub.base_url, "STUB_API_KEY": "local"}
    run_ok(
        inspect_cli, full_demo("--model", "openai-api/stub/agent", "--model-role", http_judges), env
    )
    in_process, over_http = (sample_scores(log) for log in inspect_cli.eval_logs())
    assert len(stub.chat_records()) > 50
    assert score_differences(in_process, over_http) == []


def test_in_process_runs_name_each_endpoint(stub_server: StubFactory, log_dir: Path) -> None:
    """In one process the vLLM endpoint sticks to a model name: a new server needs a new name."""
    from inspect_ai import eval as inspect_eval

    for i in range(2):
        stub = stub_server()
        (log,) = inspect_eval(
            "agentsense/goal",
            task_args={"dataset": "demo", "max_messages": 3},
            sample_id=101,
            model=f"vllm/agent-{stub.port}-{i}",
            model_base_url=stub.base_url,
            log_dir=str(log_dir),
            display="none",
        )
        assert log.status == "success" and len(stub.chat_records()) > 0
