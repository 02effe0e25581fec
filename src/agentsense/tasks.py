"""The one table of tasks: each task's name, benchmark, entry, roles, log kind, sample unit and
the meaning of its own arguments, declared once, and its `@task` signature beside it.

Inspect finds `agentsense/NAME` in its registry, so every task is registered here. Its signature
is what Inspect and inspect-evals-lint read for `-T` (tests/test_tasks.py holds it to the row and
to `TaskArguments`); `from_table` checks the arguments and roles and imports the benchmark's
entry only when the task is built, so that listing or resolving a task loads no benchmark code.
`agentsense args`, the generated docs sections, the role checks, the eval.yaml check, the
report's dispatch by log kind and the tests' task matrix all read this table.
docs/adding-a-task.md shows how a task is added.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, ParamSpec

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
from agentsense.sense.protocol import Mode, OptionMark, TaskArguments, cli_names

P = ParamSpec("P")
Benchmark = Literal["sense", "coser", "construction", "sotopia"]
# How the report reads a task's log: as a model run on scenes (`analysis.log_reader`: the
# homogeneous and pairwise simulations, the blind test, labels, script prediction), or in a
# section of its own (the judge check, construction, GCA: `report.other_logs`).
LogKind = Literal[
    "homogeneous",
    "pairwise",
    "blind",
    "labelling",
    "script",
    "judge_check",
    "construct",
    "gca",
    "sotopia",
]


@dataclass(frozen=True)
class Argument:
    """One `-T` argument: its name, type, default and meaning (`agentsense args`, the docs)."""

    name: str
    kind: Any
    default: Any
    doc: str


@dataclass(frozen=True)
class TaskRow:
    name: str
    benchmark: Benchmark
    entry: str  # module:function that builds the Task from the arguments (keywords)
    roles: TaskRoles
    log_kind: LogKind
    unit: str = "scenes"  # what one sample of its log is
    # The optional extra the task needs beyond the core (engine/extras.py), checked first.
    extra: str | None = None
    # The meaning of each argument that is not one of `TaskArguments` (whose fields say theirs),
    # or that means something else here.
    docs: Mapping[str, str] = field(default_factory=dict)


TASKS: tuple[TaskRow, ...] = (
    TaskRow(
        "goal",
        "sense",
        "agentsense.sense.tasks:goal",
        TaskRoles(fallback=(CHARACTER_ROLE, JUDGE_ROLE)),
        "homogeneous",
    ),
    TaskRow(
        "info",
        "sense",
        "agentsense.sense.tasks:info",
        TaskRoles(fallback=(CHARACTER_ROLE,)),
        "homogeneous",
    ),
    TaskRow(
        "full",
        "sense",
        "agentsense.sense.tasks:full",
        TaskRoles(fallback=(CHARACTER_ROLE, JUDGE_ROLE)),
        "homogeneous",
    ),
    TaskRow(
        "pairwise",
        "sense",
        "agentsense.sense.tasks:pairwise",
        # every character is a sender or a receiver, so `character` plays nobody here
        TaskRoles(fallback=(SENDER_ROLE, RECEIVER_ROLE, JUDGE_ROLE)),
        "pairwise",
        docs={
            "sender": "model for the role `sender` (default: `--model-role sender=...`, else the "
            "evaluated model)",
            "receiver": "model for the role `receiver` (same fallbacks)",
        },
    ),
    TaskRow(
        "blind",
        "sense",
        "agentsense.sense.leakage.blind_test:blind",
        TaskRoles(fallback=(CHARACTER_ROLE,)),
        "blind",
        docs={"epochs": "times each question is asked (the paper: 3)"},
    ),
    TaskRow(
        "labelling",
        "construction",
        "agentsense.construction.labelling_task:labelling",
        TaskRoles(required=(LABELLER_ROLE,)),
        "labelling",
        docs={"max_tokens": "per labelling call (the replies are JSON objects)"},
    ),
    TaskRow(
        "script_prediction",
        "sense",
        "agentsense.sense.leakage.script_prediction:script_prediction",
        TaskRoles(),  # the evaluated model answers
        "script",
        docs={
            "dataset": "`official`, `official_roles`, `demo` (its invented titles are bundled), "
            "or the path of a JSONL file (e.g. `agentsense scenarios` output, whose records "
            "carry `source`)",
            "titles": 'a JSON file `{"<template_idx>": "<title>" or [titles]}`; overrides the '
            "records' `source` for the templates it names",
            "per_template": "scenes asked per template (the paper: 1); `None` asks every scene",
            "temperature": "the answering model's temperature (greedy by default)",
        },
    ),
    TaskRow(
        "judge_check",
        "sense",
        "agentsense.sense.judge_check:judge_check",
        TaskRoles(fallback=(JUDGE_ROLE,)),
        "judge_check",
        unit="items",
        docs={"dataset": "the bundled transcripts (default), or the path of a JSONL file of items"},
    ),
    TaskRow(
        "construct",
        "construction",
        "agentsense.construction.construct_task:construct",
        TaskRoles(fallback=(BUILDER_ROLE,)),
        "construct",
        unit="scripts",
        docs={
            "scripts": "a screenplay file (Fountain, plain text, or an IMSDb page as served) or "
            "a folder of them; `bundled` is the original demo script that ships with the package",
            "scenarios_per_template": "agent sets per template, i.e. scenarios per template "
            "(the paper: 5)",
            "min_dialogues": "scenes with fewer speeches are dropped (the paper: 10)",
            "options": "options per MCQ, 2 to 4 (the paper: 4; Prompts 9-10 make 3 negatives)",
            "seed": "sampling seed of every call (the official scripts') and of the MCQ option "
            "order",
            "division": "`headings` (episodes at the script's scene headings) or `model` "
            "(Prompt 1)",
            "goal_passes": "Prompt-6 passes over the goals (the paper: 1; the official code: 2)",
            "max_repairs": "repair requests per call before the item is dropped",
            "temperature": "the builder's sampling temperature (the official scripts: 0)",
            "max_tokens": "per construction call",
        },
    ),
    TaskRow(
        "gca",
        "coser",
        "agentsense.coser.task:gca",
        TaskRoles(fallback=(CHARACTER_ROLE, ENVIRONMENT_ROLE, NEXT_SPEAKER_ROLE, CRITIC_ROLE)),
        "gca",
        extra="gca",  # BLEU and ROUGE-L
        docs={
            "dataset": "`official` (CoSER's 200 test scenes), `example` (its 3), `demo` (3 "
            "scenes written for this project), or the path of a JSON file in CoSER's schema",
            "seed": "seeds the Environment's role phrase, the profile separator and the "
            "next-speaker fallback per scene and epoch",
            "max_rounds": "messages at most (CoSER: 20)",
            "continue_from": "the first k messages are the book's (docs/gca.md, ambiguity 7)",
            "thoughts": "ask actors for `[thought]`s; false is CoSER's `--wo_thought`",
            "output_example": "the thought/action example in the actor prompt (CoSER drops it "
            "for CoSER-trained actors)",
            "next_speaker_prompt": "`feb2025` (the paper's code) or `head` (the Dec-2025 prompt "
            "and parser)",
            "temperature": "actor, Environment and next-speaker temperature",
            "max_tokens": "per actor, Environment and next-speaker call",
            "critic_max_tokens": "per critic call",
            "critic_attempts": "critic tries per dimension before it counts as unreadable",
        },
    ),
    TaskRow(
        "sotopia",
        "sotopia",
        "agentsense.sotopia.task:sotopia",
        TaskRoles(fallback=(CHARACTER_ROLE, JUDGE_ROLE)),
        "sotopia",
        unit="episodes",
        docs={
            "dataset": "`demo` (10 environments x 2 agent pairs written for this project), "
            "`official` (Sotopia's published episodes, pinned), `sotopia_hard` (their 14 hard "
            "environments), `URL#sha256=HEX`, or a file or folder (docs/sotopia.md §6)",
            "max_turns": "turns at most (sotopia 0.1.5: 20)",
            "max_stale_turns": "the episode ends after more than this many `none` actions in a "
            "row (sotopia 0.1.5: 2)",
            "action_order": "`round-robin` (sotopia's default: agent 1 first) or `simultaneous`",
            "action_types": "the agent prompt's action list, comma-separated: each action type "
            "once, in any order (sotopia 0.1.5's order depends on PYTHONHASHSEED; "
            "docs/sotopia.md says how to read it off a recording)",
            "omniscient": "each agent sees both backgrounds and goals (sotopia: false)",
            "structured": "ask the agents for the AgentAction JSON schema, as sotopia does",
            "temperature": "the agents' temperature (sotopia 0.1.5 sends none)",
            "max_tokens": "per agent call (sotopia 0.1.5 sends none)",
            "judge_temperature": "the judges' temperature (sotopia 0.1.5 sends none)",
            "judge_max_tokens": "per judge call",
        },
    ),
)

ROWS: Mapping[str, TaskRow] = {row.name: row for row in TASKS}
TASK_ROLES: Mapping[str, TaskRoles] = {row.name: row.roles for row in TASKS}
SIMULATION_TASKS = tuple(
    row.name for row in TASKS if row.log_kind in ("homogeneous", "pairwise", "blind")
)
RUN_KINDS = ("homogeneous", "pairwise", "blind", "labelling", "script")  # `analysis.log_reader`


def simulation_docs() -> dict[str, str]:
    """`-T` name -> meaning, from the fields of `TaskArguments`."""
    fields = TaskArguments.model_fields
    return {cli: (fields[name].description or "") for cli, name in cli_names(TaskArguments).items()}


def arguments(name: str) -> tuple[Argument, ...]:
    """The task's arguments as its signature declares them, with their meaning."""
    function = globals()[name]
    hints = typing.get_type_hints(function)
    docs = {**simulation_docs(), **ROWS[name].docs}
    return tuple(
        Argument(n, hints[n], parameter.default, docs[n].rstrip("."))
        for n, parameter in inspect.signature(function).parameters.items()
        if parameter.kind is not inspect.Parameter.VAR_KEYWORD
    )


