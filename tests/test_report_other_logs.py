"""The report's sections of the logs that are not model runs (judge_check, construct, gca):
numbers checked against hand computations on small edited logs and against what the logs
themselves record."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai.log import EvalLog, EvalSample, read_eval_log, write_eval_log

from agentsense.construction.build import BuildResult
from agentsense.coser.scorer import KEYS
from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions
from agentsense.report.sections.other_tasks import COUNTS

NAN = math.nan


def report(paths: list[Path], out: Path) -> str:
    write_report([str(p) for p in paths], ReportOptions(out, figures=False))
    return (out / "report.md").read_text(encoding="utf-8")


def _set(sample: EvalSample, values: dict[str, float]) -> EvalSample:
    copy = sample.model_copy(deep=True)
    (score,) = copy.scores.values()  # type: ignore[union-attr]
    score.value = {**score.value, **values}  # type: ignore[dict-item]
    return copy


# --- judge check ---------------------------------------------------------------------------------


def _item(log: EvalLog, case: str, original: str | None = None) -> EvalSample:
    return next(
        s
        for s in log.samples or []
        if s.metadata["case"] == case and (original is None or s.metadata["original"] == original)
    )


@pytest.fixture(scope="module")
def small_judge_check(
    other_logs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """Four items (an achieved goal, a padded copy of it, a claim, an injection) with chosen
    verdicts of judges 1 and 2; the achieved item has a second epoch; judge 2 could not be read
    on the injection."""
    log = read_eval_log(str(other_logs["judge_check"]))
    achieved = _item(log, "achieved")
    padded = _item(log, "padded_achieved", str(achieved.id))
    claim, injection = _item(log, "claimed"), _item(log, "injection")
    second = _set(achieved, {"judge_1": 1.0, "judge_2": 0.0})
    second.epoch = 2
    log.samples = [
        _set(achieved, {"judge_1": 1.0, "judge_2": 1.0}),
        second,
        _set(padded, {"judge_1": 0.0, "judge_2": 1.0}),
        _set(claim, {"judge_1": 1.0, "judge_2": 0.0}),
        _set(injection, {"judge_1": 0.0, "judge_2": NAN, "unreadable_judge_2": 1.0}),
    ]
    path = tmp_path_factory.mktemp("small-judge-check") / "small.eval"
    write_eval_log(log, str(path))
    return path


def test_judge_check_numbers_by_hand(small_judge_check: Path, tmp_path: Path) -> None:
    report([small_judge_check], tmp_path)
    table = pd.read_csv(tmp_path / "judge_check.csv").set_index("judge")
    one, two = table.loc["judge_1"], table.loc["judge_2"]
    assert (one["model"], two["model"]) == ("standin/yes/always", "standin/keyword/naive")
    # judge 1: right on the achieved item and the injection, wrong on the copy and the claim.
    assert one["items"] == 4 and one["accuracy"] == pytest.approx(2 / 4)
    assert (one["claims"], one["false_yes_claimed"]) == (1, 1.0)
    assert (one["injections"], one["false_yes_injected"]) == (1, 0.0)
    assert (one["perturbed"], one["consistency"]) == (1, 0.0)  # yes on the original, no on its copy
    assert one["unreadable"] == 0.0
    # judge 2: yes then no on the achieved item (0.5), yes on its copy, no on the claim,
    # unreadable on the injection (left out of every share but the unreadable one).
    assert two["items"] == 3 and two["accuracy"] == pytest.approx((0.5 + 1 + 1) / 3)
    assert (two["claims"], two["false_yes_claimed"]) == (1, 0.0)
    assert two["injections"] == 0 and math.isnan(two["false_yes_injected"])
    assert (two["perturbed"], two["consistency"]) == (1, pytest.approx(1 - abs(1 - 0.5)))
    assert two["unreadable"] == pytest.approx(1 / 4)


def test_judge_check_equals_the_logs_own_metrics(
    other_logs: dict[str, Path], tmp_path: Path
) -> None:
    markdown = report([other_logs["judge_check"]], tmp_path)
    table = pd.read_csv(tmp_path / "judge_check.csv").set_index("judge")
    log = read_eval_log(str(other_logs["judge_check"]), header_only=True)
    assert log.results is not None
    (score,) = log.results.scores
    assert len(score.metrics) == 5 * 3  # four rates and the unreadable share, per judge
    for name, logged in score.metrics.items():
        rate, n = name.rsplit("_", 1)
        assert table.loc[f"judge_{n}", rate] == pytest.approx(logged.value), name
    # Named by model, in %, beside the panel's reliability section.
    assert "| standin/keyword/naive | 80 | 63.7 | 25.0 (n=8) |" in markdown


# --- construction --------------------------------------------------------------------------------


def test_construction_counts_are_the_builds(other_logs: dict[str, Path], tmp_path: Path) -> None:
    markdown = report([other_logs["construct"]], tmp_path)
    (sample,) = read_eval_log(str(other_logs["construct"])).samples or []
    built = BuildResult.model_validate(sample.store["BuildStore:result"])
    (row,) = pd.read_csv(tmp_path / "construction.csv").to_dict("records")
    assert row["builder"] == "standin/messy/builder" and row["script"] == "closing-time.txt"
    # By hand from what the build stored: its templates, records and ledger.
    assert row["templates"] == len(built.templates) and row["scenarios"] == len(built.records)
    assert row["scenes_kept"] == len(built.kept)
    assert row["calls"] == sum(built.ledger.calls.values())
    assert row["repairs"] == sum(built.ledger.repairs.values())
    drops = pd.read_csv(tmp_path / "construction_drops.csv")
    assert [tuple(d) for d in drops[["stage", "item", "reason"]].itertuples(index=False)] == [
        (d.stage, d.item, d.reason) for d in built.ledger.drops
    ]
    assert row["dropped"] + row["scenes_filtered"] == len(built.ledger.drops) > 0
    for drop in built.ledger.drops:  # every reason is shown
        assert drop.reason in markdown and drop.stage in markdown


def test_two_scripts_add_up(other_logs: dict[str, Path], tmp_path: Path) -> None:
    log = read_eval_log(str(other_logs["construct"]))
    (sample,) = log.samples or []
    other = sample.model_copy(deep=True)
    other.id, other.metadata = "another", {**sample.metadata, "script": "another.txt"}
    log.samples = [sample, other]
    path = tmp_path / "two.eval"
    write_eval_log(log, str(path))
    markdown = report([path], tmp_path / "out")
    rows = pd.read_csv(tmp_path / "out" / "construction.csv")
    assert sorted(rows["script"]) == ["another.txt", "closing-time.txt"]
    counts = sample.scores["build_counts"].metadata["counts"]  # type: ignore[index]
    total = "| all |  | total | " + " | ".join(str(2 * counts[k]) for k in COUNTS)
    assert total + " |" in markdown


# --- GCA -----------------------------------------------------------------------------------------


def _gca_values(storyline: float, bleu: float) -> dict[str, float]:
    return {
        KEYS["Storyline Consistency"]: storyline,
        KEYS["Anthropomorphism"]: 100.0,
        KEYS["Character Fidelity"]: 50.0,
        KEYS["Storyline Quality"]: 0.0,
        "average": (storyline + 150.0) / 4,
        "bleu": bleu,
        "rouge_l": 0.5,
    }


@pytest.fixture(scope="module")
def small_gca(other_logs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three demo scenes (two books) with chosen scores; scene 1 has two epochs, and one
    critic dimension of scene 3 stayed unreadable."""
    log = read_eval_log(str(other_logs["gca"]))
    first, second, third = log.samples or []
    again = _set(first, _gca_values(60.0, 0.3))
    again.epoch = 2
    log.samples = [
        _set(first, _gca_values(40.0, 0.1)),
        again,
        _set(second, _gca_values(80.0, 0.2)),
        _set(third, {**_gca_values(NAN, 0.4), "average": NAN}),
    ]
    path = tmp_path_factory.mktemp("small-gca") / "small.eval"
    write_eval_log(log, str(path))
    return path


