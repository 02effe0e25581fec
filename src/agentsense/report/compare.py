"""`agentsense compare BASE NEW`: a paired regression test of NEW against BASE, for CI gates
(docs/analysis.md, *agentsense compare BASE NEW*).

Each side is one run (its logs merged by `analysis.log_merge`'s rules); samples are paired by
(sample id, epoch). Per metric, the differences NEW - BASE of the paired scene scores give a mean
with a 95% interval clustered by template, a paired t and Wilcoxon test, and the one-sided test
H1: mean < -max_drop (`stats.regression_p`): a regression when its p < alpha (a metric with
fewer than 2 templates is untested). Runs that differ in more than the model (task, dataset,
protocol, seed, task arguments, judge panel, cast, pairing) are refused, one line per difference
naming the flag that overrides it, as are runs that share no metric. Exit status: 0 no
significant regression, 1 regression, 2 usage or input error (and untested metrics, unless
allowed).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from agentsense.analysis.log_merge import shortfall
from agentsense.analysis.log_reader import PROTOCOL_FIELDS, load_scores
from agentsense.analysis.logs import records
from agentsense.analysis.stats import Paired, Test, min_detectable_difference, paired
from agentsense.engine.console import blocks
from agentsense.engine.errors import ReportError
from agentsense.sense.score_keys import BLIND_MCQ_ACCURACY, HEADLINE, MCQ_ACCURACY, SCENE_KEYS

# --- whether BASE and NEW measure the same thing --------------------------------------------------

ALLOW_TASK = "--allow-task-change"
ALLOW_MIXED = "--allow-mixed"
# Task arguments compared on their own line (or not at all: `shard` selects samples).
NAMED_ARGS = ("dataset", "seed", "max_messages", "protocol", "sender", "receiver", "shard")


@dataclass(frozen=True)
class Difference:
    what: str
    base: str
    new: str
    flag: str

    def line(self) -> str:
        return f"  - {self.what}: BASE {self.base}; NEW {self.new} (override with {self.flag})"


def _args(run: Mapping[str, Any]) -> dict[str, Any]:
    """The run's task arguments, its seed among them (from the metadata when not an argument)."""
    config = json.loads(str(run.get("config") or "{}"))
    seed = (config.get("metadata") or {}).get("seed")
    return {"seed": seed, **(config.get("args") or {})}


def _shown(value: Any) -> str:
    return "(unset)" if value is None or value == "" else str(value)


def _run_differences(base: Mapping[str, Any], new: Mapping[str, Any]) -> list[Difference]:
    pairs: list[tuple[str, Any, Any, str]] = [
        ("task", base["task"], new["task"], ALLOW_TASK),
        ("dataset", base["dataset"], new["dataset"], ALLOW_MIXED),
        *((f"protocol {f}", base.get(f), new.get(f), ALLOW_MIXED) for f in PROTOCOL_FIELDS),
        ("protocol max_messages", base.get("rounds"), new.get("rounds"), ALLOW_MIXED),
    ]
    base_args, new_args = _args(base), _args(new)
    pairs.append(("seed", base_args["seed"], new_args["seed"], ALLOW_MIXED))
    others = sorted((set(base_args) | set(new_args)) - set(NAMED_ARGS) - set(PROTOCOL_FIELDS))
    pairs += [
        (f"task argument {a}", base_args.get(a), new_args.get(a), ALLOW_MIXED) for a in others
    ]
    return [
        Difference(what, _shown(b), _shown(n), flag)
        for what, b, n, flag in pairs
        if _shown(b) != _shown(n)
    ]


def _values(scenes: pd.DataFrame, column: str) -> list[str]:
    return sorted({str(v) for v in scenes[column].dropna()}) if column in scenes.columns else []


def _sample_difference(
    base: pd.DataFrame, new: pd.DataFrame, column: str, what: str
) -> Difference | None:
    """`column` compared sample by sample over the shared (id, epoch) pairs."""
    if column not in base.columns or column not in new.columns:
        return None
    shared = base.index.intersection(new.index)
    left, right = base.loc[shared, column].astype(str), new.loc[shared, column].astype(str)
    differ = shared[(left != right).to_numpy()]
    if differ.empty:
        return None
    first = differ.sort_values()[0]  # the same example whatever order the logs held
    return Difference(
        f"{what} ({len(differ)} of {len(shared)} paired samples, e.g. id {first[0]} epoch "
        f"{first[1]})",
        _shown(base.loc[first, column]),
        _shown(new.loc[first, column]),
        ALLOW_MIXED,
    )


