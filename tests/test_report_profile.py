"""The report's Sotopia table and the cross-benchmark profile (issue 35): the Sotopia table is
the logs' own episode scores, clustered by environment; the profile repeats each benchmark's
own numbers to the last digit; a duplicated log changes nothing; one benchmark alone has no
profile and the report says why."""

from __future__ import annotations

import math
import shutil
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log

from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions
from agentsense.sotopia import SCORE_KEYS
from agentsense.tasks import gca
from agentsense_logs import AGENT, GCA_ROLES

PROFILE = "Social-intelligence profile"


@pytest.fixture(scope="module")
def three(
    tmp_path_factory: pytest.TempPathFactory,
    kind_logs: Mapping[str, Path],
    other_logs: Mapping[str, Path],
) -> dict[str, Path]:
    """One model (the shared logs' agent) on AgentSense, Sotopia and CoSER GCA."""
    folder = tmp_path_factory.mktemp("three")
    (log,) = eval(
        gca(dataset="demo"),
        model=AGENT,
        model_roles=GCA_ROLES,
        limit=2,
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success", log.error
    return {"full": kind_logs["full"], "sotopia": other_logs["sotopia"], "gca": Path(log.location)}


def report(tmp_path: Path, *paths: Path, name: str = "out") -> tuple[object, Path]:
    out = tmp_path / name
    done = write_report([str(p) for p in paths], ReportOptions(out=out, figures=False))
    return done, out


def row(out: Path, table: str, column: str, value: str) -> pd.Series:
    frame = pd.read_csv(out / f"{table}.csv")
    found = frame[frame[column] == value]
    assert len(found) == 1, frame
    return found.iloc[0]


def same(a: object, b: object) -> bool:
    x, y = float(a), float(b)  # type: ignore[arg-type]
    return (math.isnan(x) and math.isnan(y)) or x == y


def test_the_profile_repeats_each_benchmarks_own_numbers(
    three: dict[str, Path], tmp_path: Path
) -> None:
    done, out = report(tmp_path, *three.values())
    assert PROFILE in done.sections  # type: ignore[attr-defined]
    profile = row(out, "profile", "model", AGENT)
    table1 = row(out, "table1", "run", AGENT)
    sotopia = row(out, "sotopia", "model", AGENT)
    acting = row(out, "gca", "actor", AGENT)
    pairs = {
        "agentsense_goal": (table1, "judge_majority", 1.0),
        "agentsense_info": (table1, "mcq_accuracy", 1.0),
        "sotopia_overall": (sotopia, "overall", 1.0),
        "sotopia_goal": (sotopia, "goal", 1.0),
        "gca_average": (acting, "average", 100.0),  # gca.csv is on CoSER's 0-100 scale
    }
    for key, (source, column, scale) in pairs.items():
        for part in ("mean", "ci_low", "ci_high"):
            assert same(profile[f"{key}_{part}"] * scale, source[f"{column}_{part}"]), (key, part)
        assert profile[f"{key}_n"] == source[f"{column}_n"] > 0, key
    text = (out / "report.md").read_text()
    assert "## Social-intelligence profile" in text and "## Sotopia" in text


def test_the_sotopia_table_is_the_logs_episode_scores(
    three: dict[str, Path], tmp_path: Path
) -> None:
    _, out = report(tmp_path, three["sotopia"])
    shown = row(out, "sotopia", "model", AGENT)
    log = read_eval_log(str(three["sotopia"]))
    by_episode: dict[str, list[dict[str, float]]] = defaultdict(list)
    environments = set()
    for sample in log.samples or []:
        (score,) = sample.scores.values()  # type: ignore[union-attr]
        by_episode[str(sample.id)].append(score.value)  # type: ignore[arg-type]
        environments.add((sample.metadata or {})["environment"])
    assert shown["episodes"] == len(by_episode) and shown["environments"] == len(environments)
    for key in SCORE_KEYS:
        values = [v for runs in by_episode.values() if not math.isnan(v := _mean(runs, key))]
        assert shown[f"{key}_mean"] == pytest.approx(sum(values) / len(values), abs=1e-12)
        assert shown[f"{key}_n"] == len(values)
        assert shown[f"{key}_ci_low"] <= shown[f"{key}_mean"] <= shown[f"{key}_ci_high"]


def _mean(runs: list[dict[str, float]], key: str) -> float:
    values = [float(r[key]) for r in runs if not math.isnan(float(r[key]))]
    return sum(values) / len(values) if values else math.nan


def test_a_duplicated_log_changes_no_number(three: dict[str, Path], tmp_path: Path) -> None:
    copy = tmp_path / "copy" / three["sotopia"].name
    copy.parent.mkdir()
    shutil.copy(three["sotopia"], copy)
    _, once = report(tmp_path, *three.values(), name="once")
    _, twice = report(tmp_path, *three.values(), copy, name="twice")
    for table in ("profile", "sotopia"):
        a, b = pd.read_csv(once / f"{table}.csv"), pd.read_csv(twice / f"{table}.csv")
        numbers = [c for c in a.columns if c != "log"]
        pd.testing.assert_frame_equal(a[numbers], b[numbers])


def test_one_benchmark_alone_has_no_profile_and_says_why(
    three: dict[str, Path], tmp_path: Path
) -> None:
    done, out = report(tmp_path, three["full"])
    assert PROFILE not in done.sections  # type: ignore[attr-defined]
    assert "fewer than two" in done.absent[PROFILE]  # type: ignore[attr-defined]
    assert not (out / "profile.csv").exists()
