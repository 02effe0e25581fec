"""What `agentsense args` and `compare` print fits 80 columns, every name whole: no line
is longer, each name (argument, metric, column, quoted value) is on one line, and the text read
back without its line breaks is the text the command meant to print."""

from __future__ import annotations

import inspect
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agentsense import tasks
from agentsense.cli import main
from agentsense.report.compare import CompareOptions, compare, comparison_rows

WIDTH = 80


def printed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    out = capsys.readouterr()
    for line in (out.out + out.err).splitlines():
        assert len(line) <= WIDTH, line
    return status, out.out, out.err


def flat(text: str) -> str:
    return " ".join(text.split())


def test_args_of_every_task(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = printed(["args"], capsys)
    assert status == 0
    sections = out.split("\n\n")
    assert len(sections) == len(tasks.__all__)
    for name, section in zip(tasks.__all__, sections, strict=True):
        head, *lines = section.splitlines()
        assert head == f"agentsense/{name} takes (-T name=value):"
        function = getattr(tasks, name)
        for argument in tasks.arguments(name):
            # The name, type and default on one line; the meaning whole below it.
            (line,) = [x for x in lines if re.match(rf"  {argument.name}\s", x)]
            default = repr(inspect.signature(function).parameters[argument.name].default)
            assert line.rstrip().endswith(default)
            assert flat(argument.doc) in flat(section)


def test_compare_rows(kind_logs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    goal = str(kind_logs["goal"])
    status, out, _ = printed(["compare", goal, goal], capsys)
    assert status == 0
    options = CompareOptions()
    head, rows = comparison_rows(compare([goal], [goal], options), options)
    lines = out.splitlines()
    for row in rows:
        assert row[0] in lines  # the metric names its block
        for name, value in zip(head[1:], row[1:], strict=True):
            assert any(f"{name}: {value}" in line for line in lines), (name, value)


def test_a_quoted_name_is_never_split() -> None:
    from agentsense.engine.console import wrapped

    text = "x " * 30 + '"<evaluated model>" and `inspect eval-retry a.eval` end'
    shown = wrapped(text, "Note: ")
    assert all(len(line) <= WIDTH for line in shown.splitlines())
    assert any('"<evaluated model>"' in line for line in shown.splitlines())
    assert any("`inspect eval-retry a.eval`" in line for line in shown.splitlines())


def test_args_into_a_closed_pipe_ends_quietly() -> None:
    """`agentsense args | head -2`: the reader leaves early; no BrokenPipeError traceback."""
    done = subprocess.run(
        f"{shlex.quote(sys.executable)} -m agentsense.cli args | head -2",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert len(done.stdout.splitlines()) == 2
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
