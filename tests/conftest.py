"""Shared test set-up: keep every file Inspect writes inside pytest's temporary folders.

This module runs once in each process (each xdist worker), so every worker has its own sandbox.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest_plugins = [
    "pytester",
    "shared_builds",
    "agentsense.standin.stub.pytest_plugin",
    "agentsense_logs",
]

# pip keeps the cache of the shell that started the tests (the wheel test installs from it).
_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
os.environ.setdefault("PIP_CACHE_DIR", str(_CACHE / "pip"))
# Set before Inspect is imported anywhere, so its module-level paths land in the sandbox too; one
# sandbox per process, so xdist workers share no cache, data or log folder.
_SANDBOX = Path(tempfile.mkdtemp(prefix="agentsense-tests-"))
# Removed when the process ends (its caches and logs reach 0.5 GB a run); pytest keeps each
# test's tmp_path, where the files a failure is read from are.
atexit.register(shutil.rmtree, _SANDBOX, ignore_errors=True)
for _name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
    os.environ[_name] = str(_SANDBOX / _name.lower())
os.environ["INSPECT_CACHE_DIR"] = str(_SANDBOX / "inspect-cache")
os.environ["AGENTSENSE_CACHE_DIR"] = str(_SANDBOX / "agentsense-cache")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("INSPECT_LOG_DIR", str(_SANDBOX / "logs"))
if os.environ.get("PYTEST_XDIST_WORKER"):  # a worker inherits the controller's: one folder each
    os.environ["INSPECT_LOG_DIR"] = str(
        Path(os.environ["INSPECT_LOG_DIR"]) / "worker-logs" / os.environ["PYTEST_XDIST_WORKER"]
    )


@pytest.fixture
def log_dir(tmp_path: Path) -> Iterator[Path]:
    """A fresh log folder for one test."""
    path = tmp_path / "logs"
    path.mkdir()
    yield path


# The longest modules (minutes of CPU each: a real model, a wheel install, mypy, fault injection,
# the analysis page's runs) start first, so that no worker begins one when the rest is done.
LONGEST_FIRST = (
    "tests/test_smollm.py",
    "tests/test_wheel.py",
    "tests/test_types.py",
    "tests/test_reliability.py",
    "tests/test_analysis_docs.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in LONGEST_FIRST)  # stable
    # tests/test_slurm.py starts a Slurm cluster as root: only when `-m` names it (`-m slurm`).
    if "slurm" not in (config.option.markexpr or ""):
        left_out = [item for item in items if item.get_closest_marker("slurm")]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if not item.get_closest_marker("slurm")]
