"""Tokens and cost per role: who spent the run's budget (the report's *Cost and tokens*).

The calls are read from every sample's model events (`analysis.sample_rows.call_rows`), so a
re-judge appended by `inspect score` counts too (Inspect's own `EvalLog.stats` covers the eval
only; the rows of the eval's own scorings and the simulation add up to it exactly, tested). A
call is put into a *part* by its model role and by where it was made: in the solver (the
simulation) or in a scorer (interviews, judges, critics). Cost is Inspect's
(`ModelUsage.total_cost`), present when the models have prices (`--model-cost-config`).

A server may report no usage, or zeros (`analysis.sample_rows.reported_tokens`): such a call
counts, its tokens are unknown (NaN), and so is every sum and share it is part of. The table says
"not reported by the server" there, the CSVs leave the cell empty.
"""

from __future__ import annotations

import math

import pandas as pd

from agentsense.analysis.logs import records
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.render import markdown

TOKENS = ["input_tokens", "output_tokens", "total_tokens"]
UNREPORTED = "not reported by the server"


def _known_sum(values: pd.Series) -> float:
    """The sum, or NaN when a value is unknown (an unpriced call, tokens a server did not count)."""
    return float(values.sum()) if values.notna().all() else math.nan


def _sum(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    columns = [*TOKENS, "cost"]
    grouped = frame.groupby(keys, sort=True, dropna=False)
    summed = grouped[["calls", *columns]].sum()
    # A part's tokens and cost are known only if every one of its calls' are (else NaN): as
    # `_known_sum`, counted for all groups at once (a per-group function is 40x slower).
    unknown = frame[columns].isna().groupby([frame[k] for k in keys], sort=True, dropna=False)
    summed[columns] = summed[columns].mask(unknown.any())
    return summed.reset_index()


def run_usage(calls: pd.DataFrame) -> pd.DataFrame:
    """Per run group and part: calls, tokens, cost, their shares, and the mean per scene."""
    parts = _sum(calls, ["group", "part"])
    totals = parts.groupby("group")[["cost"]].transform("sum", min_count=1)
    totals["total_tokens"] = parts.groupby("group")["total_tokens"].transform(_known_sum)
    scenes = calls.groupby("group")[["id", "epoch"]].apply(lambda f: len(f.drop_duplicates()))
    parts["token_share"] = parts["total_tokens"] / totals["total_tokens"]
    parts["cost_share"] = parts["cost"] / totals["cost"]
    parts["tokens_per_scene"] = parts["total_tokens"] / parts["group"].map(scenes)
    return parts


def calls_of(runs: pd.DataFrame, calls: pd.DataFrame) -> pd.DataFrame:
    """The model calls of every run (`Runs.calls`), labelled with the run's group."""
    groups = {str(run["log"]): run["group"] for run in records(runs)}
    return calls[calls["log"].isin(groups)].assign(group=lambda f: f["log"].map(groups))


def _tokens(value: float) -> str:
    if math.isnan(value):
        return UNREPORTED
    return f"{value / 1e6:.2f} M" if value >= 1e5 else f"{value / 1e3:.1f} k"


def _percent(value: float, unknown: str) -> str:
    return unknown if math.isnan(value) else f"{100 * value:.1f}"


def _cost(value: float) -> str:
    return "–" if math.isnan(value) else f"${value:.4f}"


def table_one_notes(parts: pd.DataFrame) -> list[str]:
    """One line per run group: its tokens, its cost if priced, and the judges' share."""
    lines = []
    for group, frame in parts.groupby("group", sort=True):
        tokens = _known_sum(frame["total_tokens"])
        judges = frame.loc[frame["part"].str.startswith("judges")]
        text = f"{group}: {_tokens(tokens)} tokens"
        if math.isnan(tokens):
            text = f"{group}: tokens {UNREPORTED}"
        if frame["cost"].notna().all():
            text += f", {_cost(frame['cost'].sum())}"
        if len(judges) and tokens > 0:  # NaN (not reported) compares False
            text += f"; judges {100 * judges['total_tokens'].sum() / tokens:.0f}% of tokens"
            if frame["cost"].notna().all() and frame["cost"].sum() > 0:
                text += f", {100 * judges['cost'].sum() / frame['cost'].sum():.0f}% of cost"
        lines.append(text)
    return lines


USAGE_INTRO = (
    "## Cost and tokens\n\nPer run and part: model calls, input and output tokens, the part's "
    "share of the run's tokens, its mean tokens per scene (and epoch), and Inspect's cost (when "
    "the log has prices: `--model-cost-config`; – otherwise) with its share. Parts: character "
    "turns (the simulation), interviews (self, other and MCQ answers), judges (the panel), and "
    'other roles by name; "(re-scoring)": calls of `inspect score` after the eval (judge '
    "repeats, other panels), which Inspect's own totals in the log do not count. A part is "
    "priced only if all its calls are. Per scene and epoch: `usage_by_scene.csv`. A server that "
    f'sends no usage, or zeros, leaves its tokens unknown: "{UNREPORTED}" here, an empty cell in '
    "the CSVs."
)


def _rows(parts: pd.DataFrame) -> list[list[str]]:
    rows = records(parts)
    return [
        [
            str(r["group"]),
            str(r["part"]),
            str(int(r["calls"])),
            _tokens(float(r["input_tokens"])),
            _tokens(float(r["output_tokens"])),
            _percent(float(r["token_share"]), UNREPORTED),
            _tokens(float(r["tokens_per_scene"])),
            _cost(float(r["cost"])),
            _percent(float(r["cost_share"]), "–"),
        ]
        for r in rows
    ]


def usage_section(inputs: Inputs) -> Content:
    calls = calls_of(inputs.units.runs, inputs.runs.calls)
    if calls.empty:
        return Absent("no model call in the logs")
    parts = run_usage(calls)
    head = ["Run", "part", "calls", "input", "output", "% tokens", "per scene", "cost", "% cost"]
    text = USAGE_INTRO + "\n\n" + markdown(head, _rows(parts))
    if calls["cost"].isna().all():
        text += (
            "\n\nNo prices in these logs: run with `--model-cost-config prices.yaml` (see "
            "README, *Judge repeats, variance components, tokens and cost*)."
        )
    inputs.report.csv(parts, "usage")
    # Per scene and epoch, per part and model.
    inputs.report.csv(
        _sum(calls, ["group", "id", "epoch", "part", "role", "model"]), "usage_by_scene"
    )
    return text
