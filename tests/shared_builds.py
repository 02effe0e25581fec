"""Test isolation and sharing under pytest-xdist (a pytest plugin, see conftest.py).

- Every test starts from the same `os.environ`: what a test changes (code run in-process, such as
  `agentsense.cli.main` setting INSPECT_LOG_LEVEL) is undone before the next test of the worker.
- Tests that use a module- or class-scoped fixture are one xdist group per module, so that
  `--dist loadgroup` runs them on one worker and the fixture is built once.
- `shared_build(name, build)`: an artefact built once per test run, whichever worker asks first,
  then shared by all workers, read-only (a test that changes it must copy it first). At the end
  of the session, a test run that changed a shared artefact fails. `shared_build.each(prefix,
  builds)`: a mapping of such artefacts, each built when a test first reads it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from _pytest.nodeid import NodeId
from filelock import FileLock

Build = Callable[[Path], Path]  # writes into an empty folder, returns the artefact's path
Files = dict[str, list[int]]  # relative path -> [size, mtime_ns]


BASELINE = pytest.StashKey[dict[str, str]]()
PYTEST_OWN = "PYTEST_CURRENT_TEST"  # pytest sets and removes it around each test itself


def pytest_sessionstart(session: pytest.Session) -> None:
    """os.environ as the session began: after conftest.py's sandbox and xdist's worker name."""
    session.config.stash[BASELINE] = dict(os.environ)


@pytest.fixture(autouse=True)
def _environment_restored(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test, os.environ as the session began: what a session-scoped fixture set
    (a shared build through `cli.main`) is undone too, not only what the test set."""
    yield
    baseline = request.config.stash[BASELINE]
    for name in set(os.environ) - set(baseline) - {PYTEST_OWN}:
        del os.environ[name]
    for name, value in baseline.items():
        if name != PYTEST_OWN and os.environ.get(name) != value:
            os.environ[name] = value


# --- one worker per module that has a module- or class-scoped fixture -----------------------------


def shared_scope(item: pytest.Item) -> str | None:
    """The module of `item` if it uses a fixture shared within the module or a class, else None."""
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.values() if info is not None else ()
    scopes = {d.scope for defs in definitions for d in defs[-1:]}
    return item.nodeid.split("::")[0] if scopes & {"module", "class", "package"} else None


@pytest.hookimpl(tryfirst=True, specname="pytest_collection_modifyitems")  # before xdist's
def pytest_collection_modifyitems_group_scopes(items: list[pytest.Item]) -> None:
    for item in items:
        scope = shared_scope(item)
        if scope is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(scope))


@pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")  # after xdist's
def pytest_collection_modifyitems_name_groups(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """A worker's test ids end in `@group`, which is how the controller keeps a group on one
    worker. pytest-xdist 3.8 writes the suffix into `_nodeid`, which pytest 9 no longer reads
    (the id is `_id`): without this, `xdist_group` marks are silently ignored."""
    if not config.getoption("loadgroup", False):  # set in xdist workers of --dist loadgroup
        return
    for item in items:
        names = {
            str(m.args[0] if m.args else m.kwargs.get("name", "default"))
            for m in item.iter_markers("xdist_group")
        }
        suffix = f"@{'_'.join(sorted(names))}"
        if names and not item.nodeid.endswith(suffix) and hasattr(item, "_id"):
            item._id = NodeId.parse(item.nodeid + suffix)


# --- artefacts built once per test run ------------------------------------------------------------


def run_folder(config: pytest.Config, factory: pytest.TempPathFactory) -> Path:
    """The folder of this test run that every xdist worker sees (a worker's base temp is in it)."""
    base = factory.getbasetemp()
    return base.parent if hasattr(config, "workerinput") else base


def files_of(folder: Path) -> Files:
    return {
        p.relative_to(folder).as_posix(): [p.stat().st_size, p.stat().st_mtime_ns]
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


class SharedBuilds:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.used: dict[str, Path] = {}  # name -> folder, the ones this worker handed out
        root.mkdir(parents=True, exist_ok=True)

    def __call__(self, name: str, build: Build) -> Path:
        with FileLock(self.root / f"{name}.lock"):
            return self._built(name) or self._build(name, build)

    def each(self, prefix: str, builds: Mapping[str, Build]) -> Mapping[str, Path]:
        """key -> the artefact `prefix-key`, built when a test first asks for it."""
        return LazyBuilds(self, prefix, builds)

    def _marker(self, name: str) -> Path:
        return self.root / f"{name}.json"

    def _built(self, name: str) -> Path | None:
        if not self._marker(name).exists():
            return None
        self.used[name] = self.root / name
        return self.root / name / json.loads(self._marker(name).read_text())["path"]

    def _build(self, name: str, build: Build) -> Path:
        folder = self.root / name
        shutil.rmtree(folder, ignore_errors=True)  # a build that failed half-way
        folder.mkdir()
        path = build(folder)
        record = {"path": path.relative_to(folder).as_posix(), "files": files_of(folder)}
        self._marker(name).write_text(json.dumps(record))
        self.used[name] = folder
        return path

    def changed(self) -> list[str]:
        """The shared artefacts this worker used whose files are not as built."""
        return [
            name
            for name, folder in self.used.items()
            if files_of(folder) != json.loads(self._marker(name).read_text())["files"]
        ]


class LazyBuilds(Mapping[str, Path]):
    def __init__(self, builds: SharedBuilds, prefix: str, makers: Mapping[str, Build]) -> None:
        self.builds, self.prefix, self.makers = builds, prefix, makers
        self.paths: dict[str, Path] = {}

    def __getitem__(self, key: str) -> Path:
        if key not in self.paths:
            self.paths[key] = self.builds(f"{self.prefix}-{key}", self.makers[key])
        return self.paths[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.makers)

    def __len__(self) -> int:
        return len(self.makers)


@pytest.fixture(scope="session")
def shared_build(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedBuilds]:
    builds = SharedBuilds(run_folder(request.config, tmp_path_factory) / "shared")
    yield builds
    changed = builds.changed()
    assert not changed, f"tests changed the shared artefacts {changed}: copy them before changing"
