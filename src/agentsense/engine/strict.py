"""Task arguments Inspect would let through: refused when the task is built, before any model call.

Inspect passes a `-T name=value` the task does not declare only to a task whose signature takes
`**kwargs`; otherwise it warns "param not used" and runs on the defaults. `strict_arguments`
gives a task such a signature, so a mistyped name reaches it and is refused with the closest
valid name. The model roles of the run are checked against the task's (`roles.TASK_ROLES`) when
it is built, and again by its setup step (`roles.role_check`). Inspect's CLI also drops empty
entries of a role list (`--model-role judge=a,b,`) before any task sees the roles, so those are
read from the command line itself.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import sys
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec

from inspect_ai import Task, task_with
from inspect_ai.model import model_roles

from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.roles import (
    built_by_inspect,
    evaluated_model,
    refuse_unused,
    require_needed,
    role_check,
    run_roles,
    warn_ignored,
)

P = ParamSpec("P")

ROLE_OPTION = "--model-role"


def declared_names(function: Callable[..., Any]) -> list[str]:
    """The task's own argument names (without the catch-all `strict_arguments` adds)."""
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


def console_warnings() -> None:
    """Register the hooks that warn on the console, now that an AgentSense task is built:
    registered at import, Inspect would list them at the start of every run, others' too."""
    from agentsense.engine import (
        request_format,  # noqa: F401
        self_judging,  # noqa: F401
    )


def strict_arguments(function: Callable[P, Task]) -> Callable[P, Task]:
    """Refuse undeclared `-T` names, empty role-list entries, roles the task does not use and
    missing roles it needs (warn of roles other tasks use); put it under `@task`."""
    valid = declared_names(function)
    signature = inspect.signature(function)
    name = function.__name__

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Task:
        unknown = [argument for argument in kwargs if argument not in valid]
        if unknown:
            raise PrerequisiteError(unknown_arguments_message(name, unknown, valid))
        check_role_lists(sys.argv)
        in_eval = built_by_inspect()  # else the roles come with eval() (role_check reads them)
        if in_eval:
            refuse_unused(name, model_roles())  # before the data is read
        built = function(*args, **kwargs)
        if in_eval:
            require_needed(name, run_roles(built.model_roles), evaluated_model())
            warn_ignored(name, model_roles())
        console_warnings()
        return task_with(built, setup=role_check(name))

    # Inspect hands every -T name to a task whose signature takes **kwargs (the check above
    # then refuses it); the declared parameters, types and defaults stay as they are.
    catch_all = inspect.Parameter("unknown", inspect.Parameter.VAR_KEYWORD)
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), catch_all]
    )
    return wrapper
