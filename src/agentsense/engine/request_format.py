"""Say when a run cannot send the paper's request format, and how to get it.

The official code sends every earlier utterance as its own `user` message (docs/protocol.md §3).
Some Inspect providers merge consecutive messages of the same role into one before sending
(`vllm/`, `sglang/`, `hf/`, and `smollm/`, which runs on `hf/`); `openai-api/` sends them as
they are. In official mode that changes every request after the first turn, silently, so each
task run warns once on the console (`console.warn`) and in the transcript of each of its samples
(Inspect keeps no task-level log records), naming the models and the parity path:
`openai-api/vllm/<model>` talks to the same server (`VLLM_BASE_URL`) without merging. The hook is
registered when an AgentSense task is built (`engine/strict.py`), not when Inspect loads the
package, so other benchmarks' runs neither list nor call it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from inspect_ai.hooks import Hooks, SampleStart, TaskEnd, TaskStart, hooks
from inspect_ai.log import EvalSpec, transcript

from agentsense.engine.console import warn
from agentsense.engine.roles import TASK_PREFIX, RoleTable, TaskRoles, own_roles

# Providers whose ModelAPI.collapse_user_messages() is true (tests/test_request_format.py).
MERGING_PROVIDERS = ("vllm", "sglang", "hf", "smollm")


# The roles of every task, given when the hook is registered (`strict.console_warnings`): the
# warning names only the models a task calls, not another benchmark's judge bound to it too.
ROLE_TABLE: dict[str, TaskRoles] = {}


def use_role_table(table: RoleTable) -> None:
    ROLE_TABLE.update(table)


def provider(model: str) -> str:
    return model.split("/", 1)[0]


def role_models(model_roles: Mapping[str, Any] | None) -> Iterable[tuple[str, str]]:
    """(role, model name) for every model bound to a role (a list binds several)."""
    for role, bound in (model_roles or {}).items():
        for config in bound if isinstance(bound, list) else [bound]:
            yield role, str(getattr(config, "model", config))


def merging_models(model: str, model_roles: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """(who, model) for every model of the run whose provider merges same-role messages."""
    models = [("--model", model), *((f"role {r}", m) for r, m in role_models(model_roles))]
    return [(who, name) for who, name in models if provider(name) in MERGING_PROVIDERS]


def merging_warning(merging: list[tuple[str, str]]) -> str:
    listed = ", ".join(f"{name} ({who})" for who, name in merging)
    return (
        f"AgentSense official mode: {listed} merge(s) consecutive same-role messages into one, "
        "so requests differ from the official code's (one message per utterance) and scores may "
        "not be comparable with the paper. For the paper's request format against the same "
        "server, use the openai-api/ provider: --model openai-api/vllm/<model> (and "
        "--model-role judge=openai-api/vllm/<model>), which reads the same VLLM_BASE_URL; set "
        "VLLM_API_KEY too (any value if the server has no key)."
    )


def task_warning(spec: EvalSpec, table: RoleTable | None = None) -> str | None:
    """The warning for an AgentSense task run in official mode with a merging provider, naming
    the models of the roles the task uses (`table`: every task's; default `ROLE_TABLE`)."""
    if not spec.task.startswith(TASK_PREFIX):
        return None
    protocol = (spec.metadata or {}).get("protocol") or {}
    if protocol.get("mode") != "official":
        return None
    roles = own_roles(ROLE_TABLE if table is None else table, spec.task, spec.model_roles or {})
    merging = merging_models(spec.model, roles)
    return merging_warning(merging) if merging else None


# Not mutated (docs/testing.md): Inspect makes the hook on import, before mutmut's trampolines
# exist; its rule is `task_warning`.
@hooks(name="agentsense_request_format", description="Warns when a provider merges messages.")
class RequestFormatCheck(Hooks):  # pragma: no mutate block
    def __init__(self) -> None:
        self.warnings: dict[str, str] = {}  # eval id -> warning, while the task runs

    async def on_task_start(self, data: TaskStart) -> None:
        warning = task_warning(data.spec)
        if warning:
            self.warnings[data.eval_id] = warning
            warn(warning)

    async def on_sample_start(self, data: SampleStart) -> None:
        if data.eval_id in self.warnings:
            transcript().info(self.warnings[data.eval_id])

    async def on_task_end(self, data: TaskEnd) -> None:
        self.warnings.pop(data.eval_id, None)
