"""`agentsense report`: logs -> report.md, CSV tables, PNG figures and figures.json, one folder."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from . import tables
from .frames import Units, build_units
from .labels import apply_labels, read_labels
from .loading import load_runs, records
from .plots import DIFFERENCE_LIMITS, SCORE_LIMITS, FigureRecord, Panel, bar_figure, heatmap_figure
from .render import flat, frame_markdown, long_flat, markdown, wide
from .sensitivity import ALPHA, DEFAULT_METRIC, Sensitivity, profile_sensitivity
from .stats import Estimate

PRIMARY = "judge_majority"
HEADERS = {
    "kind": "Run",
    "self": "Self",
    "other": "Other",
    "judge_mean": "Judge mean",
    "judge_majority": "Judge majority",
    "goal_psi": "Goal PSI ↓",
    "mcq_accuracy": "MCQ acc.",
    "mcq_psi": "MCQ PSI ↓",
    "blind_mcq_accuracy": "Blind acc.",
    "gain_over_blind": "MCQ − blind (paired)",
    "attack": "Attack",
    "defence": "Defence",
    "overconfidence": "Self − judge majority",
}
SCENE_FACTORS = (
    ("scenario_type", "Scenario type", "by_scenario_type", "Fig. 9"),
    ("n_characters", "Participants", "by_participants", "Fig. 11"),
    ("rounds", "Rounds (max messages)", "by_rounds", "Fig. 10"),
)


@dataclass
class ReportOptions:
    out: Path
    allow_mixed: bool = False
    labels: Path | None = None
    sensitivity_metric: str = DEFAULT_METRIC
    alpha: float = ALPHA


@dataclass
class Report:
    """What was written, for the CLI summary and for tests."""

    out: Path
    sections: list[str] = field(default_factory=list)
    figures: list[FigureRecord] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)

    def csv(self, frame: pd.DataFrame, name: str) -> None:
        frame.to_csv(self.out / f"{name}.csv", index=False)
        self.tables.append(f"{name}.csv")

    def figure(self, record: FigureRecord) -> str:
        self.figures.append(record)
        return f"![{record.title}](figures/{record.file})"


# --- sections ----------------------------------------------------------------------------------


def _runs_section(units: Units) -> str:
    rows = []
    for run in records(units.runs):
        who = f"{run['sender']} × {run['receiver']}" if run["kind"] == "pairwise" else run["model"]
        rows.append(
            [
                Path(str(run["log"])).name,
                run["task"],
                who,
                run["group"],
                run["dataset"],
                run["mode"],
                "–" if pd.isna(run["rounds"]) else int(run["rounds"]),
                run["judges"] or "–",
            ]
        )
    head = [
        "log",
        "task",
        "model / sender × receiver",
        "row",
        "dataset",
        "protocol",
        "max messages",
        "judges",
    ]
    return "## Runs\n\n" + markdown(head, rows)


def _table_one_section(units: Units, report: Report) -> str:
    table = tables.table_one(units)
    report.csv(flat(table, "run"), "table1")
    counts = pd.DataFrame(
        {
            "n scenes": [_n(r, "judge_majority") for r in table.itertuples()],
            "n MCQ scenes": [_n(r, "mcq_accuracy") for r in table.itertuples()],
            "n templates (goal PSI)": [_n(r, "goal_psi") for r in table.itertuples()],
            "n blind scenes": [_n(r, "blind_mcq_accuracy") for r in table.itertuples()],
        },
        index=table.index,
    )
    shown = pd.concat([table, counts], axis=1)
    text = (
        "## Table 1: overall performance\n\nScores in %, mean ± 95% CI half-width over scenes "
        "(epochs averaged first). PSI: mean over templates of the per-template std of the scene "
        "scores (goal PSI on judge majority), ± its CI over templates.\n\n"
        + frame_markdown(shown, "Model / sender × receiver", with_n=False, headers=HEADERS)
    )
    panels = [
        Panel(HEADERS[m], list(table.index), {"mean": list(table[m])})
        for m in ("judge_majority", "mcq_accuracy", "blind_mcq_accuracy")
        if any(isinstance(v, Estimate) and v.n for v in table[m])
    ]
    if panels:
        text += "\n\n" + report.figure(
            bar_figure(panels, "Overall performance", report.out / "figures/overall.png")
        )
    return text


def _n(row: object, column: str) -> int:
    value = getattr(row, column)
    return value.n if isinstance(value, Estimate) else 0


def _leakage_section(units: Units, report: Report) -> str:
    table = tables.leakage(units)
    if table.empty:
        return ""
    report.csv(flat(table, "run"), "leakage")
    return (
        "## Leakage baseline (blind test, §4.3)\n\nMCQ accuracy answered from the scenario "
        "alone (blind) and after the interaction; the gain is paired over the scenes in both.\n\n"
        + frame_markdown(table, "Model / sender × receiver", headers=HEADERS)
    )


def _panels(frame: pd.DataFrame, by: str, metrics: Sequence[str]) -> list[Panel]:
    panels = []
    for metric in metrics:
        table = wide(frame, by, metric)
        if table.empty:
            continue
        series = {
            str(group): [v if isinstance(v, Estimate) else None for v in table[group]]
            for group in table.columns
        }
        panels.append(
            Panel(HEADERS.get(metric, metric), [str(level) for level in table.index], series)
        )
    return panels


@dataclass(frozen=True)
class Breakdown:
    by: str  # column of the unit frame
    label: str  # what its levels are
    name: str  # file stem
    title: str
    metrics: Sequence[str] = tables.BREAKDOWN_METRICS
    primary: str = PRIMARY
    limits: tuple[float, float] = SCORE_LIMITS


def _breakdown_section(frame: pd.DataFrame, spec: Breakdown, report: Report) -> str:
    if frame.empty:
        return ""
    report.csv(long_flat(frame), spec.name)
    panels = _panels(frame, spec.by, spec.metrics)
    figure = report.figure(
        bar_figure(panels, spec.title, report.out / f"figures/{spec.name}.png", limits=spec.limits)
    )
    table = wide(frame, spec.by, spec.primary)
    return (
        f"## {spec.title}\n\n{HEADERS.get(spec.primary, spec.primary)} in %, "
        "mean ± 95% CI (n); all "
        f"metrics in `{spec.name}.csv`.\n\n"
        + frame_markdown(table, spec.label, headers=HEADERS)
        + "\n\n"
        + figure
    )


def _category_sections(units: Units, report: Report) -> str:
    if not tables.has_categories(units):
        return (
            "## Goal categories\n\nNo goal has a category: label them with `agentsense/labelling` "
            "and pass `--labels`."
        )
    parts = [
        _breakdown_section(
            tables.category_breakdown(units),
            Breakdown(
                "category",
                "goal category",
                "by_category",
                "Goal completion by goal category (Fig. 6)",
            ),
            report,
        ),
        _breakdown_section(
            tables.overconfidence(units),
            Breakdown(
                "category",
                "goal category",
                "overconfidence",
                "Over-confidence by goal category (self − judge majority)",
                ["overconfidence"],
                "overconfidence",
                DIFFERENCE_LIMITS,
            ),
            report,
        ),
    ]
    return "\n\n".join(p for p in parts if p)


def _scene_sections(units: Units, report: Report) -> str:
    parts = [
        _breakdown_section(
            tables.scene_breakdown(units, by),
            Breakdown(by, label, name, f"Goal completion by {label.lower()} ({fig})"),
            report,
        )
        for by, label, name, fig in SCENE_FACTORS
    ]
    return "\n\n".join(p for p in parts if p)


def _matrix_block(matrix: pd.DataFrame, title: str, name: str, report: Report) -> str:
    if matrix.empty:
        return ""
    report.csv(flat(matrix, "sender"), name)
    figure = heatmap_figure(matrix, title, report.out / f"figures/{name}.png", "sender", "receiver")
    return (
        f"### {title}\n\n"
        + frame_markdown(matrix, "sender \\ receiver")
        + "\n\n"
        + report.figure(figure)
    )


def _pairs_section(units: Units, report: Report) -> str:
    variants = tables.pairwise_variants(units)
    if not variants:
        return ""
    parts = [
        "## Sender × receiver (Figs. 5a, 7, 8)\n\nJudge majority in %, mean ± 95% CI (n scenes)."
    ]
    for k, variant in enumerate(variants):
        tag = f"_{k + 1}" if len(variants) > 1 else ""
        parts += [
            _matrix_block(
                tables.scene_matrix(units, variant),
                f"All characters{variant}",
                f"pairs{tag}",
                report,
            ),
            _matrix_block(
                tables.role_matrix(units, "sender", variant),
                f"Senders{variant}",
                f"pairs_senders{tag}",
                report,
            ),
            _matrix_block(
                tables.role_matrix(units, "receiver", variant),
                f"Receivers{variant}",
                f"pairs_receivers{tag}",
                report,
            ),
        ]
    return "\n\n".join(p for p in parts if p)


def _attack_section(units: Units, report: Report) -> str:
    table = tables.attack_defence(units)
    if table.empty:
        return ""
    report.csv(flat(table, "model"), "attack_defence")
    panel = Panel(
        "Attacker / defender",
        list(table.index),
        {"attack": list(table["attack"]), "defence": list(table["defence"])},
    )
    figure = bar_figure(
        [panel], "Attacker and defender (Fig. 5b)", report.out / "figures/attack_defence.png"
    )
    return (
        "## Attacker and defender (§5.2, Fig. 5b)\n\n"
        "Attack: MCQ accuracy of the model's characters. "
        "Defence: 1 − accuracy of the MCQs about its characters' secrets (target rule in "
        "docs/analysis.md). In %, mean ± 95% CI (n questions).\n\n"
        + frame_markdown(table, "Model", headers=HEADERS)
        + "\n\n"
        + report.figure(figure)
    )


def _sensitivity_section(units: Units, options: ReportOptions, report: Report) -> str:
    result = profile_sensitivity(units, options.sensitivity_metric, options.alpha)
    if result.tests.empty:
        return ""
    report.csv(result.tests, "sensitivity_tests")
    report.csv(result.templates, "abnormal_templates")
    return (
        _sensitivity_text(result)
        + "\n\n"
        + report.figure(_sensitivity_figure(units, result, report))
    )


def _sensitivity_text(result: Sensitivity) -> str:
    stds = result.tests.pivot(index="template_id", columns="group", values="std")
    rows = [
        [str(t), *(f"{v * 100:.1f}" if pd.notna(v) else "–" for v in row)]
        for t, row in zip(stds.index, stds.itertuples(index=False), strict=True)
    ]
    abnormal = result.templates[result.templates["abnormal"]]
    listed = ", ".join(str(t) for t in abnormal["template_id"]) or "none"
    return (
        f"## Profile sensitivity (§5.3, App. D.6)\n\nPer-template std of {result.metric} over the "
        "template's scenes (in %):\n\n"
        + markdown(["template", *map(str, stds.columns)], rows)
        + f"\n\nChi-square variance test per run and template (alpha = {result.alpha}); "
        "a template is "
        f"abnormal when rejected for more than half of the runs tested on it. "
        f"**Abnormal templates: {listed}** ({len(result.templates)} templates tested; details in "
        "`sensitivity_tests.csv`, `abnormal_templates.csv`)."
    )


def _sensitivity_figure(units: Units, result: Sensitivity, report: Report) -> FigureRecord:
    abnormal = set(result.templates.loc[result.templates["abnormal"], "template_id"])
    frame = tables.breakdown(tables.real_scenes(units), "template_id", [result.metric])
    panels = _panels(frame, "template_id", [result.metric])
    for panel in panels:
        panel.x = [f"{x}*" if x in abnormal else x for x in panel.x]
    title = f"{result.metric} per template (* abnormal)"
    return bar_figure(panels, title, report.out / "figures/sensitivity.png")


STATISTICS = """## Statistics

