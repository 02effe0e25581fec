"""One clear error for each dataset a newcomer gets wrong, before any model is called: the
argument or record named with what is wrong and the fix (`agentsense report --out` at a file:
tests/test_report_out_folder.py).

- `-T dataset=` a JSON array (pretty-printed as `json.dump(rows, f, indent=2)` writes it, or on
  one line): one problem that says it is an array, that JSON Lines is expected, and how to
  convert it (the printed command is run here and its output loads);
- a CoSER file given to an AgentSense task, an AgentSense file given to `gca`, a file without
  sender/receiver roles given to `pairwise`: the error names the task the file fits.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agentsense.coser.dataset import GCADataError
from agentsense.coser.dataset import demo_path as coser_demo_path
from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.samples import demo_path
from agentsense.sense.dataset.validation import DatasetError, read_scenarios
from agentsense.tasks import gca, goal, info, pairwise


def demo_rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in demo_path().read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("indent", [2, None], ids=["pretty", "one-line"])
def test_a_json_array_dataset(indent: int | None, tmp_path: Path) -> None:
    path = tmp_path / "my scenes.json"
    rows = demo_rows()
    path.write_text(json.dumps(rows, indent=indent), encoding="utf-8")
    with pytest.raises(DatasetError) as raised:
        goal(dataset=str(path))
    (problem,) = raised.value.problems
    message = str(raised.value)
    assert f"one JSON array of {len(rows)} records" in message
    assert "expected JSON Lines, one scenario object per line" in message
    assert "jq -c '.[]'" in message
    # The python conversion the message prints works as printed.
    command = re.search(r"or (python -c .*)$", problem.expected)
    assert command is not None
    argv = shlex.split(command.group(1).split(" > ")[0])
    converted = subprocess.run(
        [sys.executable, *argv[1:]], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    target = tmp_path / "my scenes.jsonl"
    target.write_text(converted.stdout, encoding="utf-8")
    assert len(read_scenarios(target)) == len(rows)
    assert f"> {shlex.quote(str(target))}" in problem.expected


def test_a_coser_file_given_to_an_agentsense_task() -> None:
    with pytest.raises(DatasetError) as raised:
        goal(dataset=str(coser_demo_path()))
    assert len(raised.value.problems) == 1
    assert "CoSER scenes, which fit agentsense/gca" in str(raised.value)


def test_an_agentsense_file_given_to_gca(tmp_path: Path) -> None:
    array = tmp_path / "scenes.json"
    array.write_text(json.dumps(demo_rows(), indent=2), encoding="utf-8")
    for given in (demo_path(), array):
        with pytest.raises(GCADataError) as raised:
            gca(dataset=str(given))
        message = str(raised.value)
        assert message.startswith(f"{given} holds AgentSense scenarios, which fit agentsense/goal")
        assert len(message.splitlines()) == 1


def test_a_file_without_roles_or_mcqs_names_the_tasks_it_fits(tmp_path: Path) -> None:
    rows = [{k: v for k, v in row.items() if k != "roles"} for row in demo_rows()]
    plain = tmp_path / "no-roles.jsonl"
    plain.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(PrerequisiteError) as raised:
        pairwise(dataset=str(plain))
    assert "it needs scenes whose `roles` label characters sender and receiver" in str(raised.value)
    assert "fit agentsense/goal, info and full" in str(raised.value)
    for row in rows:
        for character in row["characters"]:  # type: ignore[attr-defined]
            character["info_reason_questions"] = []
    plain.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(PrerequisiteError) as raised:
        info(dataset=str(plain))
    assert "it needs scenes with MCQs" in str(raised.value) and "fit agentsense/goal" in str(
        raised.value
    )