def differences(
    base_run: Mapping[str, Any],
    new_run: Mapping[str, Any],
    base: pd.DataFrame,
    new: pd.DataFrame,
) -> list[Difference]:
    """Every way BASE and NEW (scene frames indexed by id, epoch) differ besides the model."""
    found = _run_differences(base_run, new_run)
    panels = (_values(base, "judges"), _values(new, "judges"))
    if panels[0] != panels[1]:
        found.append(
            Difference(
                "judge panel of the compared scoring",
                " | ".join(panels[0]) or "(no judges)",
                " | ".join(panels[1]) or "(no judges)",
                ALLOW_MIXED,
            )
        )
    for column, what in (("cast", "cast (model per character)"), ("pairing", "pairing (roles)")):
        difference = _sample_difference(base, new, column, what)
        if difference is not None:
            found.append(difference)
    return found


# --- the paired test ------------------------------------------------------------------------------

DEFAULT_METRICS = (HEADLINE, MCQ_ACCURACY, BLIND_MCQ_ACCURACY)
KEY = ["id", "epoch"]


@dataclass(frozen=True)
class CompareOptions:
    metrics: Sequence[str] = ()
    max_drop: float = 0.0
    alpha: float = 0.05
    test: Test = "t"
    allow_mixed: bool = False
    allow_task_change: bool = False
    allow_incomplete: bool = False
    scorer: str | None = None
    prefer_newest: bool = False


@dataclass(frozen=True)
class MetricResult:
    metric: str
    result: Paired
    regression: bool
    # Smallest true drop beyond --max-drop the one-sided test detects with 80% power.
    mde: float = math.nan


@dataclass
class Comparison:
    results: list[MetricResult]
    pairs: int
    base_only: int
    new_only: int
    notes: list[str] = field(default_factory=list)


