"""Arguments Inspect would let through are refused before any model call: an unknown `-T` name
(with the closest valid one), an empty entry of a role list, an unknown stand-in rule; and the
console says once when characters judge themselves."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import agentsense
import agentsense.tasks
from agentsense.cli import main
from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.strict import declared_names, empty_role_entries, unknown_arguments_message
from agentsense.sense.tasks import judges_goals
from agentsense.standin.rules import RULES, standin_rule

INSPECT = str(Path(sys.executable).with_name("inspect"))
AGENTSENSE = str(Path(sys.executable).with_name("agentsense"))
README = Path(__file__).resolve().parent.parent / "README.md"
TASKS = list(agentsense.__all__)


def run(*command: str) -> subprocess.CompletedProcess[str]:
    # Inspect's default console: `agentsense.cli.main`, run in-process by other tests, leaves
    # INSPECT_LOG_LEVEL=error in os.environ, which would hide the warnings under test here.
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_LOG_LEVEL"}
    env["COLUMNS"] = "250"  # one message line per line
    return subprocess.run(
        list(command), capture_output=True, text=True, timeout=600, check=False, env=env
    )


def inspect_eval(*args: str, log_dir: Path) -> subprocess.CompletedProcess[str]:
    return run(INSPECT, "eval", *args, "--log-dir", str(log_dir), "--display", "plain")


def refused_in_process(task: str, model: str, log_dir: Path, **task_args: object) -> str:
    """The message of a one-scene demo run (`inspect_ai.eval`) that must stop before anything
    runs (how the CLI prints such a refusal: test_inspect_eval_refuses_a_trailing_comma...)."""
    from inspect_ai import eval as inspect_eval_in_process

    with pytest.raises(PrerequisiteError) as raised:
        inspect_eval_in_process(
            task,
            model=model,
            task_args={"dataset": "demo", **task_args},
            limit=1,
            log_dir=str(log_dir),
            display="none",
        )
    assert not list(log_dir.iterdir())  # no log: nothing ran
    return str(raised.value.message)


def refused(task: str, model: str, *args: str, log_dir: Path) -> str:
    """The output of a one-scene demo run that must stop before anything runs."""
    result = inspect_eval(
        task, "-T", "dataset=demo", "--limit", "1", "--model", model, *args, log_dir=log_dir
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-2000:]
    assert "Traceback" not in output
    assert not list(log_dir.iterdir())  # no log: nothing ran
    return output


# --- unknown -T names -------------------------------------------------------------------------


def test_the_closest_valid_name_is_suggested() -> None:
    message = unknown_arguments_message("full", ["max_msgs"], declared_names(agentsense.full))
    assert "-T max_msgs: unknown; did you mean max_messages?" in message
    assert "agentsense args full" in message
    for name in declared_names(agentsense.full):
        assert name in message


def test_a_name_close_to_nothing_gets_no_guess() -> None:
    message = unknown_arguments_message("labelling", ["zzz"], ["dataset", "max_tokens"])
    assert "did you mean" not in message
    assert "no argument of this task is close" in message


@pytest.mark.parametrize("name", TASKS)
def test_every_task_refuses_a_mistyped_argument_naming_the_right_one(name: str) -> None:
    factory = getattr(agentsense.tasks, name)
    for argument in declared_names(factory):
        typo = argument + argument[-1]  # doubled last letter
        with pytest.raises(PrerequisiteError) as raised:
            factory(**{typo: 1})
        assert f"-T {typo}: unknown; did you mean {argument}?" in str(raised.value.message)
        assert f"agentsense/{name}" in str(raised.value.message)


@pytest.mark.parametrize("name", TASKS)
def test_the_declared_arguments_are_the_signature_without_the_catch_all(name: str) -> None:
    import inspect

    factory = getattr(agentsense.tasks, name)
    parameters = inspect.signature(factory).parameters
    assert [p for p in parameters if p not in declared_names(factory)] == ["unknown"]
    assert parameters["unknown"].kind is inspect.Parameter.VAR_KEYWORD


def test_inspect_eval_refuses_an_unknown_name_before_any_model_call(tmp_path: Path) -> None:
    output = refused_in_process("agentsense/full", "standin/persona/agent", tmp_path, max_msgs=5)
    assert "-T max_msgs: unknown; did you mean max_messages?" in output


def test_agentsense_args_lists_every_argument_of_a_task(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["args", "full"]) == 0
    printed = capsys.readouterr().out
    lines = printed.splitlines()
    assert lines[0] == "agentsense/full takes (-T name=value):"
    # A line per argument (name, type, default), its meaning indented below it.
    named = [line.split()[0] for line in lines[1:] if not line.startswith("      ")]
    assert named == declared_names(agentsense.full)
    assert re.search(r"max_messages\s+int\s+15\s+messages per conversation", printed)


def test_agentsense_args_of_an_unknown_task_lists_the_tasks() -> None:
    """Through the installed `agentsense` command: its exit status."""
    result = run(AGENTSENSE, "args", "ful")
    assert result.returncode == 2
    assert "no task 'ful'; the tasks: " + ", ".join(TASKS) in result.stderr


# --- role lists -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "bad"),
    [
        (["--model-role", "judge=a,b,"], ["judge=a,b,"]),
        (["--model-role", "judge=a,,b"], ["judge=a,,b"]),
        (["--model-role", "judge=,a"], ["judge=,a"]),
        (["--model-role", "judge=a, ,b"], ["judge=a, ,b"]),
        (["--model-role=judge=a,"], ["judge=a,"]),
        (["--model-role", "judge=a,b", "--model-role", "sender=x,"], ["sender=x,"]),
        (["--model-role", "judge=a,b"], []),
        (["--model-role", "judge=a"], []),
        (["--model-role", "judge=[a, b]"], []),
        (["--model-role", "judge={model: a, temperature: 0.5}"], []),
        (["--model", "a,b", "-T", "x=1,"], []),  # not a role list
    ],
)
def test_empty_entries_of_a_role_list_are_found(argv: list[str], bad: list[str]) -> None:
    assert empty_role_entries(["inspect", "eval", "agentsense/goal", *argv]) == bad


def test_inspect_eval_refuses_a_trailing_comma_in_a_role_list(tmp_path: Path) -> None:
    """Through the real CLI: the role list is read from its command line; a refusal exits
    non-zero with the message and no traceback."""
    judges = "judge=standin/persona/a,standin/persona/b,"
    output = refused(
        "agentsense/goal", "standin/persona/agent", "--model-role", judges, log_dir=tmp_path
    )
    assert "A model role list has an empty entry" in output
    assert f"--model-role {judges}" in output


# --- stand-in rules ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["echo/agent", "persona", "agent", "Persona/agent"])
def test_an_unknown_stand_in_rule_is_refused_listing_the_rules(name: str) -> None:
    with pytest.raises(PrerequisiteError) as raised:
        standin_rule(name)
    message = str(raised.value.message)
    assert message.startswith(f"standin/{name}: ")
    assert "the rule one of " + ", ".join(RULES) in message


@pytest.mark.parametrize("rule", list(RULES))
def test_every_stand_in_rule_is_accepted_with_any_name(rule: str) -> None:
    assert standin_rule(f"{rule}/some/name-1") == (RULES[rule], "some/name-1")


def test_inspect_eval_refuses_an_unknown_stand_in_rule(tmp_path: Path) -> None:
    output = refused_in_process("agentsense/full", "standin/echo/agent", tmp_path)
    assert "standin/echo/agent: no stand-in rule 'echo'" in output
    assert ", ".join(RULES) in output


def test_the_guide_lists_every_stand_in_rule() -> None:
    text = (README.parent / "docs" / "usage.md").read_text(encoding="utf-8")
    section = text.split("## Stand-in models", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- `standin/([a-z]+)/\.\.\.`", section, flags=re.MULTILINE)
    assert sorted(listed) == sorted(RULES)


# --- self-judging -----------------------------------------------------------------------------


def test_only_the_scorers_that_ask_the_panel_count_as_judging() -> None:
    assert judges_goals(["goal_completion"]) and judges_goals(["agentsense/goal_and_mcq"])
    assert not judges_goals(["mcq_accuracy"]) and not judges_goals(["blind_mcq", "judge_verdicts"])


SELF_JUDGING = "No model is bound to the role 'judge'"


@pytest.mark.slow
def test_the_console_warns_once_when_characters_judge_themselves(tmp_path: Path) -> None:
    common = ["-T", "dataset=demo", "-T", "max_messages=3", "--limit", "2"]
    alone = inspect_eval(
        "agentsense/goal", *common, "--model", "standin/persona/agent", log_dir=tmp_path / "a"
    )
    assert alone.returncode == 0, alone.stderr[-2000:]
    assert (alone.stdout + alone.stderr).count(SELF_JUDGING) == 1


def test_no_self_judging_warning_when_a_judge_is_bound(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The console prints Inspect's log records at warning level: none says it here."""
    from inspect_ai import eval as inspect_eval_in_process

    caplog.set_level("WARNING")
    (log,) = inspect_eval_in_process(
        "agentsense/goal",
        model="standin/persona/agent",
        model_roles={"judge": "standin/persona/judge-a"},
        task_args={"dataset": "demo", "max_messages": 3},
        limit=2,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert SELF_JUDGING not in caplog.text


# --- install line -----------------------------------------------------------------------------


def test_the_readme_installs_from_the_checkout_never_by_the_unpublished_name() -> None:
    # a command ends at `&&`, a comment, the line or its inline code span's closing backtick
    installs = re.findall(r"pip install ([^&\n#`]*)", README.read_text(encoding="utf-8"))
    assert installs
    for arguments in installs:
        targets = [a.strip("'\"") for a in arguments.split() if not a.startswith("-")]
        for target in targets:
            # a local path (the checkout, maybe with extras) or a pinned third-party wheel
            assert target.startswith(".") or "==" in target, arguments
            assert not target.startswith("agentsense"), arguments
