"""Every task's log holds the metrics `agentsense.logged_metrics` declares, no more, no less,
in the declared order: a real log of every task is read against the declaration. PSI is among
them, a column of `evals_df`, and equal to the report's PSI to the last digit."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.analysis import evals_df
from inspect_ai.log import EvalLog, read_eval_log

import agentsense
from agentsense.cli import main
from agentsense.logged_metrics import (
    BEGIN,
    END,
    LOGGED_METRICS,
    differences,
    section,
)
from agentsense_logs import AGENT, KINDS, OTHER_KINDS

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "usage.md"


@pytest.fixture(scope="module")
def script_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from agentsense.tasks import script_prediction

    log_dir = tmp_path_factory.mktemp("script-prediction")
    (log,) = eval(
        script_prediction(dataset="demo"), model=AGENT, log_dir=str(log_dir), display="none"
    )
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.fixture(scope="module")
def task_logs(
    kind_logs: dict[str, Path], other_logs: dict[str, Path], script_log: Path
) -> dict[str, Path]:
    """task name -> a small real log of it."""
    return {**kind_logs, **other_logs, "script_prediction": script_log}


def scores(log: EvalLog) -> list[tuple[str, list[str]]]:
    assert log.results is not None
    return [(score.name, list(score.metrics)) for score in log.results.scores]


def test_every_task_is_declared_and_has_a_log() -> None:
    assert sorted(LOGGED_METRICS) == sorted(agentsense.__all__)
    assert sorted((*KINDS, *OTHER_KINDS, "script_prediction")) == sorted(agentsense.__all__)


@pytest.mark.parametrize("task", sorted(LOGGED_METRICS))
def test_the_log_holds_what_the_task_declares(task: str, task_logs: dict[str, Path]) -> None:
    log = read_eval_log(str(task_logs[task]), header_only=True)
    assert log.eval.task == f"agentsense/{task}"
    assert differences(task, scores(log)) == []


def test_a_dropped_or_added_metric_is_caught(task_logs: dict[str, Path]) -> None:
    logged = scores(read_eval_log(str(task_logs["full"]), header_only=True))
    (block,) = [metrics for name, metrics in logged if name == "goal_and_mcq"]
    dropped = [(n, [m for m in ms if m != "judge_majority_psi"]) for n, ms in logged]
    assert differences("full", dropped) == [
        "full: goal_and_mcq judge_majority_psi is declared but not logged"
    ]
    assert differences("full", [*logged, ("extra", ["mean"])]) == [
        "full: extra mean is logged but not declared",
        "full: scores logged in the order ['goal_and_mcq', 'self', 'other', 'judge_*', "
        "'judge_mean', 'judge_majority', 'mcq_accuracy', 'extra']",
    ]
    assert "judge_2_psi" in block  # the panel's judges expand `judge_*_psi`


# --- PSI: in evals_df, equal to the report's ---------------------------------------------------

PSI_COLUMNS = {
    "goal": ["score_goal_completion_judge_majority_psi"],
    "info": ["score_mcq_accuracy_mcq_accuracy_psi"],
    "full": ["score_goal_and_mcq_judge_majority_psi", "score_goal_and_mcq_mcq_accuracy_psi"],
}


@pytest.mark.parametrize("task", sorted(PSI_COLUMNS))
def test_psi_is_a_column_of_evals_df(task: str, task_logs: dict[str, Path]) -> None:
    frame = evals_df(str(task_logs[task]), quiet=True)
    log = read_eval_log(str(task_logs[task]), header_only=True)
    assert log.results is not None
    logged = {
        f"score_{score.name}_{name}": metric.value
        for score in log.results.scores
        for name, metric in score.metrics.items()
    }
    for column in PSI_COLUMNS[task]:
        value = float(frame[column].iloc[0])
        assert value == logged[column] and value == value  # a number (two scenes per template)


def test_the_logged_psi_is_the_report_psi_to_the_last_digit(
    task_logs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "report"
    assert main(["report", str(task_logs["full"]), "--out", str(out), "--no-figures"]) == 0
    (row,) = pd.read_csv(out / "table1.csv").to_dict("records")
    log = read_eval_log(str(task_logs["full"]), header_only=True)
    assert log.results is not None
    (block,) = [score for score in log.results.scores if score.name == "goal_and_mcq"]
    assert row["goal_psi_mean"] == block.metrics["judge_majority_psi"].value
    assert row["mcq_psi_mean"] == block.metrics["mcq_accuracy_psi"].value
    assert row["goal_psi_mean"] > 0


# --- the guide's table --------------------------------------------------------------------------


def test_the_guides_table_is_rendered_from_the_declaration() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    assert section() in text, (
        "docs/usage.md is out of date: run python scripts/generated_sections.py"
    )
    for task, declared in LOGGED_METRICS.items():
        assert f"| `{task}` |" in text
        for score in declared:
            assert f"`{score.name.replace('*', 'N')}`" in text