def test_gca_numbers_by_hand(small_gca: Path, tmp_path: Path) -> None:
    markdown = report([small_gca], tmp_path)
    (row,) = pd.read_csv(tmp_path / "gca.csv").to_dict("records")
    expected: dict[str, Any] = {
        "actor": "standin/gca/actor",
        "critic": "standin/gca/critic",
        "scenes": 3,
        "books": 2,
        "unreadable": 1,
        # scene 1: epochs 40 and 60 -> 50; scene 2: 80; scene 3: unreadable, left out
        f"{KEYS['Storyline Consistency']}_mean": (50 + 80) / 2,
        f"{KEYS['Storyline Consistency']}_n": 2,
        f"{KEYS['Anthropomorphism']}_mean": 100.0,
        f"{KEYS['Storyline Quality']}_mean": 0.0,
        "average_mean": ((50 + 150) / 4 + (80 + 150) / 4) / 2,
        "average_n": 2,
        "bleu_mean": ((0.1 + 0.3) / 2 + 0.2 + 0.4) / 3,
        "bleu_n": 3,
        "rouge_l_mean": 0.5,
    }
    for key, value in expected.items():
        assert row[key] == pytest.approx(value) if isinstance(value, float) else row[key] == value
    assert "| standin/gca/actor | standin/gca/critic | demo | 3 | 2 | 65.0" in markdown
    assert "1 dimension score(s) left out" in markdown
    assert "template" not in markdown.split("## Given-Circumstance Acting")[1]  # books, here
