"""Tokens and cost per role (`report/sections/usage.py`): the sums equal Inspect's usage totals."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import Model, ModelCost, ModelInfo, ModelUsage, get_model, set_model_info

from agentsense.analysis.logs import samples
from agentsense.analysis.sample_rows import SIMULATION, call_rows, part_of, reported_tokens
from agentsense.cli import main
from agentsense.report.assemble import write_report
from agentsense.report.document import ReportOptions
from agentsense.report.sections.usage import UNREPORTED, run_usage
from agentsense.standin.stub.pytest_plugin import StubFactory
from agentsense.standin.stub.server import UsageMode
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


# --- a server that reports no usage ------------------------------------------------------------

NAN = re.compile(r"\bnan\b", re.IGNORECASE)


def test_zero_counts_are_unreported_only_beside_a_zero_total() -> None:
    nan = reported_tokens(ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0))
    assert all(math.isnan(v) for v in nan.values())
    assert all(math.isnan(v) for v in reported_tokens(None).values())
    no_total = reported_tokens(ModelUsage(input_tokens=85, output_tokens=3, total_tokens=0))
    assert (no_total["input_tokens"], no_total["output_tokens"]) == (85, 3)
    assert math.isnan(no_total["total_tokens"])
    # An empty reply may really cost no output token: the server counted, so 0 is kept.
    empty = reported_tokens(ModelUsage(input_tokens=85, output_tokens=0, total_tokens=85))
    assert (empty["output_tokens"], empty["total_tokens"]) == (0, 85)


class _VisibleText(HTMLParser):
    """The text a person reads on a page: everything outside <script> and <style>."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self._hidden += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._hidden -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def readable(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".html":
        return text
    parser = _VisibleText()
    parser.feed(text)
    return " ".join(parser.parts)


def usage_table(markdown: str) -> list[list[str]]:
    """The rows of report.md's *Cost and tokens* table, as cells."""
    section = markdown.split("## Cost and tokens", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| vllm/agent-")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines]


@pytest.mark.parametrize("usage", ["zero", "no-total", "none"])
def test_a_server_without_usage_leaves_no_nan_in_the_report(
    usage: UsageMode, stub_server: StubFactory, tmp_path: Path
) -> None:
    """A server reporting total_tokens 0 (or no usage): `agentsense report` warns nothing, every
    file of the report is free of "nan", and the usage cells say they were not reported."""
    stub = stub_server(usage=usage)

    def served(name: str) -> Model:
        # A name of its own: Inspect keeps a vLLM server's state per model name for the process.
        return get_model(f"vllm/{name}-{usage}", base_url=stub.base_url, memoize=False)

    (log,) = eval(
        full(dataset="demo", max_messages=3),
        model=served("agent"),
        model_roles={"judge": served("judge")},
        sample_id=[101, 301],
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    out = tmp_path / "report"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["report", str(log.location), "--out", str(out)]) == 0
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    files = [p for p in out.rglob("*") if p.is_file() and p.suffix != ".png"]
    # The page needs inspect-viz, a dev dependency: every kind of file the report writes is read.
    assert {p.suffix for p in files} == {".md", ".csv", ".html", ".json", ".yaml"}
    for path in files:
        found = NAN.search(readable(path))
        assert found is None, f"{path.name}: ...{readable(path)[found.start() - 80 : found.end()]}"

    rows = usage_table((out / "report.md").read_text(encoding="utf-8"))
    assert {r[1] for r in rows} == {"character turns", "interviews", "judges"}
    # Every call is counted, with or without usage.
    assert sum(int(r[2]) for r in rows) == len(stub.chat_records(outcome="ok"))
    for row in rows:
        assert row[5] == row[6] == UNREPORTED  # % tokens, per scene
        # The counts the server did give are shown (no-total: prompt and completion).
        assert (row[3] == UNREPORTED) == (usage != "no-total")
    csv = pd.read_csv(out / "usage.csv")
    assert csv["total_tokens"].isna().all() and csv["token_share"].isna().all()
    assert f"tokens {UNREPORTED}" in (out / "report.md").read_text(encoding="utf-8")