def side(
    inputs: Sequence[str], name: str, options: CompareOptions
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Scene scores of one side, one row per (id, epoch), its run and notes. The side's logs
    must be one run (logs of one configuration are merged, see `merge`)."""
    scenes, evals, notes = load_scores(inputs, options.scorer, options.prefer_newest)
    if len(evals) > 1:
        runs = "; ".join(
            f"{run['task']} {run['model']} ({', '.join(run['log_files'])})"
            for run in records(evals)
        )
        raise ReportError(
            f"{name}: the logs are {len(evals)} different runs ({runs}); pass the logs of one "
            "run per side (a run split into pieces is merged)."
        )
    if scenes.empty:
        raise ReportError(f"{name}: no scored sample in {', '.join(inputs)}.")
    return scenes.set_index(KEY), evals, [f"{name}: {note}" for note in notes]


def check_comparable(
    base_run: dict[str, Any],
    new_run: dict[str, Any],
    base: pd.DataFrame,
    new: pd.DataFrame,
    options: CompareOptions,
) -> list[str]:
    """Refuse runs that differ in more than the model (one line per difference, naming the flag
    that overrides it); with the flag, the difference becomes a note."""
    found = differences(base_run, new_run, base, new)
    allowed = {ALLOW_TASK: options.allow_task_change, ALLOW_MIXED: options.allow_mixed}
    refused = [d for d in found if not allowed[d.flag]]
    if refused:
        raise ReportError(
            "BASE and NEW differ in more than the model, so a paired test would not measure a "
            "regression:\n" + "\n".join(d.line() for d in refused)
        )
    return [f"compared although they differ: {d.line().strip()[2:]}" for d in found]


def chosen_metrics(base: pd.DataFrame, new: pd.DataFrame, asked: Sequence[str]) -> list[str]:
    def scored(frame: pd.DataFrame, metric: str) -> bool:
        return metric in frame.columns and bool(frame[metric].notna().any())

    shared = [m for m in SCENE_KEYS if scored(base, m) and scored(new, m)]
    if not shared:
        listed = [
            ", ".join(m for m in SCENE_KEYS if scored(frame, m)) or "none" for frame in (base, new)
        ]
        raise ReportError(
            f"These runs share no metric (BASE scores {listed[0]}; NEW scores {listed[1]}): "
            "there is nothing to compare."
        )
    if asked:
        missing = [m for m in asked if m not in shared]
        if missing:
            raise ReportError(
                f"Metric(s) not scored in both BASE and NEW: {', '.join(missing)}. "
                f"Shared metrics: {', '.join(shared) or 'none'}."
            )
        return list(asked)
    default = [m for m in DEFAULT_METRICS if m in shared]
    if not default:
        raise ReportError(
            "BASE and NEW share none of the default metrics "
            f"({', '.join(DEFAULT_METRICS)}); choose with --metric."
        )
    return default


def check_complete(base: pd.DataFrame, new: pd.DataFrame, runs: dict[str, pd.DataFrame]) -> None:
    """A gate fails closed: an unfinished run, or scenes of BASE missing from NEW, is not a pass."""
    unfinished = [
        f"{name}: {Path(str(run['log'])).name} ({shortfall(run)})"
        for name, frame in runs.items()
        for run in records(frame)
        if shortfall(run) is not None
    ]
    missing = base.index.difference(new.index)
    problems = unfinished + (
        [
            f"NEW lacks {len(missing)} sample(s) of BASE, e.g. id {missing[0][0]} "
            f"epoch {missing[0][1]}"
        ]
        if len(missing)
        else []
    )
    if problems:
        raise ReportError(
            "Refusing to compare incomplete runs: "
            + "; ".join(problems)
            + ". Finish them (inspect eval-retry) or pass --allow-incomplete."
        )


def templates(scenes: pd.DataFrame) -> list[object] | None:
    """The template of each pair (its cluster), or None when a log does not record it."""
    if "template_id" not in scenes.columns or scenes["template_id"].isna().any():
        return None
    return list(scenes["template_id"])


def compare(
    base_inputs: Sequence[str], new_inputs: Sequence[str], options: CompareOptions
) -> Comparison:
    base, base_runs, base_notes = side(base_inputs, "BASE", options)
    new, new_runs, new_notes = side(new_inputs, "NEW", options)
    notes = base_notes + new_notes
    metrics = chosen_metrics(base, new, options.metrics)
    (base_run,), (new_run,) = records(base_runs), records(new_runs)
    notes += check_comparable(base_run, new_run, base, new, options)
    if not options.allow_incomplete:
        check_complete(base, new, {"BASE": base_runs, "NEW": new_runs})
    shared = base.index.intersection(new.index)
    if shared.empty:
        raise ReportError("BASE and NEW have no sample (id, epoch) in common: nothing to pair.")
    results = []
    clusters = templates(base.loc[shared])
    for metric in metrics:
        b, w = base.loc[shared, metric].astype(float), new.loc[shared, metric].astype(float)
        result = paired(list(b), list(w), options.max_drop, options.test, clusters)
        regression = result.p_regression < options.alpha  # NaN (too few pairs) never regresses
        both = b.notna() & w.notna()
        kept = None if clusters is None else [c for c, k in zip(clusters, both, strict=True) if k]
        mde = min_detectable_difference(
            list((w - b)[both]), kept or list(range(int(both.sum()))), options.alpha
        )
        results.append(MetricResult(metric, result, bool(regression), mde))
    return Comparison(
        results,
        len(shared),
        len(base.index.difference(shared)),
        len(new.index.difference(shared)),
        notes,
    )


def _p(value: float) -> str:
    return "–" if value != value else f"{value:.3g}"


def comparison_rows(
    comparison: Comparison, options: CompareOptions
) -> tuple[list[str], list[list[str]]]:
    """The comparison's header and one row of cells per metric."""
    head = [
        "metric",
        "pairs",
        "templates",
        "BASE",
        "NEW",
        "NEW − BASE [95% CI]",
        "p (paired t)",
        "p (Wilcoxon)",
        f"p (drop > {options.max_drop:g}, {options.test})",
        f"MDE (80% power, α {options.alpha:g})",
        "verdict",
    ]
    rows = []
    for item in comparison.results:
        r = item.result
        interval = f"{r.diff.mean:+.3f}"
        if not math.isnan(r.diff.half_width):
            interval += f" [{r.diff.low:+.3f}, {r.diff.high:+.3f}]"
        if r.diff.caveat:
            interval += f" {r.diff.caveat}"
        verdict = "REGRESSION" if item.regression else "ok"
        if math.isnan(r.p_regression):
            verdict = "untested: " + (r.diff.caveat or "fewer than 2 pairs")
        rows.append(
            [
                item.metric,
                str(r.n),
                "–" if r.diff.clusters is None else str(r.diff.clusters),
                f"{r.base:.3f}",
                f"{r.new:.3f}",
                interval,
                _p(r.p_ttest),
                _p(r.p_wilcoxon),
                _p(r.p_regression),
                "–" if math.isnan(item.mde) else f"{item.mde:.3f}",
                verdict,
            ]
        )
    return head, rows


def comparison_text(comparison: Comparison, options: CompareOptions) -> str:
    """The comparison for an 80-column console: a block per metric."""
    return blocks(*comparison_rows(comparison, options))


def comparison_frame(comparison: Comparison) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "metric": i.metric,
                "pairs": i.result.n,
                "base": i.result.base,
                "new": i.result.new,
                "diff": i.result.diff.mean,
                "diff_ci_low": i.result.diff.low,
                "diff_ci_high": i.result.diff.high,
                "p_ttest": i.result.p_ttest,
                "p_wilcoxon": i.result.p_wilcoxon,
                "p_regression": i.result.p_regression,
                "templates": i.result.diff.clusters,
                "mde": i.mde,
                "regression": i.regression,
            }
            for i in comparison.results
        ]
    )