def entry(row: TaskRow) -> Callable[..., Task]:
    module, _, function = row.entry.partition(":")
    return getattr(importlib.import_module(module), function)  # type: ignore[no-any-return]


def from_table(function: Callable[P, Task]) -> Callable[P, Task]:
    """Build the task of the row named like `function` (put it under `@task`): the arguments as
    Inspect passes them, defaults filled in, go to the row's entry after `checked_build` has
    refused unknown `-T` names and roles. The signature gains a catch-all, since Inspect hands
    every `-T` name only to a task that takes `**kwargs`: a mistyped one then reaches the check
    and is refused by name. `tests/test_tasks.py` holds each signature to its row."""
    row = ROWS[function.__name__]
    declared = inspect.signature(function)

    @functools.wraps(function)
    def build(*args: P.args, **kwargs: P.kwargs) -> Task:
        from agentsense.engine.strict import checked_build  # what building needs, not listing

        if row.extra is not None:  # before the dataset's download and any model call
            from agentsense.engine.extras import require_extra

            require_extra(row.extra, f"agentsense/{row.name}")

        known = {k: v for k, v in kwargs.items() if k in declared.parameters}
        values = declared.bind(*args, **known)
        values.apply_defaults()
        given = {**values.arguments, **kwargs}
        return checked_build(row.name, list(declared.parameters), TASK_ROLES, entry(row), given)

    catch_all = inspect.Parameter("unknown", inspect.Parameter.VAR_KEYWORD)
    build.__signature__ = declared.replace(  # type: ignore[attr-defined]
        parameters=[*declared.parameters.values(), catch_all]
    )
    return build


