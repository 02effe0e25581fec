"""The core and its extras (issue 52): the core depends on nothing Inspect does not bring; each
extra's modules are what pyproject.toml lists for it; a command or task whose extra is missing
stops first, with one line naming it and the install that fixes it. tests/test_wheel.py does
the same in a fresh venv with the core alone.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest

from agentsense import cli, tasks
from agentsense.engine import extras
from agentsense.engine.extras import EXTRAS, MissingExtra

ROOT = Path(__file__).parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def name_of(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]).lower()


def test_the_core_depends_on_inspect_openai_and_what_inspect_brings() -> None:
    inspects = {name_of(r) for r in importlib.metadata.requires("inspect-ai") or []}
    core = [name_of(r) for r in PROJECT["dependencies"]]
    assert core[:2] == ["inspect-ai", "openai"]
    assert sorted(set(core[2:]) - inspects) == []


def test_each_extra_checks_modules_its_own_distributions_provide() -> None:
    provided = importlib.metadata.packages_distributions()
    for extra, modules in EXTRAS.items():
        listed = {name_of(r) for r in PROJECT["optional-dependencies"][extra]}
        for module in modules:
            assert {name_of(d) for d in provided[module]} & listed, (extra, module)
    # `all` is every extra but vllm (a GPU server)
    everything = set(PROJECT["optional-dependencies"]) - {"all", "dev", "vllm"}
    (line,) = PROJECT["optional-dependencies"]["all"]
    assert set(line.partition("[")[2].rstrip("]").split(",")) == everything


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every extra as if one of its modules were not installed."""
    for extra in EXTRAS:
        monkeypatch.setitem(extras.EXTRAS, extra, (*EXTRAS[extra], "agentsense_no_such_module"))


COMMANDS = {
    "report": ["report", "logs", "--out", "report"],
    "compare": ["compare", "base.eval", "new.eval", "--csv", "out.csv"],
    "labels": ["labels", "labelling.eval", "--out", "labels.json"],
    "annotate": ["annotate", "logs", "--out", "sheet.csv"],
    "stats": ["stats", "demo", "--out", "stats"],
}


def test_every_command_with_an_extra_is_tried() -> None:
    assert sorted(COMMANDS) == sorted(cli.EXTRA_OF)


@pytest.mark.usefixtures("without")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_without_its_extra_stops_with_one_line_and_writes_nothing(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(COMMANDS[command]) == cli.EXIT_ERROR
    out, err = capsys.readouterr()
    extra = cli.EXTRA_OF[command]
    assert out == "" and err == (
        f"agentsense {command}: error: this command needs the {extra} extra: "
        f"pip install 'agentsense[{extra}]'\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.usefixtures("without")
def test_gca_without_its_extra_stops_before_it_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    def entry(row: tasks.TaskRow) -> None:
        raise AssertionError(f"{row.name} was built")  # the dataset loads in the entry

    monkeypatch.setattr(tasks, "entry", entry)
    with pytest.raises(MissingExtra) as raised:
        tasks.gca(dataset="demo")
    assert str(raised.value) == "agentsense/gca needs the gca extra: pip install 'agentsense[gca]'"
    # Inspect prints the message as Rich markup: escaped, so `[gca]` is printed, not eaten
    assert (
        raised.value.message
        == r"agentsense/gca needs the gca extra: pip install 'agentsense\[gca]'"
    )
    from agentsense.coser.scorer import critics_scorer  # as `inspect score --scorer` makes it

    with pytest.raises(MissingExtra, match="agentsense/gca scorer"):
        critics_scorer()


def test_with_the_extras_installed_nothing_is_missing() -> None:
    assert {extra: extras.missing(extra) for extra in EXTRAS} == {e: [] for e in EXTRAS}
