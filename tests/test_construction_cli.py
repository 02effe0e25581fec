"""Scenario construction through the CLI: the README's commands (`inspect eval` for real,
`agentsense scenarios` through `cli.main`), bad input before any model call (`inspect_ai.eval`),
and resuming a killed build with `inspect eval-retry` without paying twice.

The resume test builds through Inspect's `vllm/` provider against the project's stub server,
which records every request that reached the "model".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from agentsense.cli import main
from agentsense.construction.export import export_scenarios
from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.validation import read_scenarios
from agentsense.standin.stub import StubServer
from agentsense.standin.stub.harness import InspectCLI, kill_after_answers, log_figures
from agentsense.tasks import construct

pytestmark = pytest.mark.slow


def test_readme_build_export_and_evaluate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = InspectCLI(tmp_path)
    built = cli.run(["eval", "agentsense/construct", "--model", "standin/persona/builder"])
    assert built.returncode == 0, built.output[-3000:]
    monkeypatch.chdir(tmp_path)  # the README's relative path
    assert main(["scenarios", str(cli.log_dir), "--out", "scenarios.jsonl"]) == 0
    exported = capsys.readouterr().out
    assert "4 templates, 20 scenarios, 5 MCQs" in exported
    assert "Wrote 20 scenarios to scenarios.jsonl (validated)." in exported
    assert len(read_scenarios(tmp_path / "scenarios.jsonl")) == 20
    run = cli.run(
        [
            "eval",
            "agentsense/full",
            "-T",
            "dataset=scenarios.jsonl",
            "--model",
            "standin/persona/agent",
            "--limit",
            "2",
            "--log-dir",
            str(tmp_path / "full"),
        ]
    )
    assert run.returncode == 0, run.output[-3000:]
    (log,) = sorted((tmp_path / "full").glob("*.eval"))
    figures = log_figures(log)
    assert figures.status == "success" and figures.samples == 2


def test_bad_script_is_one_clear_line_before_any_model_call(
    tmp_path: Path, log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`inspect_ai.eval` (what `inspect eval` calls; test_bad_data shows how the CLI prints a
    refusal): a PrerequisiteError, no request, no log."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("Shopping list: eggs, milk.\n", encoding="utf-8")
    with StubServer() as stub:
        monkeypatch.setenv("VLLM_BASE_URL", stub.base_url)
        with pytest.raises(PrerequisiteError) as raised:
            inspect_eval(
                "agentsense/construct",
                task_args={"scripts": "notes.txt"},
                model="vllm/b",
                log_dir=str(log_dir),
                display="none",
            )
        requests = stub.chat_records()
    assert requests == [] and list(log_dir.iterdir()) == []
    assert "notes.txt: no character cue followed by dialogue; expected a screenplay" in str(
        raised.value.message
    )


def test_export_of_a_log_that_is_not_a_build_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scenarios", str(tmp_path), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "no built scenarios" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()
    assert main(["scenarios", str(tmp_path)]) == 2
    assert "give --out FILE.jsonl and/or --review FILE.csv" in capsys.readouterr().err


def test_killed_build_resumes_with_eval_retry_without_paying_twice(tmp_path: Path) -> None:
    # The same stand-in rule in-process: the reference records and the number of calls.
    (clean,) = inspect_eval(
        construct(),
        model="standin/persona/builder",
        log_dir=str(tmp_path / "clean"),
        display="none",
    )
    assert clean.status == "success"
    reference = export_scenarios([str(tmp_path / "clean")], tmp_path / "clean.jsonl")
    calls = reference.builds[0].counts()["calls"]
    cli = InspectCLI(tmp_path / "resume")
    args = ["eval", "agentsense/construct", "--model", "vllm/builder", "--cache"]
    with StubServer(latency=0.05) as stub:
        env = {"VLLM_BASE_URL": stub.base_url}
        cut = kill_after_answers(cli, args, stub, env, answers=40)
        before, in_flight = cut.requests, cut.in_flight
        (killed,) = cli.eval_logs()
        retry = cli.run(["eval-retry", str(killed), "--display", "none"], env=env)
        assert retry.returncode == 0, retry.output[-3000:]
        after = len(stub.chat_records())
        paid_twice = stub.paid_twice()
    print(
        f"\nconstruct resume: a build makes {calls} calls; killed after {before} requests, "
        f"eval-retry made {after - before}; paid twice {paid_twice} (in flight: {in_flight})"
    )
    assert log_figures(killed).status == "started"
    final = log_figures(cli.eval_logs()[-1])
    assert final.status == "success" and final.cache_reads > 0
    assert paid_twice <= in_flight and after - before < calls
    resumed = export_scenarios([str(cli.log_dir)], tmp_path / "resumed.jsonl")
    assert resumed.notes == []  # the killed log's script is finished by the retry
    assert (tmp_path / "resumed.jsonl").read_text() == (tmp_path / "clean.jsonl").read_text()