# Inspect and inspect-evals-lint read a task's arguments from its signature, as written here;
# each is the row's arguments (tests/test_tasks.py), and the body is the row's entry.


@task
@from_table
def goal(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    shard: str | None = None,
    per_template: int | None = None,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
) -> Task:
    """Goal completion on every scene."""
    raise AssertionError("built by from_table")


@task
@from_table
def info(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    shard: str | None = None,
    per_template: int | None = None,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
) -> Task:
    """Private-information MCQ accuracy on the scenes that have MCQs."""
    raise AssertionError("built by from_table")


@task
@from_table
def full(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    shard: str | None = None,
    per_template: int | None = None,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
) -> Task:
    """Goal completion and MCQ accuracy on one conversation per scene."""
    raise AssertionError("built by from_table")


@task
@from_table
def pairwise(
    dataset: str = "official_roles",
    protocol: Mode = "official",
    seed: int = 0,
    shard: str | None = None,
    per_template: int | None = None,
    max_messages: int = 15,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
    sender: str | None = None,
    receiver: str | None = None,
) -> Task:
    """Goal completion and MCQ accuracy with senders and receivers played by different models."""
    raise AssertionError("built by from_table")


@task
@from_table
def blind(
    dataset: str = "official",
    protocol: Mode = "official",
    seed: int = 0,
    shard: str | None = None,
    per_template: int | None = None,
    agent_temperature: float = 1.0,
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
    option_mark: OptionMark = "upper",
    epochs: int = 3,
) -> Task:
    """Blind test: MCQs answered before any interaction, on the scenes that have MCQs."""
    raise AssertionError("built by from_table")


