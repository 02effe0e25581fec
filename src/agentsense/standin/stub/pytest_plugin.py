"""Pytest fixtures for the stub server
(`pytest_plugins = ["agentsense.standin.stub.pytest_plugin"]`).

- `stub_server(**options) -> StubServer`: a factory; each call starts a server (options as
  `StubServer`), all are stopped at teardown.
- `stub`: one running server with default options (rule `auto`, no latency, no faults).
- `inspect_cli`: an `InspectCLI` sandboxed in the test's tmp folder (`.run`, `.start`, `.log_dir`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentsense.standin.stub.harness import InspectCLI
from agentsense.standin.stub.server import StubServer

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
