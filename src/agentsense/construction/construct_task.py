"""`agentsense/construct`: build AgentSense scenarios from screenplays, as the paper did (section
3.2, App. A), with any Inspect model.

One sample per script. The model bound to the role `builder` (else the evaluated model) answers
the paper's construction prompts; every stage is a span, every call is in the log, Inspect's
retries and `--cache` apply, and `inspect eval-retry` finishes an interrupted build. Export the
result with `agentsense scenarios LOG --out scenarios.jsonl`, then evaluate it with
`inspect eval agentsense/full -T dataset=scenarios.jsonl`.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from pydantic import ValidationError

from agentsense.construction.build import BuildSettings, Division
from agentsense.construction.construct_solver import (
    BUNDLED,
    build_counts,
    build_scenarios,
    checked_scripts,
    script_sample,
)
from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.strict import strict_arguments
from agentsense.engine.version import eval_version


@task
@strict_arguments
def construct(
    scripts: str = BUNDLED,
    scenarios_per_template: int = 5,
    min_dialogues: int = 10,
    options: int = 4,
    seed: int = 19260817,
    division: Division = "headings",
    goal_passes: int = 1,
    max_repairs: int = 2,
    temperature: float = 0.0,
    max_tokens: int = 4096,
) -> Task:
    """Build scenario templates and scenarios from screenplays (one sample per script).

    Args:
        scripts: a screenplay file (Fountain, plain text, or an IMSDb page as served) or a
            folder of them; `bundled` is the original demo script that ships with the package
        scenarios_per_template: agent sets per template, i.e. scenarios per template (the paper: 5)
        min_dialogues: scenes with fewer speeches are dropped (the paper: 10)
        options: options per MCQ, 2 to 4 (the paper: 4; Prompts 9-10 make 3 negatives)
        seed: sampling seed of every call (the official scripts') and of the MCQ option order
        division: `headings` (episodes at the script's scene headings) or `model` (Prompt 1)
        goal_passes: Prompt-6 passes over the goals (the paper: 1; the official code: 2)
        max_repairs: repair requests per call before the item is dropped
        temperature: the builder's sampling temperature (the official scripts: 0)
        max_tokens: per construction call
    """
    try:
        settings = BuildSettings(
            scenarios_per_template=scenarios_per_template,
            min_dialogues=min_dialogues,
            options=options,
            seed=seed,
            division=division,
            goal_passes=goal_passes,
            max_repairs=max_repairs,
        )
    except ValidationError as error:
        lines = [f"  -T {e['loc'][0]}={e.get('input')!r}: {e['msg']}" for e in error.errors()]
        raise PrerequisiteError(
            "Invalid agentsense/construct argument(s):\n" + "\n".join(lines)
        ) from None
    plays, dropped = checked_scripts(scripts)
    return Task(
        dataset=MemoryDataset([script_sample(p) for p in plays], name="agentsense-construct"),
        solver=build_scenarios(settings, temperature, max_tokens),
        scorer=build_counts(),
        version=eval_version().comparability_version,
        metadata={
            "construction": settings.model_dump(),
            "scripts": scripts,
            "scripts_dropped": dropped,
            **eval_version().to_metadata(),
        },
    )
