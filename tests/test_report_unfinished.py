"""An unfinished run reads as unfinished: `agentsense report` compares each log's status and
scored samples with its plan (the sample ids it was to run, times its epochs), puts a banner at
the top of report.md and of the console, and labels every table row the run feeds with how far
it got; `compare` refuses the same runs by the same rule.

The logs are made as Inspect makes them: a cancelled run (Ctrl-C) keeps its finished samples
under status `cancelled`; a run whose model fails on one scene stops with status `error`
(`fail_on_error`, Inspect's default); a run with `--no-fail-on-error` finishes with status
`success` and the failed sample's error; a `--sample-id` run plans only its samples."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelAPI, modelapi

from agentsense.cli import main
from agentsense.standin.provider import StandInAPI
from agentsense_logs import AGENT, SCENES, kind_task

# A character of scene 302, the last of SCENES: the failing model fails on that scene only.
FAILING_SCENE_CHARACTER = "GeorgeLambert"


class FailsOnOneScene(StandInAPI):
    """The stand-in agent, except that its provider fails on one scene (as an outage would)."""

    async def generate(self, input: Any, tools: Any, tool_choice: Any, config: Any) -> Any:
        if any(FAILING_SCENE_CHARACTER in message.text for message in input):
            raise RuntimeError("provider unavailable")
        return await super().generate(input, tools, tool_choice, config)


@modelapi(name="fails_on_one_scene")
def fails_on_one_scene() -> type[ModelAPI]:
    return FailsOnOneScene


FAILING_AGENT = AGENT.replace("standin/", "fails_on_one_scene/")


def report(logs: list[Path], out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """Run `agentsense report` in-process: (console output with its lines unwrapped, report.md).
    The UNFINISHED lines fit 80 columns. What was printed before (Inspect's banner, when a
    fixture's eval was the process's first) is not the report's."""
    capsys.readouterr()
    assert main(["report", *map(str, logs), "--out", str(out), "--no-figures"]) == 0
    printed = capsys.readouterr().out
    banner = printed.split("Run: ")[0].splitlines()
    assert all(len(line) <= 80 for line in banner)
    return unwrapped(printed), (out / "report.md").read_text(encoding="utf-8")


def unwrapped(printed: str) -> str:
    """Console output as one line per message (continuation lines are indented)."""
    return printed.replace("\n  ", " ")


def cancelled_copy(path: Path, out: Path, keep: int) -> Path:
    """The log as Inspect leaves it on Ctrl-C: status `cancelled`, the samples done so far."""
    log = read_eval_log(str(path))
    log.status = "cancelled"
    log.samples = (log.samples or [])[:keep]
    write_eval_log(log, str(out))
    return out


def table_rows(text: str, name: str) -> list[str]:
    """The Markdown table rows of report.md that name `name`."""
    return [line for line in text.splitlines() if line.startswith("|") and name in line]


