"""The report's Table 2 (script prediction beside the blind test) and Table 7 (repeated runs),
their numbers recomputed by hand from the logs' own sample scores."""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

import agentsense
from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions
from agentsense.sense.dataset.samples import demo_path

AGENT = "standin/persona/agent"
# Judges that read the transcript, so a scene's scores change with its turn order (per epoch).
JUDGES = ["standin/keyword/judge-a", "standin/persona/judge-b"]
TEMPLATES = (1, 3, 5, 8)  # the demo templates with MCQs, three scenes each


def scenes_file(tmp_path: Path) -> Path:
    lines = demo_path().read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if json.loads(line)["template_idx"] in TEMPLATES]
    path = tmp_path / "scenes.jsonl"
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return path


def run_full(dataset: Path, log_dir: Path, epochs: int, **args: object) -> EvalLog:
    task = agentsense.full(dataset=str(dataset), max_messages=5, **args)  # type: ignore[arg-type]
    (log,) = eval(
        task,
        model=AGENT,
        model_roles={"judge": JUDGES},  # type: ignore[dict-item]
        epochs=epochs,
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def values(log: EvalLog) -> list[tuple[int, dict[str, float]]]:
    """(epoch, score values) of every sample, straight from the log."""
    assert log.samples is not None
    return [(s.epoch, dict(s.scores["goal_and_mcq"].value)) for s in log.samples]  # type: ignore[arg-type,index]


def by_hand(log: EvalLog, metric: str) -> tuple[float, float]:
    """Mean over epochs of the epoch means over scenes, and their sample std."""
    per_epoch: dict[int, list[float]] = defaultdict(list)
    for epoch, value in values(log):
        if not math.isnan(value[metric]):
            per_epoch[epoch].append(value[metric])
    means = [sum(v) / len(v) for _, v in sorted(per_epoch.items())]
    return sum(means) / len(means), statistics.stdev(means)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    root = tmp_path_factory.mktemp("repeated")
    dataset = scenes_file(root)
    return {
        "full": run_full(dataset, root / "logs", epochs=1),
        "subset": run_full(dataset, root / "logs", epochs=3, per_template=1),
    }


def test_table_seven_numbers_by_hand(runs: dict[str, EvalLog], tmp_path: Path) -> None:
    subset, full = runs["subset"], runs["full"]
    assert subset.eval.dataset.sample_ids == [101, 301, 501, 801]  # one scene per template
    report = write_report(
        [subset.location, full.location], ReportOptions(tmp_path / "out", figures=False)
    )
    assert "Repeated runs" in report.sections
    table = pd.read_csv(tmp_path / "out" / "repeated.csv")
    assert set(table["run"]) == {f"{AGENT} [per_template=1] · full"}  # the full run: 1 epoch
    spread = 0.0
    for metric in ("self", "other", "judge_mean", "judge_majority", "mcq_accuracy"):
        row = table[table["metric"] == metric].iloc[0]
        mean, std = by_hand(subset, metric)
        full_scores = [v[metric] for _, v in values(full) if not math.isnan(v[metric])]
        full_mean = sum(full_scores) / len(full_scores)
        assert row["epochs"] == 3 and row["scenes"] == 4
        assert row["mean"] == pytest.approx(mean, abs=1e-12), metric
        assert row["std"] == pytest.approx(std, abs=1e-12), metric
        assert row["full_mean"] == pytest.approx(full_mean, abs=1e-12), metric
        assert row["relative_change"] == pytest.approx((mean - full_mean) / full_mean), metric
        assert row["full_run"] == AGENT
        spread += std
    assert spread > 0  # the epochs differ: the test can see a wrong std
    judged = table[table["metric"] == "judge: standin/keyword/judge-a"]
    assert len(judged) == 1  # each judge gets its row too
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    row = table[table["metric"] == "judge_majority"].iloc[0]
    shown = (
        f"{row['mean'] * 100:.2f} ({row['relative_change'] * 100:+.2f}%) | {row['std'] * 100:.2f}"
    )
    assert shown in text


def test_the_subset_and_the_full_run_are_two_table_one_rows(
    runs: dict[str, EvalLog], tmp_path: Path
) -> None:
    write_report(
        [runs["subset"].location, runs["full"].location],
        ReportOptions(tmp_path / "out", figures=False),
    )
    table = pd.read_csv(tmp_path / "out" / "table1.csv").set_index("run")
    assert table.loc[AGENT, "judge_majority_n"] == 12
    assert table.loc[f"{AGENT} [per_template=1]", "judge_majority_n"] == 4
    mean, _ = by_hand(runs["subset"], "judge_majority")  # every scene scored in every epoch
    assert table.loc[f"{AGENT} [per_template=1]", "judge_majority_mean"] == pytest.approx(mean)


def test_no_repeated_section_for_single_epoch_runs(
    runs: dict[str, EvalLog], tmp_path: Path
) -> None:
    report = write_report([runs["full"].location], ReportOptions(tmp_path / "out", figures=False))
    assert report.absent["Repeated runs"] == "no run with several epochs (--epochs)"
    assert report.absent["Table 2"] == "no agentsense/script_prediction log among the inputs"


def test_table_two_puts_script_accuracy_beside_the_blind_test(tmp_path: Path) -> None:
    logs = []
    for task in (agentsense.script_prediction(dataset="demo"), agentsense.blind(dataset="demo")):
        (log,) = eval(task, model=AGENT, log_dir=str(tmp_path / "logs"), display="none")
        assert log.status == "success", log.error
        logs.append(log)
    report = write_report([str(tmp_path / "logs")], ReportOptions(tmp_path / "out", figures=False))
    assert "Table 2" in report.sections
    table = pd.read_csv(tmp_path / "out" / "table2.csv")
    assert list(table["model"]) == [AGENT] and list(table["templates"]) == [8]
    repeated = pd.read_csv(tmp_path / "out" / "repeated.csv")  # the blind test's 3 epochs
    assert set(repeated["run"]) == {f"{AGENT} · blind"}
    assert list(repeated["metric"]) == ["blind_mcq_accuracy"]
    for log, column in zip(logs, ("script_accuracy", "blind_mcq_accuracy"), strict=True):
        (scores,) = [s for s in log.results.scores if s.name == column]  # type: ignore[union-attr]
        assert table[f"{column}_mean"].iloc[0] == pytest.approx(scores.metrics["mean"].value)
