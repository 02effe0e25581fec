"""Shared log fixtures (a pytest plugin, see conftest.py): one small log of each AgentSense task
kind, built in-process with the stand-in models, and each of them re-judged with
`inspect_ai.score(..., action="append")` as `inspect score --action append` does. Each log is
built once per test run, by whichever xdist worker asks first, and shared read-only by all
(shared_builds.py): copy a log before changing it.

Every conversation task runs the same scenes (two templates of two scenes each, all with MCQs)
with the same model, protocol and judges, so any subset of the logs is one comparable report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval, score
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Scorer

from agentsense.tasks import TASKS
from shared_builds import SharedBuilds

# The tasks' logs every report test reads, from the task table: the simulated scenes (and the
# blind test and labels beside them), and the logs that are not model runs.
KINDS = tuple(
    r.name for r in TASKS if r.log_kind in ("homogeneous", "pairwise", "blind", "labelling")
)
AGENT = "standin/persona/agent"
JUDGES = ["standin/persona/judge-a", "standin/persona/judge-b"]
REJUDGE = ["standin/persona/judge-c"]
SENDER, RECEIVER = "standin/persona/s", "standin/persona/r"
SCENES = [101, 102, 301, 302]  # templates 1 and 3, two scenes each, all with MCQs
MAX_MESSAGES = 3


def labeller() -> Model:
    """A scripted labeller: every scene small society, every goal Cooperation, everyone a sender."""
    from agentsense.construction.labelling import first_json_object

    def reply(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompt = input[-1].text
        if "three types" in prompt:
            text = 'Sure. {"type": "Small Society"}'
        elif "eight categories" in prompt:
            count = len(re.findall(r"^\d+\. ", prompt, flags=re.MULTILINE))
            text = json.dumps({str(i): "cooperation" for i in range(1, count + 1)})
        else:
            text = (
                "```json\n"
                + json.dumps(dict.fromkeys(first_json_object(prompt) or {}, "Sender"))
                + "\n```"
            )
        output = ModelOutput.from_content(model="labeller", content=text)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return get_model("mockllm/model", custom_outputs=reply)


def kind_task(kind: str, **args: Any) -> tuple[Task, dict[str, Any]]:
    """The task of one kind on the demo data, and the model roles it runs with."""
    from agentsense.tasks import blind, full, goal, info, labelling, pairwise

    judged = {"judge": JUDGES}
    talk = {"dataset": "demo", "max_messages": MAX_MESSAGES, **args}
    makers: dict[str, Callable[[], tuple[Task, dict[str, Any]]]] = {
        "full": lambda: (full(**talk), judged),
        "goal": lambda: (goal(**talk), judged),
        "info": lambda: (info(**talk), {}),
        "pairwise": lambda: (
            pairwise(**talk),
            {**judged, "sender": SENDER, "receiver": RECEIVER},
        ),
        "blind": lambda: (blind(dataset="demo", epochs=1, **args), {}),
        "labelling": lambda: (labelling(dataset="demo", **args), {"labeller": labeller()}),
    }
    return makers[kind]()


def run_kind(kind: str, log_dir: Path, **options: Any) -> Path:
    """Run one kind in-process (options: `sample_id`, `limit`, ... of `inspect_ai.eval`)."""
    task, roles = kind_task(kind)
    options.setdefault("sample_id", None if "limit" in options else SCENES)
    (log,) = eval(
        task, model=AGENT, model_roles=roles, log_dir=str(log_dir), display="none", **options
    )
    assert log.status == "success", log.error
    return Path(log.location)


def rejudge_scorer(kind: str) -> tuple[Scorer, dict[str, Any]]:
    """The scorer a user would re-run on a log of this kind, and the roles to re-run it with."""
    from agentsense.construction import label_agreement
    from agentsense.sense import blind_mcq, goal_completion, mcq_accuracy

    if kind in ("full", "goal", "pairwise"):
        return goal_completion(), {"judge": REJUDGE}
    scorers = {"info": mcq_accuracy, "blind": blind_mcq, "labelling": label_agreement}
    return scorers[kind](), {}


def rejudge(path: Path, kind: str, out: Path) -> Path:
    """A copy of the log with one more scoring appended (`inspect score --action append`)."""
    scorer, roles = rejudge_scorer(kind)
    scored = score(
        read_eval_log(str(path)), scorer, model_roles=roles or None, action="append", display="none"
    )
    write_eval_log(scored, str(out))
    return out


@pytest.fixture(scope="session")
def kind_logs(shared_build: SharedBuilds) -> Mapping[str, Path]:
    """kind -> the path of one small log of that kind (each in its own folder; built when used)."""
    return shared_build.each("kind", {kind: partial(run_kind, kind) for kind in KINDS})


@pytest.fixture(scope="session")
def rejudged_logs(kind_logs: Mapping[str, Path], shared_build: SharedBuilds) -> Mapping[str, Path]:
    """kind -> a re-judged copy of its log (goal kinds: another judge panel)."""

    def rejudged(kind: str) -> Callable[[Path], Path]:
        return lambda folder: rejudge(kind_logs[kind], kind, folder / f"{kind}-rejudged.eval")

    return shared_build.each("rejudged", {kind: rejudged(kind) for kind in KINDS})


# --- the logs that are not model runs (the report has a section for each) ------------------------

OTHER_KINDS = tuple(
    r.name for r in TASKS if r.log_kind in ("judge_check", "construct", "gca", "sotopia")
)
JUDGE_PANEL = ["standin/yes/always", "standin/keyword/naive", "standin/persona/judge-a"]
GCA_ROLES = {
    "next_speaker": "standin/gca/nsp",
    "environment": "standin/gca/env",
    "critic": "standin/gca/critic",
}

SOTOPIA_ROLES = {"judge": "standin/persona/sotopia-judge"}


def run_other_kind(kind: str, log_dir: Path) -> Path:
    """One log of judge_check (a three-judge panel), construct (a messy builder, so items are
    dropped), gca (CoSER's demo scenes) or sotopia (its demo episodes), with the stand-in
    models."""
    from agentsense.tasks import construct, gca, judge_check, sotopia

    runs: dict[str, Callable[[], tuple[Task, str, dict[str, Any]]]] = {
        "judge_check": lambda: (judge_check(), "none", {"judge": JUDGE_PANEL}),
        "construct": lambda: (construct(), "standin/messy/builder", {}),
        "gca": lambda: (gca(dataset="demo"), "standin/gca/actor", GCA_ROLES),
        "sotopia": lambda: (sotopia(max_turns=6), "standin/persona/agent", SOTOPIA_ROLES),
    }
    task, model, roles = runs[kind]()
    (log,) = eval(task, model=model, model_roles=roles, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.fixture(scope="session")
def other_logs(shared_build: SharedBuilds) -> Mapping[str, Path]:
    """kind -> one small log of judge_check, construct and gca."""
    return shared_build.each("other", {k: partial(run_other_kind, k) for k in OTHER_KINDS})
