"""Variance components (`analysis.variance`, the report's section) and judge repeats.

The estimator is checked on synthetic scores with known components; the whole path (eval with
epochs, `score(..., -S repeat=K)`, the report) on stand-in runs whose answer is known: judges
that never flip give a judging share of exactly 0, a `flaky` judge flipping each vote with
probability p gives the judging variance p(1 − p)·Σw² (w: each vote's weight in the scene
score) within the tolerance stated below.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inspect_ai import eval, score
from inspect_ai.log import read_eval_log, write_eval_log

from agentsense.analysis.log_reader import load_runs
from agentsense.analysis.stats import template_draws
from agentsense.analysis.variance import (
    COMPONENTS,
    _batched_shares,
    _nested,
    _prepared,
    decompose,
    projected_half_width,
    projection,
    with_intervals,
)
from agentsense.cli import main
from agentsense.engine.errors import PrerequisiteError
from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions
from agentsense.report.sections.variance_components import decompositions, run_rows
from agentsense.sense import goal_completion
from agentsense.sense.dataset.samples import load_scenarios
from agentsense.sense.scorers.scoring import checked_repeat, repeat_seed
from agentsense.standin.rules import Request, flaky, flip_probability, persona
from agentsense.tasks import goal

SD = {"templates": 0.3, "scenes": 0.2, "conversations": 0.15, "judging": 0.1}


def synthetic(
    templates: int, scenes: int, epochs: int, repeats: int, seed: int = 1
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(templates):
        a = rng.normal(0, SD["templates"])
        for s in range(scenes):
            b = rng.normal(0, SD["scenes"])
            for e in range(epochs):
                c = rng.normal(0, SD["conversations"])
                for k in range(repeats):
                    value = 0.5 + a + b + c + rng.normal(0, SD["judging"])
                    rows.append((f"t{t}", f"{t}-{s}", e, k, value))
    return pd.DataFrame(rows, columns=["template", "scene", "epoch", "repeat", "value"])


def test_estimates_known_components() -> None:
    result = decompose(synthetic(200, 5, 3, 3))
    for name, sd in SD.items():
        estimate = result.variances[name]
        assert estimate is not None
        # 200 templates: the relative standard error of each component is below 10%.
        assert estimate == pytest.approx(sd**2, rel=0.25), name


def test_agrees_with_statsmodels_on_balanced_data() -> None:
    """Balanced data: the ANOVA estimates are the REML estimates (when none is negative)."""
    import statsmodels.formula.api as smf

    data = synthetic(30, 4, 2, 1)
    fit = smf.mixedlm(
        "value ~ 1",
        data,
        groups="template",
        re_formula="1",
        vc_formula={"scene": "0 + C(scene)"},
    ).fit(reml=True)
    ours = decompose(data)
    assert ours.variances["judging"] is None  # one repeat: carried by conversations
    assert ours.variances["templates"] == pytest.approx(float(fit.cov_re.iloc[0, 0]), rel=1e-3)
    assert ours.variances["scenes"] == pytest.approx(float(fit.vcomp[0]), rel=1e-3)
    assert ours.variances["conversations"] == pytest.approx(float(fit.scale), rel=1e-3)


def test_metamorphic_order_shift_and_labels() -> None:
    data = synthetic(6, 3, 2, 2)
    base = decompose(data).variances
    shuffled = data.sample(frac=1.0, random_state=3)
    renamed = data.assign(template="x" + data["template"], scene="y" + data["scene"])
    shifted = data.assign(value=data["value"] + 7.0)
    for other in (shuffled, renamed, shifted):
        for name in COMPONENTS:
            assert decompose(other).variances[name] == pytest.approx(base[name], abs=1e-12)
    # One changed score changes the estimates.
    changed = data.copy()
    changed.loc[0, "value"] += 1.0
    assert decompose(changed).variances["judging"] != pytest.approx(base["judging"])


def test_levels_without_replication_are_not_estimable() -> None:
    data = synthetic(6, 3, 2, 2)
    once = decompose(data[data["repeat"] == 0])
    assert once.variances["judging"] is None
    assert once.carried_by("conversations") == ["conversations", "judging"]
    single = decompose(data[(data["repeat"] == 0) & (data["epoch"] == 0)])
    assert single.variances["conversations"] is None and single.variances["judging"] is None
    assert single.carried_by("scenes") == ["scenes", "conversations", "judging"]
    # The projection then keeps the design's counts only.
    assert list(projection(single).index) == [1] and list(projection(single).columns) == [1]
    assert with_intervals(data[data["template"] == "t0"]).intervals == {}


def test_projection_shrinks_and_matches_the_formula() -> None:
    result = with_intervals(synthetic(8, 3, 2, 2), resamples=50)
    table = projection(result)
    assert (np.diff(table.to_numpy(), axis=0) <= 0).all()  # more epochs: narrower
    assert (np.diff(table.to_numpy(), axis=1) <= 0).all()  # more repeats: narrower
    v = result.variances
    assert all(x is not None for x in v.values())
    within = v["scenes"] + v["conversations"] / 4 + v["judging"] / 8  # type: ignore[operator]
    expected = math.sqrt((v["templates"] + within / 3) / 8) * 2.3646  # type: ignore[operator]
    assert projected_half_width(result, 4, 2) == pytest.approx(expected, rel=1e-3)
    for name, (low, high) in result.intervals.items():
        assert 0 <= low <= high <= 1, name


def _one_draw_shares(
    value: np.ndarray, keys: list[np.ndarray], rows_of: list[np.ndarray], pick: np.ndarray
) -> list[float]:
    """The shares of one draw, decomposed alone: each drawn copy's units offset to be its own."""
    rows = np.concatenate([rows_of[i] for i in pick])
    copy = np.repeat(np.arange(len(pick)), [len(rows_of[i]) for i in pick])
    copied = [k[rows] + copy * (int(k.max()) + 1) for k in keys]
    shares = _nested(value[rows], copied).shares()
    return [math.nan if shares[name] is None else float(shares[name]) for name in COMPONENTS]