- Means with 95% Student-t confidence intervals (mean ± t · sd/√n, ddof=1); n is the number of
  independent units: scenes for scene scores, goals for goal categories, questions for
  attack/defence, templates for PSI. Repeated epochs of a unit are averaged first.
- Goal categories treat goals as independent, although goals of one scene are correlated: their
  intervals are somewhat narrow.
- PSI skips templates with fewer than 2 scored scenes (the official code would return NaN).
- Chi-square test of App. D.6: chi2 = (n − 1)·s²/σ0², two-sided, see `docs/analysis.md`."""


def _no_nan(value: object) -> object:
    """JSON has no NaN: missing numbers become null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {key: _no_nan(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_no_nan(item) for item in value]
    return value


def write_report(inputs: Sequence[str], options: ReportOptions) -> Report:
    runs = load_runs(inputs)
    if options.labels is not None:
        apply_labels(runs, read_labels(options.labels))
    units = build_units(runs, options.allow_mixed)
    (options.out / "figures").mkdir(parents=True, exist_ok=True)
    report = Report(options.out)
    sections = [
        "# AgentSense report",
        _runs_section(units),
        _table_one_section(units, report),
        _leakage_section(units, report),
        _category_sections(units, report),
        _scene_sections(units, report),
        _pairs_section(units, report),
        _attack_section(units, report),
        _sensitivity_section(units, options, report),
        STATISTICS,
    ]
    if runs.notes:
        sections.insert(2, "## Notes\n\n" + "\n".join(f"- {note}" for note in runs.notes))
    report.sections = [s for s in sections if s]
    (options.out / "report.md").write_text("\n\n".join(report.sections) + "\n", encoding="utf-8")
    (options.out / "figures.json").write_text(
        json.dumps(_no_nan([asdict(f) for f in report.figures]), indent=1), encoding="utf-8"
    )
    return report
