"""`agentsense/construct`: build AgentSense scenarios from screenplays, as the paper did (section
3.2, App. A), with any Inspect model.

One sample per script. The model bound to the role `builder` (else the evaluated model) answers
the paper's construction prompts; every stage is a span, every call is in the log, Inspect's
retries and `--cache` apply, and `inspect eval-retry` finishes an interrupted build. Export the
result with `agentsense scenarios LOG --out scenarios.jsonl`, then evaluate it with
`inspect eval agentsense/full -T dataset=scenarios.jsonl`.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset

from agentsense.construction import build_counts
from agentsense.construction.build import BuildSettings
from agentsense.construction.construct_solver import (
    build_scenarios,
    checked_scripts,
    script_sample,
)
from agentsense.engine.strict import task_settings
from agentsense.engine.version import versioned


def construct(**values: Any) -> Task:
    """Build scenario templates and scenarios from screenplays (one sample per script)."""
    settings = task_settings(BuildSettings, values)
    scripts = values["scripts"]
    plays, dropped = checked_scripts(scripts)
    return Task(
        dataset=MemoryDataset([script_sample(p) for p in plays], name="agentsense-construct"),
        solver=build_scenarios(settings, values["temperature"], values["max_tokens"]),
        scorer=build_counts(),
        **versioned(
            {"construction": settings.model_dump(), "scripts": scripts, "scripts_dropped": dropped}
        ),
    )