@pytest.mark.parametrize(
    "frame",
    [
        synthetic(6, 3, 2, 2),
        synthetic(7, 4, 2, 2, seed=3).sample(frac=0.7, random_state=2),  # unbalanced
        synthetic(6, 2, 1, 1),  # conversations and judging not estimable
        synthetic(5, 1, 1, 1),  # one scene a template: only the templates' share
    ],
)
def test_batched_draws_decompose_as_each_draw_alone(frame: pd.DataFrame) -> None:
    """The bootstrap decomposes all draws in one stacked array (`_batched_shares`): each draw's
    shares are those of that draw decomposed on its own (to float rounding: summation order)."""
    value, keys = _prepared(frame)
    template = keys[-1]
    rows_of = [np.flatnonzero(template == t) for t in range(template.max() + 1)]
    picks = template_draws(len(rows_of), 300, seed=4)
    batched = _batched_shares(value, keys, rows_of, picks)
    alone = np.array([_one_draw_shares(value, keys, rows_of, pick) for pick in picks])
    assert np.array_equal(np.isnan(batched), np.isnan(alone))
    assert batched == pytest.approx(alone, rel=1e-12, abs=1e-15, nan_ok=True)
    # Split in batches of any size, the draws give the same shares.
    halves = np.concatenate(
        [_batched_shares(value, keys, rows_of, part) for part in (picks[:7], picks[7:])]
    )
    assert np.array_equal(halves, batched, equal_nan=True)


def test_repeat_argument_and_seeds() -> None:
    with pytest.raises(PrerequisiteError, match="repeat=-1"):
        goal_completion(repeat=-1)
    with pytest.raises(PrerequisiteError, match="repeat='x'"):
        checked_repeat("x")
    assert repeat_seed(0, 101, 1, 0) is None  # the eval's own judging sends no seed
    seeds = {repeat_seed(0, 101, 1, k) for k in (1, 2, 3)}
    assert len(seeds) == 3 and repeat_seed(0, 101, 1, 1) == repeat_seed(0, 101, 1, 1)


