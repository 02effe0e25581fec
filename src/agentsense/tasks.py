"""The one table of tasks: each task's name, benchmark, entry, arguments, roles, log kind and
docs row, declared once.

Inspect finds `agentsense/NAME` in its registry, so every task is registered here, by a function
this module makes from the task's row: its signature (what `-T` may name, with types and
defaults) comes from the row's arguments, and its body imports the benchmark's entry only when
the task is built, so that listing or resolving a task loads no benchmark code. The registry,
`agentsense args`, the role checks, the eval.yaml check, the README's task table, the report's
dispatch by log kind and the tests' task matrix all read this table. docs/adding-a-task.md shows
how a row is added.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai import Task, task

from agentsense.engine.roles import (
    BUILDER_ROLE,
    CHARACTER_ROLE,
    CRITIC_ROLE,
    ENVIRONMENT_ROLE,
    JUDGE_ROLE,
    LABELLER_ROLE,
    NEXT_SPEAKER_ROLE,
    RECEIVER_ROLE,
    SENDER_ROLE,
    TaskRoles,
)
from agentsense.sense.protocol import TaskArguments, cli_names

Benchmark = Literal["sense", "coser", "construction"]
# What a log holds, for the report: simulated scenes (Tables 1, 2, 6, 7), or one of the others.
LogKind = Literal[
    "scenes", "blind", "labelling", "script_prediction", "judge_check", "construct", "gca"
]


# The simulation arguments in the order `agentsense args` and the docs list them.
ORDER = (
    "dataset",
    "protocol",
    "seed",
    "shard",
    "per_template",
    "max_messages",
    "agent_temperature",
    "judge_temperature",
    "max_tokens",
    "option_mark",
)


@dataclass(frozen=True)
class Argument:
    """One `-T` argument: its name, type, default and meaning (`agentsense args`, the docs)."""

    name: str
    kind: Any
    default: Any
    doc: str


def simulation_arguments(leave_out: tuple[str, ...] = (), **defaults: Any) -> tuple[Argument, ...]:
    """The arguments of `TaskArguments` (every simulation task's), with other defaults."""
    fields = TaskArguments.model_fields
    names = cli_names(TaskArguments)
    return tuple(
        Argument(
            cli,
            fields[name].annotation,
            defaults.get(cli, fields[name].default),
            (fields[name].description or "").rstrip("."),
        )
        for cli, name in sorted(names.items(), key=lambda item: ORDER.index(item[0]))
        if cli not in leave_out
    )


def pick(arguments: tuple[Argument, ...], *names: str, **docs: str) -> tuple[Argument, ...]:
    """The named simulation arguments, in table order, some with their own meaning here."""
    return tuple(
        Argument(a.name, a.kind, a.default, docs.get(a.name, a.doc))
        for a in arguments
        if a.name in names
    )


@dataclass(frozen=True)
class TaskRow:
    name: str
    benchmark: Benchmark
    entry: str  # module:function that builds the Task from the arguments (keywords)
    summary: str  # the docs row and the task's docstring
    arguments: tuple[Argument, ...]
    roles: TaskRoles
    log_kind: LogKind
    unit: str = "scenes"  # what one sample of its log is

    @property
    def names(self) -> list[str]:
        return [argument.name for argument in self.arguments]


SIMULATION = simulation_arguments()

TASKS: tuple[TaskRow, ...] = (
    TaskRow(
        "goal",
        "sense",
        "agentsense.sense.tasks:goal",
        "Goal completion on every scene.",
        SIMULATION,
        TaskRoles(fallback=(CHARACTER_ROLE, JUDGE_ROLE)),
        "scenes",
    ),
    TaskRow(
        "info",
        "sense",
        "agentsense.sense.tasks:info",
        "Private-information MCQ accuracy on the scenes that have MCQs.",
        SIMULATION,
        TaskRoles(fallback=(CHARACTER_ROLE,)),
        "scenes",
    ),
    TaskRow(
        "full",
        "sense",
        "agentsense.sense.tasks:full",
        "Goal completion and MCQ accuracy on one conversation per scene.",
        SIMULATION,
        TaskRoles(fallback=(CHARACTER_ROLE, JUDGE_ROLE)),
        "scenes",
    ),
    TaskRow(
        "pairwise",
        "sense",
        "agentsense.sense.tasks:pairwise",
        "Goal completion and MCQ accuracy with senders and receivers played by different models.",
        (
            *simulation_arguments(dataset="official_roles"),
            Argument(
                "sender",
                str | None,
                None,
                "model for the role `sender` (default: `--model-role sender=...`, else the "
                "evaluated model)",
            ),
            Argument(
                "receiver", str | None, None, "model for the role `receiver` (same fallbacks)"
            ),
        ),
        # every character is a sender or a receiver, so `character` plays nobody here
        TaskRoles(fallback=(SENDER_ROLE, RECEIVER_ROLE, JUDGE_ROLE)),
        "scenes",
    ),
    TaskRow(
        "blind",
        "sense",
        "agentsense.sense.leakage.blind_test:blind",
        "Blind test: MCQs answered before any interaction, on the scenes that have MCQs.",
        (
            *simulation_arguments(leave_out=("max_messages",)),  # no conversation
            Argument("epochs", int, 3, "times each question is asked (the paper: 3)"),
        ),
        TaskRoles(fallback=(CHARACTER_ROLE,)),
        "blind",
    ),
    TaskRow(
        "script_prediction",
        "sense",
        "agentsense.sense.leakage.script_prediction:script_prediction",
        "Script prediction: the model names the script each scenario's background comes from.",
        (
            Argument(
                "dataset",
                str,
                "official",
                "`official`, `official_roles`, `demo` (its invented titles are bundled), or the "
                "path of a JSONL file (e.g. `agentsense scenarios` output, whose records carry "
                "`source`)",
            ),
            Argument(
                "titles",
                str | None,
                None,
                'a JSON file `{"<template_idx>": "<title>" or [titles]}`; overrides the records\' '
                "`source` for the templates it names",
            ),
            *pick(SIMULATION, "shard"),
            Argument(
                "per_template",
                int | None,
                1,
                "scenes asked per template (the paper: 1); `None` asks every scene",
            ),
            Argument(
                "temperature", float, 0.0, "the answering model's temperature (greedy by default)"
            ),
            *pick(SIMULATION, "max_tokens"),
        ),
        TaskRoles(),  # the evaluated model answers
        "script_prediction",
    ),
    TaskRow(
        "labelling",
        "construction",
        "agentsense.construction.labelling_task:labelling",
        "Label goal categories, scenario types and sender/receiver roles with a model.",
        (
            *pick(SIMULATION, "dataset"),
            Argument("max_tokens", int, 512, "per labelling call (the replies are JSON objects)"),
        ),
        TaskRoles(required=(LABELLER_ROLE,)),
        "labelling",
    ),
    TaskRow(
        "judge_check",
        "sense",
        "agentsense.sense.judge_check:judge_check",
        "Judge meta-evaluation on transcripts whose yes/no truth is known by construction.",
        (
            Argument(
                "dataset",
                str,
                "demo",
                "the bundled transcripts (default), or the path of a JSONL file of items",
            ),
            *pick(SIMULATION, "protocol", "judge_temperature", "max_tokens"),
        ),
        TaskRoles(fallback=(JUDGE_ROLE,)),
        "judge_check",
        unit="items",
    ),
    TaskRow(
        "construct",
        "construction",
        "agentsense.construction.construct_task:construct",
        "Build scenario templates and scenarios from screenplays (one sample per script).",
        (
            Argument(
                "scripts",
                str,
                "bundled",
                "a screenplay file (Fountain, plain text, or an IMSDb page as served) or a folder "
                "of them; `bundled` is the original demo script that ships with the package",
            ),
            Argument(
                "scenarios_per_template",
                int,
                5,
                "agent sets per template, i.e. scenarios per template (the paper: 5)",
            ),
            Argument(
                "min_dialogues", int, 10, "scenes with fewer speeches are dropped (the paper: 10)"
            ),
            Argument(
                "options",
                int,
                4,
                "options per MCQ, 2 to 4 (the paper: 4; Prompts 9-10 make 3 negatives)",
            ),
            Argument(
                "seed",
                int,
                19260817,
                "sampling seed of every call (the official scripts') and of the MCQ option order",
            ),
            Argument(
                "division",
                Literal["headings", "model"],
                "headings",
                "`headings` (episodes at the script's scene headings) or `model` (Prompt 1)",
            ),
            Argument(
                "goal_passes",
                int,
                1,
                "Prompt-6 passes over the goals (the paper: 1; the official code: 2)",
            ),
            Argument("max_repairs", int, 2, "repair requests per call before the item is dropped"),
            Argument(
                "temperature",
                float,
                0.0,
                "the builder's sampling temperature (the official scripts: 0)",
            ),
            Argument("max_tokens", int, 4096, "per construction call"),
        ),
        TaskRoles(fallback=(BUILDER_ROLE,)),
        "construct",
        unit="scripts",
    ),
    TaskRow(
        "gca",
        "coser",
        "agentsense.coser.task:gca",
        "Given-Circumstance Acting: simulate each scene, then CoSER's four penalty-based critics.",
        (
            Argument(
                "dataset",
                str,
                "official",
                "`official` (CoSER's 200 test scenes), `example` (its 3), `demo` (3 scenes "
                "written for this project), or the path of a JSON file in CoSER's schema",
            ),
            Argument(
                "seed",
                int,
                0,
                "seeds the Environment's role phrase, the profile separator and the next-speaker "
                "fallback per scene and epoch",
            ),
            Argument("max_rounds", int, 20, "messages at most (CoSER: 20)"),
            Argument(
                "continue_from",
                int,
                0,
                "the first k messages are the book's (docs/gca.md, ambiguity 7)",
            ),
            Argument(
                "thoughts",
                bool,
                True,
                "ask actors for `[thought]`s; false is CoSER's `--wo_thought`",
            ),
            Argument(
                "output_example",
                bool,
                True,
                "the thought/action example in the actor prompt (CoSER drops it for "
                "CoSER-trained actors)",
            ),
            Argument(
                "next_speaker_prompt",
                Literal["feb2025", "head"],
                "feb2025",
                "`feb2025` (the paper's code) or `head` (the Dec-2025 prompt and parser)",
            ),
            Argument("temperature", float, 0.0, "actor, Environment and next-speaker temperature"),
            Argument("max_tokens", int, 512, "per actor, Environment and next-speaker call"),
            Argument("critic_max_tokens", int, 8196, "per critic call"),
            Argument(
                "critic_attempts",
                int,
                6,
                "critic tries per dimension before it counts as unreadable",
            ),
        ),
        TaskRoles(fallback=(CHARACTER_ROLE, ENVIRONMENT_ROLE, NEXT_SPEAKER_ROLE, CRITIC_ROLE)),
        "gca",
    ),
)

ROWS: Mapping[str, TaskRow] = {row.name: row for row in TASKS}
TASK_ROLES: Mapping[str, TaskRoles] = {row.name: row.roles for row in TASKS}
SIMULATION_TASKS = tuple(row.name for row in TASKS if row.log_kind in ("scenes", "blind"))


def entry(row: TaskRow) -> Callable[..., Task]:
    module, _, function = row.entry.partition(":")
    return getattr(importlib.import_module(module), function)  # type: ignore[no-any-return]


def signature(row: TaskRow) -> inspect.Signature:
    """The row's arguments as a signature, plus a catch-all: Inspect hands every `-T` name to a
    task that takes `**kwargs`, so a mistyped one reaches the task and is refused by name."""
    parameters = [
        inspect.Parameter(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=a.default)
        for a in row.arguments
    ]
    catch_all = inspect.Parameter("unknown", inspect.Parameter.VAR_KEYWORD)
    return inspect.Signature([*parameters, catch_all], return_annotation=Task)


def registered(name: str) -> Callable[..., Task]:
    """The `@task` of the row `name`: checks its arguments and roles, then builds the task."""
    row = ROWS[name]

    def build(*args: Any, **kwargs: Any) -> Task:
        from agentsense.engine.strict import checked_build  # what building needs, not listing

        values = signature(row).bind(*args, **kwargs)
        values.apply_defaults()
        unknown = values.arguments.pop("unknown", {})
        given = {**values.arguments, **unknown}
        return checked_build(row.name, row.names, TASK_ROLES, entry(row), given)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = row.summary
    build.__module__ = __name__
    build.__signature__ = signature(row)  # type: ignore[attr-defined]
    build.__annotations__ = {a.name: a.kind for a in row.arguments} | {"return": Task}
    return task(name=name)(build)


goal = registered("goal")
info = registered("info")
full = registered("full")
pairwise = registered("pairwise")
blind = registered("blind")
judge_check = registered("judge_check")
script_prediction = registered("script_prediction")
labelling = registered("labelling")
construct = registered("construct")
gca = registered("gca")

__all__ = sorted(row.name for row in TASKS)
