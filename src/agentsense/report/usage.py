"""Tokens and cost per role: who spent the run's budget (the report's *Cost and tokens*).

Read from every sample's model events, so a re-judge appended by `inspect score` counts too
(Inspect's own `EvalLog.stats` covers the eval only; the rows of the eval's own scorings and
the simulation add up to it exactly, tested). A call is put into a *part* by its model role
and by where it was made: in the solver (the simulation) or in a scorer (interviews, judges,
critics). Cost is Inspect's (`ModelUsage.total_cost`), present when the models have prices
(`--model-cost-config`); cache reads cost no tokens and are left out, as Inspect does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import pandas as pd
from inspect_ai.event import ModelEvent, SpanBeginEvent
from inspect_ai.log import EvalSample, read_eval_log

from agentsense.analysis.log_fields import records
from agentsense.engine.roles import CHARACTER_ROLE, JUDGE_ROLE, RECEIVER_ROLE, SENDER_ROLE
from agentsense.report.log_samples import run_paths, sample_frame
from agentsense.report.render import Section, markdown
from agentsense.sense.score_keys import JUDGE_REPEAT

PLAYER_ROLES = (CHARACTER_ROLE, SENDER_ROLE, RECEIVER_ROLE)  # roles that play characters
SIMULATION, SCORING = "simulation", "scoring"
EVALUATED = "evaluated model"  # calls with no role
RESCORED = " (re-scoring)"  # a part's calls made by `inspect score` after the eval
COLUMNS = [
    "log",
    "id",
    "epoch",
    "phase",
    "scoring",
    "rescored",
    "part",
    "role",
    "model",
    "calls",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cost",
]
SUMMED = ["calls", "input_tokens", "output_tokens", "total_tokens"]


def part_of(phase: str, role: str | None) -> str:
    """The part of the bill a call belongs to (`character turns`, `interviews`, `judges`, or
    its role and phase for other tasks' roles: GCA's environment and critics, the builder)."""
    if role == JUDGE_ROLE:
        return "judges"
    if role in PLAYER_ROLES:
        part = "character turns" if phase == SIMULATION else "interviews"
        return part if role == CHARACTER_ROLE else f"{part} ({role})"
    return f"{role or EVALUATED} ({phase})"


def _scorer_span(event: ModelEvent, spans: dict[str, SpanBeginEvent]) -> str | None:
    """The id of the scorer span a call was made in, if any."""
    span_id = event.span_id
    while span_id is not None and span_id in spans:
        span = spans[span_id]
        if span.type == "scorer":
            return span.id
        span_id = span.parent_id
    return None


def _rescored(span: SpanBeginEvent, sample: EvalSample) -> bool:
    """Whether a scorer ran after the sample had finished (`inspect score` re-scoring it)."""
    if not sample.completed_at:
        return False
    return span.timestamp > datetime.fromisoformat(str(sample.completed_at))


def sample_rows(sample: EvalSample, log: str) -> list[dict[str, Any]]:
    """One row per model call of one sample."""
    spans = {e.id: e for e in sample.events if isinstance(e, SpanBeginEvent)}
    scorer_spans = [e.id for e in spans.values() if e.type == "scorer"]
    later = {span for span in scorer_spans if _rescored(spans[span], sample)}
    names = list(sample.scores or {})
    # Scorer spans run in the order the scores were added (the eval's, then each re-score).
    scoring_of = dict(zip(scorer_spans, names, strict=False))
    rows = []
    for event in sample.events:
        if not isinstance(event, ModelEvent) or event.cache == "read":
            continue
        usage = event.output.usage if event.output is not None else None
        if usage is None:
            continue
        span = _scorer_span(event, spans)
        phase = SIMULATION if span is None else SCORING
        name = scoring_of.get(span, "") if span is not None else ""
        score = (sample.scores or {}).get(name)
        repeat = (score.metadata or {}).get(JUDGE_REPEAT) if score is not None else None
        rows.append(
            {
                "log": log,
                "id": str(sample.id),
                "epoch": int(sample.epoch),
                "phase": phase,
                "scoring": f"{name} (repeat {repeat})" if repeat else name,
                "rescored": span in later,
                "part": part_of(phase, event.role) + (RESCORED if span in later else ""),
                "role": event.role or "",
                "model": event.model,
                "calls": 1,
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "total_tokens": usage.total_tokens,
                "cost": math.nan if usage.total_cost is None else usage.total_cost,
            }
        )
    return rows


def log_calls(path: str) -> pd.DataFrame:
    """Every model call of one log, one row each."""
    return sample_frame(path, sample_rows, COLUMNS)


def _sum(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    summed = frame.groupby(keys, sort=True, dropna=False)[SUMMED].sum()
    # A part is priced only if every one of its calls is (else its cost is unknown: NaN).
    cost = frame.groupby(keys, sort=True, dropna=False)["cost"].agg(
        lambda c: c.sum() if c.notna().all() else math.nan
    )
    return summed.assign(cost=cost).reset_index()


def scene_usage(calls: pd.DataFrame) -> pd.DataFrame:
    """Per scene and epoch, per part and model: calls, tokens and cost."""
    return _sum(calls, ["group", "id", "epoch", "part", "role", "model"])


def run_usage(calls: pd.DataFrame) -> pd.DataFrame:
    """Per run group and part: calls, tokens, cost, their shares, and the mean per scene."""
    parts = _sum(calls, ["group", "part"])
    totals = parts.groupby("group")[["total_tokens", "cost"]].transform("sum", min_count=1)
    scenes = calls.groupby("group")[["id", "epoch"]].apply(lambda f: len(f.drop_duplicates()))
    parts["token_share"] = parts["total_tokens"] / totals["total_tokens"]
    parts["cost_share"] = parts["cost"] / totals["cost"]
    parts["tokens_per_scene"] = parts["total_tokens"] / parts["group"].map(scenes)
    return parts


def stats_totals(path: str, by: str) -> dict[str, tuple[int, int]]:
    """Inspect's own (input, output) tokens of one log, by `model` or by `role`."""
    stats = read_eval_log(path, header_only=True).stats
    usage = stats.model_usage if by == "model" else stats.role_usage
    return {key: (u.input_tokens, u.output_tokens) for key, u in usage.items()}