def test_flaky_rule_flips_at_its_rate() -> None:
    question = [("system", "You are a judge."), ("user", "Did she? Answer yes or no.")]
    assert flip_probability("judge-p35") == 0.35 and flip_probability("judge") == 0.2
    flips = 0
    for seed in range(2000):
        request = Request("judge-p35", question, seed)
        flips += flaky(request) != persona(request).split(",")[0].rstrip(".") + "."
    assert abs(flips / 2000 - 0.35) < 0.04
    assert flaky(Request("judge-p35", question, 7)) == flaky(Request("judge-p35", question, 7))


# --- stand-in runs -------------------------------------------------------------------------

MESSAGES = 3
FLIP = 0.3


def run(
    log_dir: Path, judges: list[str], epochs: int, repeats: int, limit: int | None = None
) -> Path:
    """A goal run of the demo set, then judged again `repeats - 1` times (-S repeat=K)."""
    (log,) = eval(
        goal(dataset="demo", max_messages=MESSAGES),
        model="standin/persona/agent",
        model_roles={"judge": judges},
        epochs=epochs,
        limit=limit,
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    path = Path(log.location)
    scored = read_eval_log(str(path))
    for k in range(1, repeats):
        scored = score(scored, goal_completion(repeat=k), action="append", display="none")
    write_eval_log(scored, str(path))
    return path


def _decomposed(path: Path, metric: str) -> dict[str, object]:
    report = write_report([str(path)], ReportOptions(out=path.parent / "report", figures=False))
    assert "Variance components" in report.sections
    runs = pd.DataFrame([{"log": str(path), "group": "g", "kind": "homogeneous"}])
    values = load_runs([str(path)]).values
    found = {m: r for _, m, r in decompositions(runs, values)}
    return {"result": found[metric], "rows": run_rows(runs.iloc[0].to_dict(), values)}


def test_judges_that_never_flip_have_no_judging_share(tmp_path: Path) -> None:
    judges = ["standin/persona/judge-a", "standin/persona/judge-b"]
    path = run(tmp_path / "logs", judges, epochs=2, repeats=2, limit=8)
    found = _decomposed(path, "judge_majority")
    result = found["result"]
    assert result.mean_repeats == 2 and result.mean_epochs == 2  # type: ignore[attr-defined]
    assert result.shares()["judging"] == 0.0  # type: ignore[attr-defined]
    text = (tmp_path / "logs" / "report" / "report.md").read_text()
    assert "## Variance components" in text and "## Cost and tokens" in text


def test_unreplicated_run_says_what_to_do(tmp_path: Path) -> None:
    path = run(tmp_path / "logs", ["standin/persona/judge-a"], epochs=1, repeats=1, limit=6)
    write_report([str(path)], ReportOptions(out=tmp_path / "report", figures=False))
    text = (tmp_path / "report" / "report.md").read_text()
    assert "not estimable: run with --epochs >= 2" in text
    assert "not estimable: judge the log twice" in text


def _expected_judging(weights_squared: list[float], p: float) -> float:
    return p * (1 - p) * float(np.mean(weights_squared))


def vote_weights_squared(judges: int) -> list[float]:
    """Per scene, Σw² of its judge votes in `judge_mean` (mean of a goal's votes, then over a
    character's goals, then over characters)."""
    out = []
    for scene in load_scenarios("demo"):
        total = 0.0
        for character in scene.characters:
            for item in character.goals:
                votes = len(item.eval_questions.judge) * judges
                if votes:
                    w = 1 / (len(scene.characters) * len(character.goals) * votes)
                    total += votes * w**2
        out.append(total)
    return out


@pytest.mark.slow  # 24 scenes x 2 epochs x 4 scorings: about 2 minutes on a loaded machine
def test_flaky_judge_share_within_tolerance(tmp_path: Path) -> None:
    """One judge flipping each vote with p = 0.3, 24 scenes x 2 epochs x 4 repeats (144 degrees
    of freedom within conversations: the variance's relative standard error is about 0.12).
    Stated tolerance: the judging variance within 35% of p(1 − p)·mean Σw², and the share
    within 0.1 of that variance over the estimated total."""
    judge = f"standin/flaky/judge-p{int(FLIP * 100)}"
    path = run(tmp_path / "logs", [judge], epochs=2, repeats=4)
    result = _decomposed(path, "judge_mean")["result"]
    expected = _expected_judging(vote_weights_squared(1), FLIP)
    judging = result.variances["judging"]  # type: ignore[attr-defined]
    assert judging == pytest.approx(expected, rel=0.35)
    share = result.shares()["judging"]  # type: ignore[attr-defined]
    assert abs(share - expected / result.total()) < 0.1  # type: ignore[attr-defined]
    assert 0 < share < 1


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run(
        list(args), capture_output=True, text=True, timeout=600, check=False, env=env
    )


@pytest.mark.slow
def test_the_users_path_eval_epochs_rejudge_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`inspect eval --epochs 2`, `inspect score -S repeat=1`, `agentsense report`: the run, the
    re-judge and the report in-process (`inspect_ai.eval`, `inspect_ai.score` appending, as
    `--action append --overwrite` does, and `cli.main`); the refused `-S repeat=-1` through the
    real `inspect score` (its console, the log left as it was)."""
    bin_dir = Path(sys.executable).parent
    judges = ["standin/flaky/judge-a", "standin/flaky/judge-b"]
    logs = tmp_path / "logs"
    (ran,) = eval(
        "agentsense/goal",
        task_args={"dataset": "demo", "max_messages": MESSAGES},
        limit=8,
        epochs=2,
        model="standin/persona/agent",
        model_roles={"judge": judges},
        log_dir=str(logs),
        display="none",
    )
    assert ran.status == "success", ran.error
    (log,) = logs.glob("*.eval")
    before = log.read_bytes()
    bad = _cli(
        str(bin_dir / "inspect"), "score", str(log), "--scorer", "agentsense/goal_completion",
        "-S", "repeat=-1", "--action", "append", "--overwrite", "--display", "none",
    )  # fmt: skip
    assert "Scorer argument repeat=-1" in bad.stdout + bad.stderr
    assert "Traceback" not in bad.stdout + bad.stderr and log.read_bytes() == before
    scored = score(
        read_eval_log(str(log)), goal_completion(repeat=1), action="append", display="none"
    )
    write_eval_log(scored, str(log))
    samples = read_eval_log(str(log)).samples or []
    # The task's own scorer is goal_completion: the re-judge is goal_completion1, repeat 1.
    repeats = {
        name: score.metadata["judge_repeat"]  # type: ignore[index]
        for sample in samples
        for name, score in (sample.scores or {}).items()
    }
    assert repeats == {"goal_completion": 0, "goal_completion1": 1}
    out = tmp_path / "report"
    assert main(["report", str(logs), "--out", str(out), "--no-figures"]) == 0, capsys.readouterr()
    text = (out / "report.md").read_text()
    variance = pd.read_csv(out / "variance.csv").set_index("metric")
    assert variance.loc["judge_majority", "repeats"] == 2
    assert variance.loc["judge_majority", "epochs"] == 2
    assert variance.loc["judge_majority", "judging_share"] > 0  # flaky judges flip
    assert "judges (re-scoring)" in text and "- Tokens: standin/persona/agent" in text


def test_projection_at_the_design_matches_the_clustered_interval() -> None:
    """The model's half-width at the data's own E and K is the template-clustered half-width
    of the scene means (60 templates: the latter's relative error is about 10%)."""
    from agentsense.report.sections.variance_components import _observed_half_width

    data = synthetic(60, 4, 2, 2, seed=5)
    model = projected_half_width(decompose(data), 2, 2)
    assert _observed_half_width(data) == pytest.approx(model, rel=0.3)
