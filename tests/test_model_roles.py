"""Model roles, strict like `-T`: a role no AgentSense task uses is refused with the closest one
(a role another task uses is warned about: a run of several tasks binds them all),
a role the task needs and nobody bound is one line naming the flag, both before any model call;
AgentSense's console warnings are printed at full width and only on AgentSense's runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.util import registry_info

import agentsense
from agentsense.engine.console import LEVEL_WIDTH
from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.roles import (
    ignored_roles,
    missing_roles,
    refused_roles,
    role_check,
)
from agentsense.standin.stub import StubServer
from agentsense.standin.stub.harness import CliResult, InspectCLI
from agentsense.tasks import TASK_ROLES, goal

AGENT = "standin/persona/agent"
JUDGE = "standin/persona/judge-a"
DEMO = ["-T", "dataset=demo", "--limit", "1", "--display", "plain"]

# --- the declaration --------------------------------------------------------------------------


def test_every_task_declares_its_roles() -> None:
    assert sorted(TASK_ROLES) == sorted(agentsense.__all__)


def kinds_roles(logs: dict[str, Path]) -> dict[str, set[str]]:
    """kind -> the roles its run spent tokens on."""
    return {kind: set(read_eval_log(str(path)).stats.role_usage) for kind, path in logs.items()}


def test_the_declared_roles_are_the_roles_each_run_calls(
    kind_logs: dict[str, Path], other_logs: dict[str, Path]
) -> None:
    """The shared test logs bind every role they use (or let it fall back, which still counts
    the calls under the role): each spends tokens on exactly the roles its task declares."""
    used = kinds_roles({**kind_logs, **other_logs})
    assert used == {kind: set(TASK_ROLES[kind].used) for kind in used}


# --- the messages -----------------------------------------------------------------------------


def test_a_mistyped_role_is_named_with_the_closest_one() -> None:
    message = refused_roles(TASK_ROLES, "goal", ["judgee", "labeller", "zzz"])
    assert message is not None
    assert message.splitlines() == [
        "No AgentSense task uses these model role(s) of agentsense/goal:",
        "  --model-role judgee: did you mean judge?",
        "  --model-role zzz: no role of this task is close",
        "Its roles: character, judge.",
        "Another benchmark's role in the same run: AGENTSENSE_OTHER_ROLES=judgee",
    ]
    assert refused_roles(TASK_ROLES, "goal", ["character", "judge", "labeller"]) is None


def test_another_benchmarks_role_can_be_let_through(monkeypatch: pytest.MonkeyPatch) -> None:
    """An eval-set of goal and a benchmark with a `grader` role binds `grader` to goal too."""
    monkeypatch.setenv("AGENTSENSE_OTHER_ROLES", "grader, critic2")
    assert refused_roles(TASK_ROLES, "goal", ["judge", "grader", "critic2"]) is None
    refused = refused_roles(TASK_ROLES, "goal", ["grader", "judgee"])
    assert refused is not None and "judgee: did you mean judge?" in refused
    assert "grader" not in refused


@pytest.mark.parametrize("role", ["grader", "scorer", "rater", "user", "defender"])
def test_another_benchmarks_role_is_not_taken_for_a_typo(role: str) -> None:
    """A peer's `grader` is not a slip of `character` (the old guess): no guess at all."""
    message = refused_roles(TASK_ROLES, "pairwise", [role])
    assert message is not None and "did you mean" not in message
    assert f"  --model-role {role}: no role of this task is close" in message.splitlines()


@pytest.mark.parametrize(
    ("task", "typo", "role"),
    [
        ("goal", "judgee", "judge"),
        ("goal", "jduge", "judge"),
        ("goal", "chracter", "character"),
        ("pairwise", "reciever", "receiver"),
        ("pairwise", "sendr", "sender"),
        ("labelling", "labeler", "labeller"),
        ("gca", "critc", "critic"),
        ("gca", "enviroment", "environment"),
        ("gca", "next-speaker", "next_speaker"),
    ],
)
def test_a_slip_in_a_role_name_is_still_named(task: str, typo: str, role: str) -> None:
    message = refused_roles(TASK_ROLES, task, [typo])
    assert message is not None
    assert f"  --model-role {typo}: did you mean {role}?" in message.splitlines()


def test_a_role_of_another_task_is_warned_about_not_refused() -> None:
    assert ignored_roles(TASK_ROLES, "info", ["character", "judge", "labeller"]) == (
        "agentsense/info ignores --model-role judge (used by goal, full, pairwise, judge_check, "
        "sotopia); "
        "--model-role labeller (used by labelling)"
    )
    assert (
        ignored_roles(TASK_ROLES, "goal", ["character", "judge", "judgee"]) is None
    )  # judgee: refused


