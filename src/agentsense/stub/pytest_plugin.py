"""Pytest fixtures for the stub server; enable with `pytest_plugins = ["agentsense.stub.pytest_plugin"]`.

- `stub_server(**options) -> StubServer`: a factory; each call starts a server (options as
  `StubServer`), all are stopped at teardown.
- `stub`: one running server with default options (rule `auto`, no latency, no faults).
- `inspect_cli`: an `InspectCLI` sandboxed in the test's tmp folder (`.run`, `.start`, `.log_dir`).
- `fresh_vllm_servers`: forget Inspect's per-model-name vLLM endpoints, for in-process runs
  that reuse a model name with a new stub port.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .harness import InspectCLI
from .server import StubServer

StubFactory = Callable[..., StubServer]


@pytest.fixture
def stub_server() -> Iterator[StubFactory]:
    servers: list[StubServer] = []

    def start(**options: Any) -> StubServer:
        server = StubServer(**options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def stub(stub_server: StubFactory) -> StubServer:
    return stub_server()


@pytest.fixture
def inspect_cli(tmp_path: Path) -> InspectCLI:
    return InspectCLI(tmp_path / "cli")


def reset_vllm_servers() -> None:
    """Inspect keeps one endpoint per vLLM model name per process (first URL wins); forget them."""
    from inspect_ai.model._providers._vllm_lora import _vllm_servers

    _vllm_servers.clear()


@pytest.fixture
def fresh_vllm_servers() -> Iterator[None]:
    reset_vllm_servers()
    yield
    reset_vllm_servers()
