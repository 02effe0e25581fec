"""Official mode warns when a provider merges consecutive same-role messages (request format)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.event import InfoEvent
from inspect_ai.log import resolve_sample_attachments
from inspect_ai.model import get_model

from agentsense.engine.console import NAME, console_logger
from agentsense.engine.request_format import (
    MERGING_PROVIDERS,
    merging_models,
    merging_warning,
    task_warning,
)
from agentsense.engine.roles import TaskRoles
from agentsense.standin.stub.server import StubServer
from agentsense.tasks import TASK_ROLES

LOCAL = "http://127.0.0.1:9/v1"  # never contacted: building a model makes no request


@pytest.mark.parametrize(
    ("model", "merges"),
    [
        ("vllm/m", True),
        ("sglang/m", True),
        ("openai-api/vllm/m", False),
        ("standin/persona/a", False),
    ],
)
def test_the_merging_providers_are_those_that_collapse_user_messages(
    model: str, merges: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VLLM_API_KEY", "local")
    built = get_model(model, base_url=LOCAL, memoize=False)
    assert built.api.collapse_user_messages() is merges
    assert (model.split("/")[0] in MERGING_PROVIDERS) is merges


def test_every_merging_model_of_a_run_is_named() -> None:
    roles = {"judge": ["openai-api/vllm/j1", "sglang/j2"], "sender": "hf/local"}
    assert merging_models("vllm/agent", roles) == [
        ("--model", "vllm/agent"),
        ("role judge", "sglang/j2"),
        ("role sender", "hf/local"),
    ]
    assert merging_models("openai-api/vllm/agent", {"judge": "openai-api/vllm/j"}) == []
    assert merging_models("hf/org/model", None) == [("--model", "hf/org/model")]


@pytest.fixture
def console(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """caplog on the console warnings' logger (it does not propagate to the root logger)."""
    console_logger().addHandler(caplog.handler)
    with caplog.at_level(logging.WARNING, logger=NAME):
        yield caplog
    console_logger().removeHandler(caplog.handler)


def spec(
    task: str = "agentsense/goal",
    mode: str | None = "official",
    model: str = "vllm/m",
    roles: dict[str, Any] | None = None,
) -> Any:
    """The fields of an eval spec that `task_warning` reads."""
    metadata = {"protocol": {"mode": mode}} if mode else None
    return SimpleNamespace(task=task, metadata=metadata, model=model, model_roles=roles)


def test_the_warning_is_for_agentsense_tasks_in_official_mode_with_a_merging_model() -> None:
    assert task_warning(spec()) == merging_warning([("--model", "vllm/m")])
    assert task_warning(spec(mode="corrected")) is None
    assert task_warning(spec(mode=None)) is None
    assert task_warning(spec(task="other/goal")) is None
    assert task_warning(spec(model="openai-api/vllm/m")) is None
    judge = SimpleNamespace(model="hf/j")
    warning = task_warning(spec(model="openai-api/vllm/m", roles={"judge": judge}))
    assert warning == merging_warning([("role judge", "hf/j")])


def test_the_warning_names_only_the_models_of_the_roles_the_task_uses() -> None:
    """In an eval-set, a peer benchmark's `grader` (let through with AGENTSENSE_OTHER_ROLES) and
    another AgentSense task's `labeller` are bound to goal too: goal never calls them."""
    judge, grader, labeller = (SimpleNamespace(model=f"vllm/{n}") for n in ("j", "g", "l"))
    roles = {"judge": judge, "grader": grader, "labeller": labeller}
    warning = task_warning(spec(model="openai-api/vllm/m", roles=roles), TASK_ROLES)
    assert warning == merging_warning([("role judge", "vllm/j")])
    others = {"grader": grader, "labeller": labeller}
    assert task_warning(spec(model="openai-api/vllm/m", roles=others), TASK_ROLES) is None


def test_the_warning_reads_the_roles_from_the_table_it_is_given() -> None:
    """A table in which goal uses the peer's `grader` and not `judge`: the warning follows it."""
    judge, grader = (SimpleNamespace(model=f"vllm/{n}") for n in ("j", "g"))
    table = {"goal": TaskRoles(fallback=("grader",))}
    roles = {"judge": judge, "grader": grader}
    warning = task_warning(spec(model="openai-api/vllm/m", roles=roles), table)
    assert warning == merging_warning([("role grader", "vllm/g")])


def run_goal(
    stub: StubServer,
    log_dir: Path,
    model: str,
    protocol: str,
    model_roles: dict[str, str] | None = None,
) -> list[str]:
    """The info messages of the run's samples that speak of merging."""
    (log,) = eval(
        "agentsense/goal",
        task_args={"dataset": "demo", "max_messages": 3, "protocol": protocol},
        sample_id=[101, 102],
        model=model,
        model_roles=model_roles,
        model_base_url=stub.base_url,
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success" and log.samples
    return [
        str(event.data)
        for sample in map(resolve_sample_attachments, log.samples)
        for event in sample.events
        if isinstance(event, InfoEvent) and "merge(s)" in str(event.data)
    ]


def test_official_mode_on_vllm_warns_once_with_the_parity_path(
    stub: StubServer, log_dir: Path, console: pytest.LogCaptureFixture
) -> None:
    infos = run_goal(stub, log_dir, f"vllm/rf-{stub.port}", "official")
    warnings = [r.getMessage() for r in console.records if "merge(s)" in r.getMessage()]
    assert len(warnings) == 1
    assert f"vllm/rf-{stub.port} (--model)" in warnings[0]
    assert "--model openai-api/vllm/<model>" in warnings[0] and "VLLM_BASE_URL" in warnings[0]
    assert infos == warnings * 2  # and in each sample's transcript


@pytest.mark.parametrize("protocol", ["official", "corrected"])
def test_no_warning_without_merging_or_outside_official_mode(
    stub: StubServer,
    log_dir: Path,
    console: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    protocol: str,
) -> None:
    monkeypatch.setenv("VLLM_API_KEY", "local")
    model = "openai-api/vllm/agent" if protocol == "official" else f"vllm/rc-{stub.port}"
    assert run_goal(stub, log_dir, model, protocol) == []
    assert not [r for r in console.records if "merge(s)" in r.getMessage()]


def test_a_peer_benchmarks_role_on_a_merging_provider_is_not_warned_about(
    stub: StubServer,
    log_dir: Path,
    console: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The issue's run: goal on the parity path beside a benchmark whose grader is on `vllm/`;
    the old warning named `vllm/grader (role grader)` as a model of AgentSense's."""
    monkeypatch.setenv("VLLM_API_KEY", "local")
    monkeypatch.setenv("VLLM_BASE_URL", stub.base_url)
    monkeypatch.setenv("AGENTSENSE_OTHER_ROLES", "grader")
    grader = f"vllm/grader-{stub.port}"
    infos = run_goal(stub, log_dir, "openai-api/vllm/agent", "official", {"grader": grader})
    assert infos == []
    assert not [r for r in console.records if "merge(s)" in r.getMessage()]
    called = {record.model for record in stub.chat_records()}
    assert called == {"agent"}  # goal calls only its own models
