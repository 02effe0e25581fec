"""Tokens and cost per role (`report/sections/usage.py`): the sums equal Inspect's usage totals."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelCost, ModelInfo, set_model_info

from agentsense.analysis.logs import samples
from agentsense.analysis.sample_rows import SIMULATION, call_rows, part_of
from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions
from agentsense.report.sections.usage import run_usage
from agentsense.tasks import full

AGENT = "standin/persona/agent"
JUDGES = ["standin/persona/judge-a", "standin/persona/judge-b"]
PRICES = {AGENT: (1.0, 2.0), JUDGES[0]: (10.0, 30.0), JUDGES[1]: (5.0, 15.0)}  # $ / M tokens


def log_calls(path: str) -> pd.DataFrame:
    """Every model call of one log, one row each (what the report's usage tables sum)."""
    return pd.DataFrame([row for sample in samples(path) for row in call_rows(path, sample)])


def stats_totals(path: str, by: str) -> dict[str, tuple[int, int]]:
    """Inspect's own (input, output) tokens of one log, by `model` or by `role`."""
    stats = read_eval_log(path, header_only=True).stats
    usage = stats.model_usage if by == "model" else stats.role_usage
    return {key: (u.input_tokens, u.output_tokens) for key, u in usage.items()}


def _sums(calls: pd.DataFrame, by: str) -> dict[str, tuple[int, int]]:
    summed = calls.groupby(by)[["input_tokens", "output_tokens"]].sum()
    return {str(k): (int(r.input_tokens), int(r.output_tokens)) for k, r in summed.iterrows()}


@pytest.mark.parametrize("kind", ["full", "pairwise", "info", "goal"])
def test_token_sums_equal_inspect_totals(kind_logs: dict[str, Path], kind: str) -> None:
    path = str(kind_logs[kind])
    calls = log_calls(path)
    assert _sums(calls, "model") == stats_totals(path, "model")
    with_role = calls[calls["role"] != ""]
    assert _sums(with_role, "role") == stats_totals(path, "role")


def test_rejudge_is_counted_beyond_inspect_totals(rejudged_logs: dict[str, Path]) -> None:
    """`inspect score` adds calls the log's stats do not count: the eval's own rows still equal
    them, and the re-judge's judge calls are the rows marked rescored."""
    path = str(rejudged_logs["full"])
    calls = log_calls(path)
    assert _sums(calls[~calls["rescored"]], "model") == stats_totals(path, "model")
    rescored = calls[calls["rescored"]]
    assert len(rescored) and set(rescored["scoring"]) == {"goal_completion"}
    assert set(rescored["part"]) == {"judges (re-scoring)", "interviews (re-scoring)"}


def test_parts_per_role() -> None:
    assert part_of(SIMULATION, "character") == "character turns"
    assert part_of("scoring", "character") == "interviews"
    assert part_of("scoring", "judge") == "judges"
    assert part_of(SIMULATION, "sender") == "character turns (sender)"
    assert part_of("scoring", "critic") == "critic (scoring)"
    assert part_of(SIMULATION, None) == "evaluated model (simulation)"


def test_parts_of_a_full_run(kind_logs: dict[str, Path]) -> None:
    calls = log_calls(str(kind_logs["full"]))
    assert set(calls["part"]) == {"character turns", "interviews", "judges"}
    # Every turn is a simulation call, every interview and judge call a scoring call.
    assert set(calls.loc[calls["part"] == "character turns", "phase"]) == {SIMULATION}
    assert set(calls.loc[calls["part"] != "character turns", "phase"]) == {"scoring"}
    parts = run_usage(calls.assign(group="g"))
    assert parts["token_share"].sum() == pytest.approx(1.0)


@pytest.fixture
def priced() -> Iterator[None]:
    for model, (inp, out) in PRICES.items():
        cost = ModelCost(input=inp, output=out, input_cache_write=inp, input_cache_read=inp)
        set_model_info(model, ModelInfo(cost=cost))
    yield
    for model in PRICES:  # unpriced again (public API only: no info without a cost)
        set_model_info(model, ModelInfo())


def test_cost_per_role_equals_inspect_cost(priced: None, tmp_path: Path) -> None:
    (log,) = eval(
        full(dataset="demo", max_messages=3),
        model=AGENT,
        model_roles={"judge": JUDGES},
        sample_id=[101, 301],
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    path = str(log.location)
    calls = log_calls(path)
    assert calls["cost"].notna().all()
    stats = read_eval_log(path, header_only=True).stats.model_usage
    for model, frame in calls.groupby("model"):
        assert frame["cost"].sum() == pytest.approx(stats[str(model)].total_cost)
        inp, out = PRICES[str(model)]
        expected = (frame["input_tokens"].sum() * inp + frame["output_tokens"].sum() * out) / 1e6
        assert frame["cost"].sum() == pytest.approx(expected)
    parts = run_usage(calls.assign(group="g")).set_index("part")
    assert parts["cost_share"].sum() == pytest.approx(1.0)
    judges = parts.loc["judges"]
    assert not math.isnan(judges["cost_share"])
    report = write_report([path], ReportOptions(out=tmp_path / "report", figures=False))
    assert "Cost and tokens" in report.sections
    text = (tmp_path / "report" / "report.md").read_text()
    share = f"{100 * judges['cost_share']:.0f}% of cost"
    assert share in text  # Table 1's note
    assert "No prices in these logs" not in text


@pytest.mark.parametrize(
    ("task", "options", "parts"),
    [
        pytest.param(
            "gca",
            {
                "model": "standin/gca/actor",
                "model_roles": {
                    "next_speaker": "standin/gca/nsp",
                    "environment": "standin/gca/env",
                    "critic": "standin/gca/critic",
                },
                "limit": 1,
            },
            {
                "character turns",
                "next_speaker (simulation)",
                "environment (simulation)",
                "critic (scoring)",
            },
            marks=pytest.mark.slow,  # about a minute on a loaded machine (GCA's imports)
        ),
        ("construct", {"model": "standin/persona/builder"}, {"builder (simulation)"}),
    ],
)
def test_other_tasks_roles(
    task: str, options: dict[str, object], parts: set[str], tmp_path: Path
) -> None:
    """GCA's and construction's roles are parts of their own; the sums equal Inspect's."""
    from agentsense.tasks import construct, gca

    made = {"gca": lambda: gca(dataset="demo"), "construct": construct}[task]()
    (log,) = eval(made, log_dir=str(tmp_path), display="none", **options)  # type: ignore[arg-type]
    assert log.status == "success", log.error
    calls = log_calls(str(log.location))
    assert set(calls["part"]) == parts
    assert _sums(calls, "model") == stats_totals(str(log.location), "model")
