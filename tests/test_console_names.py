"""Every score and metric name of every task is printed whole and distinct on an 80-column console.

Inspect's console prints the results as blocks of four scores a row, each block a score name over
`metric value` lines; a row wider than the terminal gets its names cut to `agentsen…`. So the names
are short, and no task logs a package metric per score key (those print as `agentsense/<name>`):
PSI and template means are one metric over the whole score, printed as the scorer's block with
its own keys (`judge_majority_psi`). The rule is checked on every task's declared scores
(`agentsense.logged_metrics`) with panels of 1 to 6 judges; the slow test reads what the
real `inspect eval` prints at COLUMNS=80.
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

from agentsense.coser import CRITIC_KEYS
from agentsense.logged_metrics import LOGGED_METRICS

INSPECT = str(Path(sys.executable).with_name("inspect"))
WIDTH = 80
PER_ROW = 4  # Inspect's results grid
GAP = 2  # between two blocks of a row
CELL_GAP = 2  # between a metric's name and its value
PANEL_EDGE = 4  # `inspect score`'s panel: its border and padding
PANEL_PAD = 2  # and a column each side of every block

Block = tuple[str, Sequence[str]]  # a score name and its metric names


def fits(
    blocks: Sequence[Block], value_width: int, width: int = WIDTH, panel: bool = False
) -> bool:
    """Whether every row of blocks fits `width` with no name cut: each block as wide as its widest
    name plus a value of `value_width` characters (checked against Inspect's rendering by hand:
    rich cuts a row's names exactly when this sum exceeds the width). `panel`: as `inspect score`
    draws them, in a bordered panel with a column of padding each side of every block."""
    for start in range(0, len(blocks), PER_ROW):
        row = blocks[start : start + PER_ROW]
        widths = [
            max(len(n) for n in (name, *metrics)) + CELL_GAP + value_width for name, metrics in row
        ]
        edges = PANEL_PAD * len(row) + PANEL_EDGE if panel else 0
        if sum(widths) + GAP * (len(row) - 1) + edges > width:
            return False
    return True


def judged(name: str, judges: int) -> list[str]:
    """A declared name with `*` as each judge's number (the name itself when it has none)."""
    return [name.replace("*", str(i)) for i in range(1, judges + 1)] if "*" in name else [name]


def declared_blocks(task: str, judges: int) -> list[Block]:
    """A task's declared scores as the console prints them with a panel of `judges`."""
    return [
        (name, [each for metric in score.metrics for each in judged(metric, judges)])
        for score in LOGGED_METRICS[task]
        for name in judged(score.name, judges)
    ]


# The widest value each task prints: proportions 0.xxx; CoSER's 0-100 scores 100.000; the counts.
VALUE_WIDTHS = {"gca": 7, "construct": 9}


def test_the_rule_catches_the_old_names() -> None:
    old = ("mean", "stderr", "ci_lower", "ci_upper", "agentsense/template_mean", "agentsense/psi")
    keys = ["self", "other", "judge_1", "judge_2", "judge_3", "judge_mean", "judge_majority"]
    assert not fits([(key, old) for key in keys], value_width=5)
    gca_old = ["storyline_consistency", "anthropomorphism", "character_fidelity"]
    assert not fits([(k, ("mean", "stderr")) for k in gca_old], value_width=6)


@pytest.mark.parametrize("judges", range(1, 7))
@pytest.mark.parametrize("task", sorted(LOGGED_METRICS))
def test_every_tasks_scores_fit_with_any_panel(task: str, judges: int) -> None:
    assert fits(declared_blocks(task, judges), value_width=VALUE_WIDTHS.get(task, 5))


def test_the_critics_scorer_fits() -> None:
    """`agentsense/critics`, appended to a conversation log with `inspect score`."""
    assert fits([(key, ("mean", "stderr")) for key in CRITIC_KEYS], value_width=7)


def appended(task: str, scorer: str, judges: int, appended_judges: int) -> list[Block]:
    """A log of `task` with `scorer` appended (`inspect score --action append`), as printed."""
    again = declared_blocks(task, appended_judges)
    (name, metrics), rest = again[0], again[1:]
    assert name == scorer
    return [*declared_blocks(task, judges), (f"{scorer}1", metrics), *rest]


def test_inspect_score_shows_stacked_goal_scorings_whole_at_100_columns_only() -> None:
    """Inspect's own layout: four scores a row across scorings, in a panel with 62 columns of
    room at 80. `judge_mean` and `judge_majority` take 38 of them, so no row holding them and
    two other scores fits; stacked scorings put them in such a row (README, "inspect score")."""
    stacked = appended("goal", "goal_completion", judges=2, appended_judges=1)
    assert fits(stacked, value_width=5, width=100, panel=True)
    assert not fits(stacked, value_width=5, panel=True)
    row = [(key, ("mean", "stderr")) for key in ("judge_mean", "judge_majority", "self", "other")]
    assert not fits(row, value_width=5, panel=True)


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
    "sotopia": ("-T", "dataset=demo", "--limit", "2", "--model", STANDIN, "--model-role", JUDGES),
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
    # A score name may repeat (info: the scorer `mcq_accuracy` over its key), a metric may not.
    pairs = [(score.name, metric) for score in log.results.scores for metric in score.metrics]
    assert len(set(pairs)) == len(pairs)
    assert_every_name_whole(results, log)


def assert_every_name_whole(results: str, log: EvalLog) -> None:
    assert log.results is not None
    for score in log.results.scores:
        assert re.search(rf"(^|\s){re.escape(score.name)}(\s|$)", results, re.MULTILINE), score.name
        for metric in score.metrics:
            assert "/" not in metric, f"{metric}: a package metric's name"
            assert re.search(rf"(^|\s){re.escape(metric)}\s+-?[\d.na]+", results), metric


@pytest.mark.slow
def test_inspect_score_heads_each_scoring_with_its_scorer(
    kind_logs: dict[str, Path], tmp_path: Path
) -> None:
    """`inspect score --action append` on a two-judge goal log: the appended scoring starts with
    its scorer's block (`goal_completion1`), every name whole at the 100 columns Inspect's panel
    needs for it (none suffices at 80: see the rule above)."""
    out = tmp_path / "rejudged.eval"
    command = [
        INSPECT,
        "score",
        str(kind_logs["goal"]),
        "--scorer",
        "agentsense/goal_completion",
        "--action",
        "append",
        "--model-role",
        "judge=standin/persona/judge-c",
        "--output-file",
        str(out),
    ]
    env = {**os.environ, "COLUMNS": "100"}
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    panel = result.stdout[result.stdout.index("Results for") :]
    assert "…" not in panel, panel
    log = read_eval_log(str(out), header_only=True)
    assert log.results is not None
    names = [score.name for score in log.results.scores]
    assert names[0] == "goal_completion" and names.count("goal_completion1") == 1
    assert names.index("judge_2") < names.index("goal_completion1") < len(names) - 1
    assert_every_name_whole(panel, log)