def calls_of(runs: pd.DataFrame, paths: Sequence[str]) -> pd.DataFrame:
    """The model calls of every run, labelled with the run's group."""
    frames: list[pd.DataFrame] = []
    for run in records(runs):
        frames += [log_calls(path).assign(group=run["group"]) for path in run_paths(run, paths)]
    if not frames:
        return pd.DataFrame(columns=[*COLUMNS, "group"])
    return pd.concat(frames, ignore_index=True)


def _tokens(value: float) -> str:
    return f"{value / 1e6:.2f} M" if value >= 1e5 else f"{value / 1e3:.1f} k"


def _cost(value: float) -> str:
    return "–" if math.isnan(value) else f"${value:.4f}"


def table_one_notes(parts: pd.DataFrame) -> list[str]:
    """One line per run group: its tokens, its cost if priced, and the judges' share."""
    lines = []
    for group, frame in parts.groupby("group", sort=True):
        tokens = frame["total_tokens"].sum()
        judges = frame.loc[frame["part"].str.startswith("judges")]
        text = f"{group}: {_tokens(tokens)} tokens"
        if frame["cost"].notna().all():
            text += f", {_cost(frame['cost'].sum())}"
        if len(judges):
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
    "priced only if all its calls are. Per scene and epoch: `usage_by_scene.csv`."
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
            f"{100 * r['token_share']:.1f}",
            _tokens(float(r["tokens_per_scene"])),
            _cost(float(r["cost"])),
            "–" if math.isnan(r["cost_share"]) else f"{100 * r['cost_share']:.1f}",
        ]
        for r in rows
    ]


def usage_section(runs: pd.DataFrame, paths: Sequence[str]) -> Section | str:
    """The section, or why it is left out."""
    calls = calls_of(runs, paths)
    if calls.empty:
        return "no model call with usage in the logs"
    parts = run_usage(calls)
    head = ["Run", "part", "calls", "input", "output", "% tokens", "per scene", "cost", "% cost"]
    text = USAGE_INTRO + "\n\n" + markdown(head, _rows(parts))
    if calls["cost"].isna().all():
        text += (
            "\n\nNo prices in these logs: run with `--model-cost-config prices.yaml` (see "
            "README, *Judge repeats, variance components, tokens and cost*)."
        )
    return Section(text, {"usage": parts, "usage_by_scene": scene_usage(calls)})