def test_a_cancelled_run_says_so_in_the_banner_and_every_row(
    kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cancelled = cancelled_copy(kind_logs["goal"], tmp_path / "cancelled.eval", keep=1)
    printed, text = report([cancelled], tmp_path / "out", capsys)
    shortfall = f"cancelled: 1 of {len(SCENES)} scenes"
    # The console's first line, and report.md's first block after the title.
    assert printed.startswith("UNFINISHED: goal ") and shortfall in printed.split("Run:")[0]
    assert "inspect eval-retry cancelled.eval" in printed
    banner = text.split("\n\n")[1]
    assert banner.startswith("> **Unfinished runs") and shortfall in banner
    rows = table_rows(text, AGENT)
    assert rows and all(shortfall in row for row in rows), rows
    with open(tmp_path / "out" / "table1.csv", encoding="utf-8") as file:
        (row,) = csv.DictReader(file)
    assert shortfall in row["run"]


def test_a_finished_subset_run_and_a_finished_row_beside_an_unfinished_one(
    kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The goal log ran 4 of the demo's 24 scenes by --sample-id: its plan, finished.
    printed, text = report([kind_logs["goal"]], tmp_path / "finished", capsys)
    assert "UNFINISHED" not in printed and "Unfinished" not in text and "scenes]" not in text
    # A finished goal run and a cancelled full run of the same model: two rows, one labelled.
    cancelled = cancelled_copy(kind_logs["full"], tmp_path / "full-cancelled.eval", keep=2)
    printed, text = report([kind_logs["goal"], cancelled], tmp_path / "mixed", capsys)
    assert printed.count("UNFINISHED: ") == 1 and "UNFINISHED: full " in printed
    with open(tmp_path / "mixed" / "table1.csv", encoding="utf-8") as file:
        runs = sorted(row["run"] for row in csv.DictReader(file))
    assert runs == [AGENT, f"{AGENT} [full cancelled: 2 of {len(SCENES)} scenes]"]


def test_a_run_stopped_by_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task, roles = kind_task("goal")
    (log,) = eval(
        task,
        model=FAILING_AGENT,
        model_roles=roles,
        sample_id=SCENES,
        max_samples=1,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "error"
    scored = [s for s in log.samples or [] if s.scores and not s.error]
    assert 0 < len(scored) < len(SCENES)
    printed, text = report([Path(log.location)], tmp_path / "out", capsys)
    shortfall = f"stopped by an error: {len(scored)} of {len(SCENES)} scenes"
    assert shortfall in printed.split("Run:")[0] and shortfall in text.split("\n\n")[1]
    rows = table_rows(text, FAILING_AGENT)
    assert rows and all(shortfall in row for row in rows)


def test_a_finished_run_with_a_failed_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task, roles = kind_task("goal")
    (log,) = eval(
        task,
        model=FAILING_AGENT,
        model_roles=roles,
        sample_id=SCENES,
        fail_on_error=False,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success"
    printed, text = report([Path(log.location)], tmp_path / "out", capsys)
    shortfall = f"samples left out by errors: {len(SCENES) - 1} of {len(SCENES)} scenes"
    assert shortfall in printed.split("Run:")[0] and "rerun the samples that failed" in printed
    rows = table_rows(text, FAILING_AGENT)
    assert rows and all(shortfall in row for row in rows)


def test_compare_refuses_an_unfinished_run_by_the_same_rule(
    kind_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cancelled = cancelled_copy(kind_logs["goal"], tmp_path / "cancelled.eval", keep=4)
    # Every planned sample is there, but the run was cancelled: not a finished run.
    assert main(["compare", str(kind_logs["goal"]), str(cancelled)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"NEW: cancelled.eval (cancelled: {len(SCENES)} of {len(SCENES)} scenes)" in err


@pytest.mark.parametrize(("kind", "unit"), [("gca", "scenes"), ("judge_check", "items")])
def test_a_cancelled_log_of_the_other_tasks(
    kind: str,
    unit: str,
    other_logs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    planned = len(read_eval_log(str(other_logs[kind]), header_only=True).eval.dataset.sample_ids)
    cancelled = cancelled_copy(other_logs[kind], tmp_path / f"{kind}-cancelled.eval", keep=1)
    printed, text = report([cancelled], tmp_path / "out", capsys)
    shortfall = f"{kind} cancelled: 1 of {planned} {unit}"
    assert printed.startswith(f"UNFINISHED: {kind} ") and shortfall.split(" ", 1)[1] in printed
    assert f"inspect eval-retry {cancelled.name}" in printed
    assert shortfall.split(" ", 1)[1] in text.split("\n\n")[1]
    rows = table_rows(text, cancelled.name if kind == "judge_check" else "standin/gca/actor")
    assert rows and all(f"[{shortfall}]" in row for row in rows), rows


def test_the_run_line_counts_in_words() -> None:
    from agentsense.report.sections.runs import run_line

    run = {"task": "goal", "kind": "goal", "model": "m", "scoring": "goal_completion"}
    assert (
        run_line({**run, "logs": 1, "scenes": 1})
        == "goal m: 1 log, 1 scene, scoring goal_completion"
    )
    assert run_line({**run, "logs": 2, "scenes": 24}) == (
        "goal m: 2 logs, 24 scenes, scoring goal_completion"
    )
