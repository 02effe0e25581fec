"""Task arguments Inspect would let through: refused when the task is built, before any model call.

Inspect passes a `-T name=value` the task does not declare only to a task whose signature takes
`**kwargs`; otherwise it warns "param not used" and runs on the defaults. The task table gives
every task such a signature, so a mistyped name reaches `checked_build` and is refused with the
closest valid name. The model roles of the run are checked against the task's (its row's `roles`)
when it is built, and again by its setup step (`roles.role_check`). Inspect's CLI also drops empty
entries of a role list (`--model-role judge=a,b,`) before any task sees the roles, so those are
read from the command line itself.
"""

from __future__ import annotations

import difflib
import inspect
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from inspect_ai import Task, task_with
from inspect_ai.model import model_roles
from pydantic import BaseModel, ValidationError

from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.roles import (
    TaskRoles,
    built_by_inspect,
    evaluated_model,
    refuse_unused,
    require_needed,
    role_check,
    role_uses,
    run_roles,
    warn_ignored,
)

ROLE_OPTION = "--model-role"


Settings = TypeVar("Settings", bound=BaseModel)


def argument_errors(error: ValidationError) -> str:
    """One line per bad argument: its name, what was found and what is expected."""
    lines = []
    for problem in error.errors():
        name = ".".join(map(str, problem["loc"]))
        expected = problem["msg"].removeprefix("Input should be ").removeprefix("Value error, ")
        lines.append(f"  -T {name}: found {problem.get('input')!r}; expected {expected}")
    return "Invalid AgentSense task argument(s):\n" + "\n".join(lines)


def task_settings(model: type[Settings], values: Mapping[str, Any]) -> Settings:
    """The task's arguments that are fields of `model` (by `-T` name), validated; bad ones fail
    here, before any model call, naming `-T name`, what was found and what is expected."""
    names = {field.alias or name for name, field in model.model_fields.items()}
    try:
        return model.model_validate({k: v for k, v in values.items() if k in names})
    except ValidationError as error:
        raise PrerequisiteError(argument_errors(error)) from None


def declared_names(function: Callable[..., Any]) -> list[str]:
    """The task's own argument names (without the catch-all the task table adds)."""
    return [
        name
        for name, parameter in inspect.signature(function).parameters.items()
        if parameter.kind is not inspect.Parameter.VAR_KEYWORD
    ]


def unknown_arguments_message(task: str, unknown: Sequence[str], valid: Sequence[str]) -> str:
    """One line per unknown name with the closest valid one, then every valid name."""
    lines = []
    for name in unknown:
        close = difflib.get_close_matches(name, valid, n=1, cutoff=0.5)
        hint = f"did you mean {close[0]}?" if close else "no argument of this task is close"
        lines.append(f"  -T {name}: unknown; {hint}")
    return (
        f"Unknown task argument(s) of agentsense/{task}:\n"
        + "\n".join(lines)
        + f"\nIts arguments: {', '.join(valid)} (`agentsense args {task}` shows their types, "
        "defaults and meaning)."
    )


def option_values(argv: Sequence[str], option: str) -> list[str]:
    """The values given to `option` on a command line (`--opt VALUE` or `--opt=VALUE`)."""
    values = []
    for i, token in enumerate(argv):
        if token == option and i + 1 < len(argv):
            values.append(argv[i + 1])
        elif token.startswith(option + "="):
            values.append(token.removeprefix(option + "="))
    return values


def empty_role_entries(argv: Sequence[str]) -> list[str]:
    """`--model-role` values of the form `role=a,b,...` with an empty entry (YAML/JSON aside)."""
    bad = []
    for value in option_values(argv, ROLE_OPTION):
        _, equals, models = value.partition("=")
        if not equals or models.lstrip().startswith(("[", "{")) or "," not in models:
            continue
        if any(not entry.strip() for entry in models.split(",")):
            bad.append(value)
    return bad


def check_role_lists(argv: Sequence[str]) -> None:
    bad = empty_role_entries(argv)
    if bad:
        listed = "\n".join(f"  {ROLE_OPTION} {value}" for value in bad)
        raise PrerequisiteError(
            f"A model role list has an empty entry (Inspect would drop it silently):\n{listed}\n"
            "Remove the stray comma, or name the missing model."
        )


def console_warnings(table: Mapping[str, TaskRoles]) -> None:
    """Register the hooks that warn on the console, now that an AgentSense task is built:
    registered at import, Inspect would list them at the start of every run, others' too."""
    from agentsense.engine import request_format

    request_format.use_role_table(table)


def checked_build(
    name: str,
    valid: Sequence[str],
    table: Mapping[str, TaskRoles],
    build: Callable[..., Task],
    values: Mapping[str, Any],
) -> Task:
    """Refuse undeclared `-T` names, empty role-list entries, roles no task uses and missing
    roles the task needs (warn of roles other tasks use), then build the task with `values`."""
    unknown = [argument for argument in values if argument not in valid]
    if unknown:
        raise PrerequisiteError(unknown_arguments_message(name, unknown, valid))
    check_role_lists(inspect_command_line())
    in_eval = built_by_inspect()  # else the roles come with eval() (role_check reads them)
    if in_eval:
        refuse_unused(table, name, model_roles())  # before the data is read
    built = build(**values)
    if in_eval:
        require_needed(table, name, run_roles(built.model_roles), evaluated_model())
        warn_ignored(table, name, model_roles())
    console_warnings(table)
    return task_with(built, setup=role_check(name, role_uses(table)))


def inspect_command_line() -> list[str]:
    """The process's command line: the one place the package reads it. Inspect's CLI drops an
    empty entry of a role list before any API shows the roles, so only the line itself can tell
    that `--model-role judge=a,b,` meant three judges."""
    return sys.argv