@task
@from_table
def script_prediction(
    dataset: str = "official",
    titles: str | None = None,
    shard: str | None = None,
    per_template: int | None = 1,
    temperature: float = 0.0,
    max_tokens: int = 128,
) -> Task:
    """Script prediction: the model names the script each scenario's background comes from."""
    raise AssertionError("built by from_table")


@task
@from_table
def labelling(dataset: str = "official", max_tokens: int = 512) -> Task:
    """Label goal categories, scenario types and sender/receiver roles with a model."""
    raise AssertionError("built by from_table")


@task
@from_table
def judge_check(
    dataset: str = "demo",
    protocol: Mode = "official",
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
) -> Task:
    """Judge meta-evaluation on transcripts whose yes/no truth is known by construction."""
    raise AssertionError("built by from_table")


@task
@from_table
def construct(
    scripts: str = "bundled",
    scenarios_per_template: int = 5,
    min_dialogues: int = 10,
    options: int = 4,
    seed: int = 19260817,
    division: Literal["headings", "model"] = "headings",
    goal_passes: int = 1,
    max_repairs: int = 2,
    temperature: float = 0.0,
    max_tokens: int = 4096,
) -> Task:
    """Build scenario templates and scenarios from screenplays (one sample per script)."""
    raise AssertionError("built by from_table")


@task
@from_table
def gca(
    dataset: str = "official",
    seed: int = 0,
    max_rounds: int = 20,
    continue_from: int = 0,
    thoughts: bool = True,
    output_example: bool = True,
    next_speaker_prompt: Literal["feb2025", "head"] = "feb2025",
    temperature: float = 0.0,
    max_tokens: int = 512,
    critic_max_tokens: int = 8196,
    critic_attempts: int = 6,
) -> Task:
    """Given-Circumstance Acting: simulate each scene, then CoSER's four penalty-based critics."""
    raise AssertionError("built by from_table")


@task
@from_table
def sotopia(
    dataset: str = "demo",
    max_turns: int = 20,
    max_stale_turns: int = 2,
    action_order: Literal["round-robin", "simultaneous"] = "round-robin",
    action_types: str = "none,speak,non-verbal communication,action,leave",
    omniscient: bool = False,
    structured: bool = True,
    temperature: float | None = None,
    max_tokens: int | None = None,
    judge_temperature: float | None = None,
    judge_max_tokens: int | None = None,
) -> Task:
    """Sotopia episodes between two agents, scored by SOTOPIA-EVAL's seven dimensions."""
    raise AssertionError("built by from_table")


__all__ = sorted(row.name for row in TASKS)
