"""The parts of `agentsense/construct` (the task is `construction/construct_task.py`): its scripts,
read and checked before any model call, one sample per script, the solver that runs the
construction pipeline (`build.Pipeline`) with the model bound to the role `builder`, its store, and
the scorer and metric of the stage-by-stage counts."""

from __future__ import annotations

import json
import logging
import re
from importlib import resources
from pathlib import Path

from inspect_ai.dataset import Sample
from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, store_as
from pydantic import Field

from agentsense.construction import COUNT_KEYS
from agentsense.construction.build import BuildResult, BuildSettings, Pipeline
from agentsense.construction.repair import Asker, Ledger
from agentsense.construction.screenplay import (
    EXPECTED,
    Screenplay,
    ScriptError,
    decode,
    parse_script,
    read_screenplay,
    script_files,
)
from agentsense.construction.screenplay_scenes import has_interaction
from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.roles import BUILDER_ROLE

logger = logging.getLogger(__name__)

BUNDLED = "bundled"


def bundled_script() -> Path:
    """The original demo screenplay that ships with the package ("Closing Time")."""
    return Path(str(resources.files("agentsense.construction") / "data" / "closing-time.txt"))


def slug(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", Path(path).stem.lower()).strip("-") or "script"


def read_scripts(scripts: str) -> list[Screenplay]:
    """The scripts of `-T scripts=...`, checked before any model call (every problem at once)."""
    return checked_scripts(scripts)[0]


def checked_scripts(scripts: str) -> tuple[list[Screenplay], dict[str, str]]:
    """The readable scripts, and those dropped because too many of their lines are unaccounted
    (file name -> reason); an unreadable script, or none left, stops the run."""
    path = bundled_script() if scripts == BUNDLED else Path(scripts).expanduser()
    files = script_files(path)
    if not files:
        found = "nothing at that path" if not path.exists() else "no script file in that folder"
        raise PrerequisiteError(
            f"-T scripts={scripts}: {found}; expected a screenplay file or a folder of them "
            f"(.txt, .fountain, ...), or 'bundled' for the demo script."
        )
    plays, problems, dropped = [], [], {}
    for file in files:
        try:
            play = read_screenplay(file)
        except ScriptError as error:
            problems.append(str(error))
            continue
        if not has_interaction(play.elements):
            problems.append(
                f"{file}: no scene in which two characters speak at least twice each; "
                f"expected {EXPECTED}."
            )
            continue
        if reason := play.account.problem():
            dropped[file.name] = reason
            logger.warning(f"agentsense/construct: {file} dropped: {reason}")
            continue
        plays.append(play)
    if not plays and not problems:
        problems = [f"{name}: dropped: {reason}" for name, reason in dropped.items()]
    problems += _same_ids(plays)
    if problems:
        raise PrerequisiteError("Cannot build from -T scripts=...:\n" + "\n".join(problems))
    return plays, dropped


def _same_ids(plays: list[Screenplay]) -> list[str]:
    """Scripts whose names give one sample (and template) id: `lift.txt` and `lift.fountain`."""
    by_id: dict[str, list[str]] = {}
    for play in plays:
        by_id.setdefault(slug(play.path), []).append(play.path)
    return [
        f"{', '.join(paths)}: one id ({name}) for {len(paths)} scripts; rename all but one."
        for name, paths in by_id.items()
        if len(paths) > 1
    ]


def script_sample(play: Screenplay) -> Sample:
    text = decode(Path(play.path), Path(play.path).read_bytes())
    return Sample(
        id=slug(play.path),
        input=f"Build AgentSense scenarios from {play.title!r} ({Path(play.path).name}).",
        metadata={
            "script": Path(play.path).name,
            "title": play.title,
            "format": play.format,
            "text": text,
        },
    )


class BuildStore(StoreModel):
    result: dict[str, object] = Field(default_factory=dict)


@solver
def build_scenarios(settings: BuildSettings, temperature: float, max_tokens: int) -> Solver:
    config = GenerateConfig(temperature=temperature, seed=settings.seed, max_tokens=max_tokens)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        # Unbound, the evaluated model builds: construction has no grader to keep apart.
        builder = get_model(role=BUILDER_ROLE, default=get_model())
        asker = Asker(builder, config, settings.max_repairs, Ledger())
        reading = parse_script(str(state.metadata["text"]), str(state.metadata["script"]))
        script, title = str(state.metadata["script"]), str(state.metadata["title"])
        pipeline = Pipeline(asker, settings, script, str(state.sample_id), title)
        pipeline.result.lines = reading.account
        result = await pipeline.run(reading.elements)
        store_as(BuildStore).result = result.model_dump(mode="json")
        state.output = ModelOutput.from_content(
            model=str(builder), content=json.dumps(result.counts())
        )
        return state

    return solve


def counts_scorer() -> Scorer:
    """Stage-by-stage counts of the build (summed over scripts); drops are in the metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        result = BuildResult.model_validate(store_as(BuildStore).result)
        counts = result.counts()
        return Score(
            value={key: counts[key] for key in COUNT_KEYS},  # type: ignore[arg-type]
            metadata={
                "counts": counts,
                "lines": result.lines.model_dump(),
                "drops": [d.model_dump() for d in result.ledger.drops],
            },
        )

    return score
