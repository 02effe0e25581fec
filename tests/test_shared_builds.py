"""The test infrastructure itself (tests/shared_builds.py): under pytest-xdist, a module's shared
fixture and a run-wide artefact are each built once, a test's changes to os.environ do not reach
the next test, and a test that changes a shared artefact fails the run."""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CONFTEST = f"import sys\nsys.path.insert(0, {str(TESTS)!r})\npytest_plugins = ['shared_builds']\n"

BUILDS = """
import os
from pathlib import Path

import pytest

COUNTS = Path({counts!r})


def record(what):
    with (COUNTS / what).open("a") as out:
        out.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + "\\n")


@pytest.fixture(scope="module")
def built():
    record("module")


@pytest.mark.parametrize("i", range(6))
def test_module_fixture(built, i):
    pass


def make(folder):
    record("shared")
    (folder / "artefact.txt").write_text("built")
    return folder / "artefact.txt"


@pytest.mark.parametrize("i", range(6))
def test_shared_artefact(shared_build, i):
    assert shared_build("artefact", make).read_text() == "built"
    record("used")
"""


def lines(path: Path) -> list[str]:
    return path.read_text().split()


def test_under_xdist_each_shared_thing_is_built_once(pytester: pytest.Pytester) -> None:
    counts = pytester.mkdir("counts")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_builds=BUILDS.format(counts=str(counts)))
    result = pytester.runpytest_subprocess(
        "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=12)
    assert len(lines(counts / "module")) == 1  # the module's tests ran on one worker
    assert len(lines(counts / "shared")) == 1
    assert len(lines(counts / "used")) == 6
    # Built by one worker, read by both: `--dist load` deals single tests to both workers from
    # the start (loadgroup may hand all six readers to one of them).
    for name in ("module", "shared", "used"):
        (counts / name).unlink()
    result = pytester.runpytest_subprocess("-n", "2", "--dist", "load", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=12)
    assert len(lines(counts / "shared")) == 1
    assert sorted(set(lines(counts / "used"))) == ["gw0", "gw1"]


def test_a_tests_environment_changes_are_undone(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTSENSE_KEPT", "kept")
    monkeypatch.delenv("AGENTSENSE_LEAK", raising=False)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        """
        import os

        def test_changes():
            os.environ["AGENTSENSE_LEAK"] = "1"
            os.environ["AGENTSENSE_KEPT"] = "changed"

        def test_removes():
            del os.environ["AGENTSENSE_KEPT"]

        def test_sees_the_environment_as_it_was():
            assert "AGENTSENSE_LEAK" not in os.environ
            assert os.environ["AGENTSENSE_KEPT"] == "kept"
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_a_test_that_changes_a_shared_artefact_fails_the_run(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        """
        def make(folder):
            (folder / "log.eval").write_text("built")
            return folder / "log.eval"

        def test_writes_next_to_it(shared_build):
            (shared_build("logs", make).parent / "report.md").write_text("oops")
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*changed the shared artefacts*logs*copy them before changing"])