def test_a_missing_role_is_one_line_naming_the_flag() -> None:
    assert missing_roles(TASK_ROLES, "labelling", [], "standin/persona/agent") == (
        "agentsense/labelling needs --model-role labeller=MODEL (the role is unbound)"
    )
    assert missing_roles(TASK_ROLES, "labelling", ["labeller"], "standin/persona/agent") is None
    assert (
        missing_roles(TASK_ROLES, "goal", [], "standin/persona/agent") is None
    )  # --model plays them
    under_none = missing_roles(TASK_ROLES, "goal", ["judge"], "none/none")
    assert under_none == (
        "agentsense/goal needs --model-role character=MODEL (the run has --model none)"
    )
    assert (
        missing_roles(TASK_ROLES, "labelling", [], None) is None
    )  # outside an eval: roles come later


@pytest.mark.parametrize("task", sorted(TASK_ROLES))
def test_every_role_message_fits_80_columns(task: str) -> None:
    roles = TASK_ROLES[task].used
    typos = [role + role[-1] for role in roles] + ["character", "critic", "zzz"]
    messages = [
        refused_roles(TASK_ROLES, task, typos),
        missing_roles(TASK_ROLES, task, [], "none/none"),
        missing_roles(TASK_ROLES, task, [], "standin/persona/agent"),
    ]
    for line in "\n".join(m for m in messages if m).splitlines():
        assert len(line) <= 80, line


# --- in-process eval() ------------------------------------------------------------------------


def test_eval_refuses_an_unused_role_when_it_builds_the_task(tmp_path: Path) -> None:
    with pytest.raises(PrerequisiteError, match="--model-role judgee: did you mean judge"):
        eval(
            "agentsense/goal",
            task_args={"dataset": "demo"},
            model=AGENT,
            model_roles={"judgee": JUDGE},
            log_dir=str(tmp_path),
            display="none",
        )
    assert not list(tmp_path.iterdir())


def judged_demo_run(tasks: list[str], log_dir: Path) -> list[EvalLog]:
    """One short eval of `tasks` on a demo scene, with `judge` bound."""
    return eval(
        tasks,
        task_args={"dataset": "demo", "max_messages": 3},
        model=AGENT,
        model_roles={"judge": JUDGE},
        limit=1,
        log_dir=str(log_dir),
        display="none",
    )


def test_one_eval_of_two_tasks_binds_the_roles_of_both(tmp_path: Path) -> None:
    """`inspect eval agentsense/goal agentsense/info --model-role judge=...`: info ignores the
    judge (a warning), goal's panel is the judge, both run."""
    logs = judged_demo_run(["agentsense/goal", "agentsense/info"], tmp_path)
    assert [log.status for log in logs] == ["success", "success"]
    usage = {log.eval.task: set(log.stats.role_usage) for log in logs}
    assert usage == {"agentsense/goal": {"character", "judge"}, "agentsense/info": {"character"}}


def test_a_task_built_after_an_eval_is_not_judged_by_that_evals_roles(tmp_path: Path) -> None:
    """Inspect leaves the last eval's model and roles set: a notebook that builds labelling()
    after a goal run must not be asked for a labeller nor told of that run's judge."""
    from agentsense.tasks import labelling

    judged_demo_run(["agentsense/goal"], tmp_path)
    task = labelling(dataset="demo")  # no labeller yet: eval() below binds it
    assert task.setup is not None


def test_eval_asks_for_the_labeller_when_it_builds_the_task(tmp_path: Path) -> None:
    with pytest.raises(PrerequisiteError, match="needs --model-role labeller=MODEL"):
        eval(
            "agentsense/labelling",
            task_args={"dataset": "demo"},
            model=AGENT,
            log_dir=str(tmp_path),
            display="none",
        )
    assert not list(tmp_path.iterdir())


