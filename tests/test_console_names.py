"""Every score and metric name of every task is printed whole and distinct on an 80-column console.

Inspect's console prints the results as blocks of four scores a row, each block a score name over
`metric value` lines; a row wider than the terminal gets its names cut to `agentsen…`. So the names
are short, and no task logs a package metric per score key (those print as `agentsense/<name>`).
The slow test reads what the real `inspect eval` prints at COLUMNS=80.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from agentsense.construction.construct_solver import COUNT_KEYS
from agentsense.construction.labelling import AGREEMENT_KEYS
from agentsense.gca.reference_free import CRITIC_KEYS
from agentsense.gca.scorer import SCORE_KEYS as GCA_KEYS

INSPECT = str(Path(sys.executable).with_name("inspect"))
WIDTH = 80
PER_ROW = 4  # Inspect's results grid
GAP = 2  # between two blocks of a row
CELL_GAP = 2  # between a metric's name and its value
SCENE_METRICS = ("mean", "stderr")

Block = tuple[str, Sequence[str]]  # a score name and its metric names


def fits(blocks: Sequence[Block], value_width: int) -> bool:
    """Whether every row of blocks fits WIDTH with no name cut: each block as wide as its widest
    name plus a value of `value_width` characters (checked against Inspect's rendering by hand:
    rich cuts a row's names exactly when this sum exceeds the width)."""
    for start in range(0, len(blocks), PER_ROW):
        row = blocks[start : start + PER_ROW]
        widths = [
            max(len(n) for n in (name, *metrics)) + CELL_GAP + value_width for name, metrics in row
        ]
        if sum(widths) + GAP * (len(row) - 1) > WIDTH:
            return False
    return True


def simulation_blocks(judges: int, mcq: bool = True) -> list[Block]:
    keys = ["self", "other", *(f"judge_{i}" for i in range(1, judges + 1))]
    keys += ["judge_mean", "judge_majority", *(["mcq_accuracy"] if mcq else [])]
    return [(key, SCENE_METRICS) for key in keys]


def test_the_rule_catches_the_old_names() -> None:
    old = ("mean", "stderr", "ci_lower", "ci_upper", "agentsense/template_mean", "agentsense/psi")
    assert not fits([(key, old) for key, _ in simulation_blocks(3)], value_width=5)
    gca_old = ["storyline_consistency", "anthropomorphism", "character_fidelity"]
    assert not fits([(k, ("mean", "stderr")) for k in gca_old], value_width=6)


@pytest.mark.parametrize("judges", range(1, 7))
@pytest.mark.parametrize("mcq", [True, False])
def test_simulation_scores_fit_with_any_panel(judges: int, mcq: bool) -> None:
    # Proportions and their bounds print as 0.xxx (5 characters).
    assert fits(simulation_blocks(judges, mcq), value_width=5)


def test_the_other_tasks_scores_fit() -> None:
    # CoSER's scores are 0-100: "100.000" is 7 characters.
    assert fits([(key, ("mean", "stderr")) for key in GCA_KEYS], value_width=7)
    assert fits([(key, ("mean", "stderr")) for key in CRITIC_KEYS], value_width=7)
    assert fits([(key, ("mean",)) for key in AGREEMENT_KEYS], value_width=5)
    # One block each: the counts of construct, the rates of judge_check (per judge).
    assert fits([("build_counts", COUNT_KEYS)], value_width=9)
    rates = ["false_yes_injected_12", "unreadable_12"]
    assert fits([("judge_verdicts", rates)], value_width=5)


# --- the real console -------------------------------------------------------------------------

STANDIN = "standin/persona/agent"
JUDGES = "judge=standin/persona/judge-a,standin/persona/judge-b"
DEMO = ("-T", "dataset=demo", "--limit", "4")
GCA_ROLES = (
    "--model-role",
    "next_speaker=standin/gca/nsp",
    "--model-role",
    "environment=standin/gca/env",
    "--model-role",
    "critic=standin/gca/critic",
)
RUNS: dict[str, tuple[str, ...]] = {
    "full": (*DEMO, "--model", STANDIN, "--model-role", JUDGES),
    "goal": (*DEMO, "--model", STANDIN, "--model-role", JUDGES),
    "info": (*DEMO, "--model", STANDIN),
    "pairwise": (*DEMO, "--model", STANDIN, "--model-role", JUDGES),
    "blind": (*DEMO, "--model", STANDIN),
    "script_prediction": (*DEMO, "--model", STANDIN),
    "judge_check": ("--limit", "8", "--model", STANDIN, "--model-role", JUDGES),
    "labelling": (*DEMO, "--model", STANDIN, "--model-role", "labeller=standin/persona/l"),
    "construct": ("--model", "standin/persona/builder"),
    "gca": ("-T", "dataset=demo", "--limit", "1", "--model", "standin/gca/actor", *GCA_ROLES),
}


def console(task: str, log_dir: Path) -> tuple[str, EvalLog]:
    """What `inspect eval` prints at 80 columns (default display, as in a CI log), and the log."""
    env = {**os.environ, "COLUMNS": str(WIDTH)}
    command = [INSPECT, "eval", f"agentsense/{task}", *RUNS[task], "--log-dir", str(log_dir)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (log,) = list_eval_logs(str(log_dir))
    return result.stdout, read_eval_log(log, header_only=True)


def test_every_task_has_a_console_run() -> None:
    import agentsense

    assert sorted(RUNS) == sorted(agentsense.__all__)


@pytest.mark.slow
@pytest.mark.parametrize("task", sorted(RUNS))
def test_the_console_prints_every_name_whole(task: str, tmp_path: Path) -> None:
    printed, log = console(task, tmp_path)
    assert log.results is not None and log.results.scores
    results = printed[printed.index("total time:") : printed.rindex("Log:")]
    assert "…" not in results, results
    names = [score.name for score in log.results.scores]
    assert len(set(names)) == len(names)
    for score in log.results.scores:
        assert re.search(rf"(^|\s){re.escape(score.name)}(\s|$)", results, re.MULTILINE), score.name
        for metric in score.metrics:
            assert re.search(rf"(^|\s){re.escape(metric)}\s+-?[\d.na]+", results), metric
