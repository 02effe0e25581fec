"""The Inspect model roles of every task, declared once, and the check of the roles a run binds.

The task table (`agentsense.tasks`) says which roles each task uses: `required` ones must be bound;
`fallback` ones are played by the evaluated model when unbound (on purpose: the judges then judge
their own characters, and the console says so once). Inspect lets any role name through and never
says that no model is bound to a role, so a typo (`--model-role judgee=...`) silently leaves the
evaluated model on the real role. `refused_roles` refuses a bound role the task does not use, with
the closest one it does, when no AgentSense task uses it; a role another AgentSense task uses is
only warned about (`ignored_roles`), since one `inspect eval` or eval-set of several tasks binds
the roles of all of them; `missing_roles` asks for a role the task cannot run without (`labeller`,
or every role under `--model none`), one line per role, naming the flag that binds it.

Both run when the task is built inside an eval, where `model_roles()` holds the run's roles
(Inspect sets them before building tasks, so that a task may read them), so a bad role stops the
run before anything is logged; `role_check`, the task's setup step, repeats them on each sample
before its first model call, for a task built outside the eval (`eval(goal(), model_roles=...)`).

The judge panel: every model bound to the Inspect role `judge` (a list makes a panel).
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from inspect_ai.log import transcript
from inspect_ai.model import Model, get_model, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver

from agentsense.engine.errors import PrerequisiteError

CHARACTER_ROLE = "character"  # plays every character not bound to another role


JUDGE_ROLE = "judge"  # the judge panel (a list of models)


SENDER_ROLE = "sender"  # pairwise: the characters labelled sender


RECEIVER_ROLE = "receiver"  # pairwise: the characters labelled receiver


LABELLER_ROLE = "labeller"  # labelling: scenario types, goal categories, sender/receiver


BUILDER_ROLE = "builder"  # construct: answers the construction prompts


ENVIRONMENT_ROLE = "environment"  # gca: CoSER's Environment


NEXT_SPEAKER_ROLE = "next_speaker"  # gca: CoSER's next-speaker predictor


CRITIC_ROLE = "critic"  # gca: CoSER's four critics


# Roles of other benchmarks in the same eval-set: Inspect binds every role to every task.
OTHER_ROLES_VARIABLE = "AGENTSENSE_OTHER_ROLES"


# How alike a bound role and one of the task's must be (difflib's ratio) to be offered as the
# typo it probably is: one slip in a name (judgee, jduge, critc: 0.8 and more) is; another
# benchmark's own role (grader: 0.53 to character, rater: 0.71) is not.
CLOSE_ROLE = 0.75


LOADER = "inspect_ai._eval.loader"  # the module of Inspect that builds a named task


NO_MODEL = "none/none"  # `--model none`: a run whose every model is on a bound role


TASK_PREFIX = "agentsense/"


@dataclass(frozen=True)
class TaskRoles:
    """The roles one task uses: `required` ones must be bound; unbound `fallback` ones are played
    by the evaluated model."""

    required: tuple[str, ...] = ()
    fallback: tuple[str, ...] = ()

    @property
    def used(self) -> tuple[str, ...]:
        return (*self.required, *self.fallback)

    def needed(self, evaluated: str | None) -> tuple[str, ...]:
        """The roles that must be bound: under `--model none` no model stands in for any."""
        return self.used if evaluated == NO_MODEL else self.required


RoleTable = Mapping[str, TaskRoles]  # task name -> its roles (the task table's)


Bound = TypeVar("Bound")  # what a role is bound to (a model name, a ModelConfig, a list of them)


def role_uses(table: RoleTable) -> dict[str, dict[str, list[str]]]:
    return {
        name: {"required": list(r.required), "fallback": list(r.fallback)}
        for name, r in table.items()
    }


def users_of(table: RoleTable, role: str) -> list[str]:
    return [task for task, roles in table.items() if role in roles.used]


def unused_role_line(role: str, valid: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(role, valid, n=1, cutoff=CLOSE_ROLE)
    if close:
        return f"  --model-role {role}: did you mean {close[0]}?"
    return f"  --model-role {role}: no role of this task is close"


def own_roles(table: RoleTable, task: str, bound: Mapping[str, Bound]) -> dict[str, Bound]:
    """The roles of `bound` that `task` uses (all of them for a task the table lacks). Another
    benchmark's role (`AGENTSENSE_OTHER_ROLES`), or another AgentSense task's, bound in the same
    eval-set changes nothing the task does: it is no part of its run, warnings or report."""
    roles = table.get(task.removeprefix(TASK_PREFIX))
    if roles is None:
        return dict(bound)
    return {role: model for role, model in bound.items() if role in roles.used}


def other_benchmarks_roles() -> set[str]:
    return {r.strip() for r in os.environ.get(OTHER_ROLES_VARIABLE, "").split(",") if r.strip()}


def refused_roles(table: RoleTable, task: str, bound: Iterable[str]) -> str | None:
    """The refusal of the bound roles that no AgentSense task uses (a typo: Inspect would
    ignore them and the evaluated model would play the real role), or None."""
    roles = table[task]
    others = other_benchmarks_roles()
    unknown = [role for role in bound if not users_of(table, role) and role not in others]
    if not unknown:
        return None
    listed = ", ".join(f"{r} (required)" if r in roles.required else r for r in roles.used)
    its_roles = f"Its roles: {listed}." if roles.used else "It uses no model role, only --model."
    return (
        f"No AgentSense task uses these model role(s) of {TASK_PREFIX}{task}:\n"
        + "\n".join(unused_role_line(role, roles.used) for role in unknown)
        + f"\n{its_roles}"
        + f"\nAnother benchmark's role in the same run: {OTHER_ROLES_VARIABLE}={unknown[0]}"
    )


def ignored_roles(table: RoleTable, task: str, bound: Iterable[str]) -> str | None:
    """The warning for bound roles other AgentSense tasks use and `task` ignores (a run of
    several tasks binds them all), or None."""
    roles = table[task]
    ignored = [role for role in bound if role not in roles.used and users_of(table, role)]
    if not ignored:
        return None
    return f"{TASK_PREFIX}{task} ignores " + "; ".join(
        f"--model-role {role} (used by {', '.join(users_of(table, role))})" for role in ignored
    )


def missing_roles(
    table: RoleTable, task: str, bound: Iterable[str], evaluated: str | None
) -> str | None:
    """One line per role `task` needs and nobody bound, or None. `evaluated`: the `--model`,
    None outside an eval (where a task built first gets its roles from `eval()` later)."""
    if evaluated is None:
        return None
    bound = set(bound)
    roles = table[task]
    lines = [
        f"{TASK_PREFIX}{task} needs --model-role {role}=MODEL "
        + ("(the role is unbound)" if role in roles.required else "(the run has --model none)")
        for role in roles.needed(evaluated)
        if role not in bound
    ]
    return "\n".join(lines) or None


def refuse_unused(table: RoleTable, task: str, bound: Iterable[str]) -> None:
    message = refused_roles(table, task, bound)
    if message:
        raise PrerequisiteError(message)


def warn_ignored(table: RoleTable, task: str, bound: Iterable[str]) -> None:
    message = ignored_roles(table, task, bound)
    if message:
        from agentsense.engine.console import warn

        warn(message)


def require_needed(
    table: RoleTable, task: str, bound: Iterable[str], evaluated: str | None
) -> None:
    message = missing_roles(table, task, bound, evaluated)
    if message:
        raise PrerequisiteError(message)


def built_by_inspect() -> bool:
    """Whether Inspect's task loader is building the task (`inspect eval`, `eval("agentsense/
    goal")`): only then are `model_roles()` and the active model this run's. A task the user
    builds (`goal()`, then `eval(task, ...)`) sees a past run's, which Inspect leaves set."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == LOADER:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def evaluated_model() -> str | None:
    """The eval's `--model`, or None outside an eval (a task built before `eval()`)."""
    try:
        return str(get_model())
    except ValueError:  # no active model and no INSPECT_EVAL_MODEL
        return None


