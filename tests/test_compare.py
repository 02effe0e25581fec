"""`agentsense compare`: paired tests and exit codes on constructed better / worse / equal logs."""

from __future__ import annotations

import math
import shutil
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from scipy import stats as sps

from agentsense.analysis.stats import paired
from agentsense.cli import main
from agentsense.report.compare import CompareOptions, compare, comparison_text
from agentsense.tasks import full

JUDGES = ["standin/persona/judge-a", "standin/persona/judge-b", "standin/persona/judge-c"]
SAMPLES = [101, 102, 301, 302, 501, 502, 801, 802]
SCORER = "goal_and_mcq"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    (log,) = eval(
        full(dataset="demo", max_messages=3),
        model="standin/persona/agent",
        model_roles={"judge": JUDGES},
        sample_id=SAMPLES,
        epochs=2,
        log_dir=str(tmp_path_factory.mktemp("base")),
        display="none",
    )
    assert log.status == "success"
    return Path(log.location)


def variant(
    base: Path,
    folder: Path,
    name: str,
    change: Callable[[str, float], float],
    eval_id: str | None = None,
) -> Path:
    """A copy of `base` whose sample scores are changed by `change(metric, value)`."""
    log = read_eval_log(str(base))
    log.eval.eval_id = eval_id or log.eval.eval_id
    for sample in log.samples or []:
        if eval_id:  # another run: its samples have their own ids
            sample.uuid = f"{eval_id}-{sample.id}-{sample.epoch}"
        score = sample.scores[SCORER]  # type: ignore[index]
        score.value = {key: change(key, value) for key, value in score.value.items()}  # type: ignore[union-attr]
    path = folder / f"{name}.eval"
    write_eval_log(log, str(path))
    return path


def shift(metric: str, by: float) -> Callable[[str, float], float]:
    def change(key: str, value: float) -> float:
        return min(1.0, max(0.0, value + by)) if key == metric and not math.isnan(value) else value

    return change


def test_equal_logs_pass(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(base), str(base)]) == 0
    printed = capsys.readouterr().out
    assert (
        "judge_majority" in printed
        and "mcq_accuracy" in printed
        and "No significant regression" in printed
    )
    assert f"{2 * len(SAMPLES)} paired samples" in printed  # pairs are (id, epoch)