def test_a_task_built_before_eval_is_checked_by_its_setup_step(tmp_path: Path) -> None:
    """`eval(goal(), model_roles=...)`: the roles are not visible when the task is built, so its
    first step refuses them, through Inspect's error path, before any model call."""
    (log,) = eval(
        goal(dataset="demo"),
        model=AGENT,
        model_roles={"judgee": JUDGE},
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error" and log.error is not None
    assert "--model-role judgee: did you mean judge?" in log.error.message
    assert log.stats.model_usage == {}


def test_every_task_built_has_role_check_as_its_setup_step() -> None:
    """The setup step the test above relies on is `role_check` for the task's own name."""
    built = goal(dataset="demo")
    assert built.setup is not None
    assert registry_info(built.setup).name == registry_info(role_check("goal", {})).name


# --- the real CLI (end-to-end, so `slow`) -----------------------------------------------------


def refused(cli: InspectCLI, *args: str, env: dict[str, str] | None = None) -> list[str]:
    """The lines of a run that must stop before anything is logged."""
    result = cli.run(["eval", *args, *DEMO], env=env)
    assert result.returncode != 0, result.output[-2000:]
    assert "Traceback" not in result.output
    assert not list(cli.log_dir.iterdir())  # no log: nothing ran
    return [line for line in result.output.splitlines() if line.strip()]


@pytest.mark.slow
def test_inspect_eval_refuses_a_mistyped_role_before_any_request(
    stub: StubServer, inspect_cli: InspectCLI
) -> None:
    """The issue's run: 26 model calls and exit 0, `judge_1` the evaluated model itself."""
    lines = refused(
        inspect_cli,
        "agentsense/goal",
        "--model",
        "vllm/agent",
        "--model-role",
        "judgee=vllm/judge-x",
        env={"VLLM_BASE_URL": stub.base_url},
    )
    assert lines == [
        "No AgentSense task uses these model role(s) of agentsense/goal:",
        "  --model-role judgee: did you mean judge?",
        "Its roles: character, judge.",
        "Another benchmark's role in the same run: AGENTSENSE_OTHER_ROLES=judgee",
    ]
    assert stub.chat_records() == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["agentsense/goal", "--model", "none", "--model-role", f"judge={JUDGE}"],
            "agentsense/goal needs --model-role character=MODEL (the run has --model none)",
        ),
        (
            ["agentsense/labelling", "--model", AGENT],
            "agentsense/labelling needs --model-role labeller=MODEL (the role is unbound)",
        ),
    ],
    ids=["model-none", "labelling"],
)
def test_inspect_eval_asks_for_a_missing_role_in_one_line(
    inspect_cli: InspectCLI, args: list[str], line: str
) -> None:
    assert refused(inspect_cli, *args) == [line]


# --- console warnings: full width, and only on AgentSense's runs -------------------------------


def warning_blocks(output: str) -> list[list[str]]:
    """The console warnings of AgentSense: a `WARNING  ` line and its indented continuation."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in output.splitlines():
        if line.startswith("WARNING  "):
            current = [line]
            blocks.append(current)
        elif current is not None and line.startswith(" " * LEVEL_WIDTH) and line.strip():
            current.append(line)
        else:
            current = None
    return blocks


def run_at_80_columns(cli: InspectCLI, args: list[str], env: dict[str, str]) -> CliResult:
    result = cli.run(args, env={"COLUMNS": "80", **env})
    assert result.returncode == 0, result.output[-3000:]
    return result


@pytest.mark.slow
def test_warnings_read_at_full_width_at_80_columns(
    stub: StubServer, inspect_cli: InspectCLI
) -> None:
    """A merging provider and no judge: both warnings, once each, a few lines of <= 80 columns
    (in Inspect's log column the merge warning took 20 lines)."""
    args = ["eval", "agentsense/goal", *DEMO, "-T", "max_messages=3", "--model", "vllm/agent"]
    result = run_at_80_columns(inspect_cli, args, {"VLLM_BASE_URL": stub.base_url})
    blocks = warning_blocks(result.output)
    merge = [b for b in blocks if "merge(s)" in b[0]]
    judging = [b for b in blocks if "No model is bound to the role 'judge'" in " ".join(b)]
    assert len(merge) == 1 and len(judging) == 1, result.output[-3000:]
    for block in merge + judging:
        assert all(len(line) <= 80 for line in block), block
        assert all(len(line) > 60 for line in block[:-1]), block  # filled to the width
    assert len(merge[0]) <= 8
    assert "hooks enabled" not in result.output


OTHER_BENCHMARK = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match

USAGE = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)


@task
def other():
    output = ModelOutput.from_content("mockllm/model", "4")
    output.usage = USAGE
    model = get_model("mockllm/model", custom_outputs=[output])
    return Task(dataset=[Sample(input="2+2?", target="4")], scorer=match(), model=model)
"""


@pytest.mark.slow
def test_another_benchmarks_run_prints_nothing_of_agentsense(inspect_cli: InspectCLI) -> None:
    task = inspect_cli.root / "other.py"
    task.write_text(OTHER_BENCHMARK, encoding="utf-8")
    result = run_at_80_columns(inspect_cli, ["eval", task.name, "--display", "plain"], {})
    assert "accuracy" in result.output  # it ran
    assert "hooks enabled" not in result.output
    assert "agentsense" not in result.output.lower()