def run_roles(task_roles: Mapping[str, object] | None = None) -> list[str]:
    """The roles bound for this run (`--model-role`, `eval(model_roles=...)`) and the task's."""
    return list(dict.fromkeys([*model_roles(), *(task_roles or {})]))


@solver
def role_check(task: str, uses: dict[str, dict[str, list[str]]]) -> Solver:
    """The task's setup step: its roles checked again on each sample, before any model call.
    `uses`: every task's roles (`role_uses`), plain data as the log records a solver's args."""
    table = {
        name: TaskRoles(tuple(r["required"]), tuple(r["fallback"])) for name, r in uses.items()
    }

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        refuse_unused(table, task, model_roles())
        require_needed(table, task, model_roles(), evaluated_model())
        return state

    return solve


def character_role(name: str, model_roles: Mapping[str, str | None]) -> str:
    """The Inspect model role that plays `name`: its binding, else `character`."""
    return model_roles.get(name) or CHARACTER_ROLE


def character_model(name: str, model_roles: Mapping[str, str | None]) -> Model:
    """The model playing `name`, on its role: the role's bound model, else the evaluated model.

    Either way the calls carry the role, so Inspect's per-role usage covers every character.
    """
    return get_model(role=character_role(name, model_roles), default=get_model())


SELF_JUDGING = (
    "No model is bound to the role 'judge': the evaluated model judges the goals. "
    "Bind a panel with --model-role judge=<model>,<model>,<model>."
)


@dataclass(frozen=True)
class Judge:
    """One judge of the panel: its score key (`judge_1`, ...) and its model."""

    key: str
    model: Model

    @property
    def name(self) -> str:
        return str(self.model)


def judge_panel(key: Callable[[int], str]) -> tuple[list[Judge], bool]:
    """The judges bound to the role `judge`, in binding order, and whether the role was bound;
    `key(n)` names the score of judge `n` (from 1).

    Unbound, the evaluated model judges itself; the transcript says so, since that inflates scores.
    """
    bound = model_roles().get(JUDGE_ROLE)
    if bound is None:
        transcript().info(SELF_JUDGING)
        # On the role all the same, so per-role usage counts these calls as judging.
        return [Judge(key(1), get_model(role=JUDGE_ROLE, default=get_model()))], False
    models = bound if isinstance(bound, list) else [bound]
    return [Judge(key(i), model) for i, model in enumerate(models, start=1)], True