def test_worse_log_fails_and_better_passes(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    worse = variant(base, tmp_path, "worse", shift("judge_majority", -0.5))
    better = variant(base, tmp_path, "better", shift("judge_majority", +0.5))
    assert main(["compare", str(base), str(worse)]) == 1
    assert "REGRESSION: judge_majority" in capsys.readouterr().out
    assert main(["compare", str(base), str(better)]) == 0
    # Reversed, "better" is a regression.
    assert main(["compare", str(better), str(base), "--metric", "judge_majority"]) == 1


def test_allowed_drop_and_insignificant_changes_pass(base: Path, tmp_path: Path) -> None:
    worse = variant(base, tmp_path, "worse", shift("judge_majority", -0.5))
    assert main(["compare", str(base), str(worse), "--max-drop", "0.9"]) == 0
    log = read_eval_log(str(base))
    assert log.samples is not None
    one = log.samples[0].scores[SCORER].value  # type: ignore[index]
    one["judge_majority"] = 0.0 if one["judge_majority"] else 1.0  # type: ignore[index]
    write_eval_log(log, str(tmp_path / "one.eval"))
    assert main(["compare", str(base), str(tmp_path / "one.eval")]) == 0
    assert main(["compare", str(base), str(worse), "--test", "wilcoxon"]) == 1


def clustered(d: np.ndarray, groups: list[Any]) -> tuple[float, float, int]:
    """Mean, cluster-robust SE (C/(C-1) correction) and C, written out by hand."""
    mean, sums = d.mean(), defaultdict(float)
    for value, group in zip(d, groups, strict=True):
        sums[group] += value - mean
    count = len(sums)
    se = math.sqrt(sum(x * x for x in sums.values()) * count / (count - 1)) / len(d)
    return float(mean), se, count


def difference_interval(mean: float, se: float, critical: float) -> tuple[float, float]:
    """The Wilson interval of a mean difference in [-1, 1]: on (d + 1) / 2, at the effective
    sample size n* = p(1 - p) / SE², mapped back; written out by hand."""
    p, v = (mean + 1) / 2, (se / 2) ** 2
    size, z2 = p * (1 - p) / v, critical**2
    center = (p + z2 / (2 * size)) / (1 + z2 / size)
    half = critical * math.sqrt(p * (1 - p) / size + z2 / (4 * size**2)) / (1 + z2 / size)
    return 2 * (center - half) - 1, 2 * (center + half) - 1


def test_difference_interval_and_tests(base: Path, tmp_path: Path) -> None:
    # Issue #13: the interval and the t-tests are clustered by template (the pairs of one
    # template's scenes are not independent); the Wilcoxon test stays a test of the pairs.
    rng = np.random.default_rng(0)
    noise = iter(rng.uniform(-0.6, 0.3, size=1000))
    noisy = variant(
        base,
        tmp_path,
        "noisy",
        lambda key, value: value + next(noise) if key == "judge_mean" else value,
    )
    result = compare(
        [str(base)], [str(noisy)], CompareOptions(metrics=["judge_mean"], max_drop=0.05)
    )
    (item,) = result.results
    old = read_eval_log(str(base))
    new = read_eval_log(str(noisy))
    key = {(s.id, s.epoch): s.scores[SCORER].value["judge_mean"] for s in old.samples or []}  # type: ignore[index]
    template = {s.id: (s.metadata or {})["template_id"] for s in old.samples or []}
    triples = [
        (key[(s.id, s.epoch)], s.scores[SCORER].value["judge_mean"], template[s.id])  # type: ignore[index]
        for s in new.samples or []
    ]
    b = np.array([t[0] for t in triples])
    w = np.array([t[1] for t in triples])
    d = w - b
    mean, se, count = clustered(d, [t[2] for t in triples])
    assert item.result.n == len(d) and math.isclose(item.result.diff.mean, d.mean())
    low, high = difference_interval(mean, se, sps.t.ppf(0.975, count - 1))
    assert math.isclose(item.result.diff.low, low) and math.isclose(item.result.diff.high, high)
    assert item.result.diff.clusters == count == 4
    assert math.isclose(item.result.p_ttest, 2 * sps.t.sf(abs(mean) / se, count - 1))
    assert math.isclose(item.result.p_wilcoxon, sps.wilcoxon(d).pvalue)
    one_sided = sps.t.cdf((mean + 0.05) / se, count - 1)
    assert math.isclose(item.result.p_regression, one_sided)
    assert item.regression == (one_sided < 0.05)
    # The MDE: at a true drop of max_drop + MDE the one-sided test has 80% power.
    critical = sps.t.ppf(0.95, count - 1)
    assert math.isclose(1 - sps.nct.cdf(critical, count - 1, item.mde / se), 0.8, abs_tol=1e-6)
    table = comparison_text(result, CompareOptions(metrics=["judge_mean"], max_drop=0.05))
    assert "MDE (80% power, α 0.05)" in table and f"{item.mde:.3f}" in table


def test_scene_level_tests_without_clusters() -> None:
    """Without template ids (older logs), the tests are those of the pairs."""
    rng = np.random.default_rng(1)
    b, w = rng.uniform(0, 1, 20), rng.uniform(0, 1, 20)
    d = w - b
    result = paired(list(b), list(w), max_drop=0.05)
    low, high = difference_interval(d.mean(), sps.sem(d), sps.t.ppf(0.975, len(d) - 1))
    assert math.isclose(result.diff.low, low) and math.isclose(result.diff.high, high)
    assert -1 <= result.diff.low <= result.diff.high <= 1
    assert math.isclose(result.p_ttest, sps.ttest_rel(w, b).pvalue)
    one_sided = sps.ttest_1samp(d + 0.05, 0.0, alternative="less").pvalue
    assert math.isclose(result.p_regression, one_sided)


def test_paired_edge_cases() -> None:
    same = paired([0.5, 0.2, 0.9], [0.5, 0.2, 0.9])
    assert same.p_ttest == 1.0 and same.p_regression == 1.0 and same.diff.mean == 0.0
    constant_drop = paired([0.5, 0.6, 0.7], [0.3, 0.4, 0.5], max_drop=0.1)
    assert constant_drop.p_regression == 0.0  # certain drop of 0.2 > 0.1
    with_nan = paired([0.5, math.nan, 0.7], [0.5, 0.1, math.nan])
    assert with_nan.n == 1 and math.isnan(with_nan.p_regression)


def test_input_errors_exit_2(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", str(tmp_path / "missing.eval"), str(base)]) == 2
    assert main(["compare", str(base), str(base), "--metric", "blind_mcq_accuracy"]) == 2
    assert "not scored in both" in capsys.readouterr().err
    folder = tmp_path / "two"
    folder.mkdir()
    shutil.copy(base, folder / "a.eval")
    variant(base, folder, "b", shift("self", -0.1), eval_id="another-run")
    assert main(["compare", str(base), str(folder)]) == 2
    assert "appears in several logs" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["compare", str(base)])
    assert usage.value.code == 2


def test_different_protocols_need_allow_mixed(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log: EvalLog = read_eval_log(str(base))
    assert log.eval.metadata is not None
    log.eval.metadata["protocol"] = {**log.eval.metadata["protocol"], "agent_temperature": 0.0}
    write_eval_log(log, str(tmp_path / "cold.eval"))
    assert main(["compare", str(base), str(tmp_path / "cold.eval")]) == 2
    assert "agent_temperature" in capsys.readouterr().err
    assert main(["compare", str(base), str(tmp_path / "cold.eval"), "--allow-mixed"]) == 0


def test_gate_fails_closed_on_unfinished_or_partial_runs(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    errored = read_eval_log(str(base))
    errored.status = "error"
    write_eval_log(errored, str(tmp_path / "errored.eval"))
    assert main(["compare", str(base), str(tmp_path / "errored.eval")]) == 2
    assert "errored.eval (stopped by an error: 8 of 8 scenes" in capsys.readouterr().err
    partial = read_eval_log(str(base))
    partial.samples = (partial.samples or [])[2:]
    write_eval_log(partial, str(tmp_path / "partial.eval"))
    assert main(["compare", str(base), str(tmp_path / "partial.eval")]) == 2
    assert "NEW lacks 2 sample(s) of BASE" in capsys.readouterr().err
    assert main(["compare", str(base), str(tmp_path / "partial.eval"), "--allow-incomplete"]) == 0


def piece(base: Path, out: Path, keep: slice, eval_id: str, model: str | None = None) -> Path:
    """Some samples of `base` as another log of the same run (a split run's piece)."""
    log = read_eval_log(str(base))
    log.eval.eval_id = eval_id
    log.eval.model = model or log.eval.model
    log.samples = (log.samples or [])[keep]
    write_eval_log(log, str(out))
    return out


def test_several_logs_per_side_are_merged(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    half = len(SAMPLES)  # samples are (id, epoch): 2 epochs
    first = piece(base, tmp_path / "first.eval", slice(0, half), "piece-1")
    second = piece(base, tmp_path / "second.eval", slice(half - 2, None), "piece-2")
    assert main(["compare", "--base", str(first), str(second), "--new", str(base)]) == 0
    printed = " ".join(capsys.readouterr().out.split())  # the console wraps at 80 columns
    assert f"{2 * len(SAMPLES)} paired samples; 0 only in BASE, 0 only in NEW" in printed
    assert "2 logs of one run configuration" in printed and "2 identical duplicate" in printed
    folder = tmp_path / "pieces"
    folder.mkdir()
    for path in (first, second):
        shutil.copy(path, folder / path.name)
    assert main(["compare", str(folder), str(base)]) == 0
    other = piece(base, folder / "other.eval", slice(0, 2), "other-run", "standin/persona/x")
    assert main(["compare", "--base", str(folder), "--new", str(base)]) == 2
    error = capsys.readouterr().err
    assert "BASE: the logs are 2 different runs" in error and other.name in error
    with pytest.raises(SystemExit):
        main(["compare", str(base), str(base), "--new", str(base)])


def test_the_example_of_a_cast_difference_does_not_depend_on_sample_order() -> None:
    """A reordered input leaves the message unchanged: the example is the first (id, epoch)."""
    import pandas as pd

    from agentsense.report.compare import differences

    index = pd.MultiIndex.from_tuples([(101, 1), (102, 1), (103, 1)], names=["id", "epoch"])
    base = pd.DataFrame({"cast": ["a", "b", "c"]}, index=index)
    new = pd.DataFrame({"cast": ["x", "y", "c"]}, index=index)
    run = {"task": "full", "dataset": "demo"}
    shown = [d.line() for d in differences(run, run, base, new)]
    reordered = [d.line() for d in differences(run, run, base.iloc[::-1], new.iloc[::-1])]
    assert shown == reordered
    assert "2 of 3 paired samples, e.g. id 101 epoch 1" in shown[0]
