"""`agentsense report`: logs -> report.md, CSV tables, PNG figures and figures.json, one folder."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from ..analysis.log_fields import READ_TASKS, records
from ..analysis.log_reader import Runs, load_runs, log_paths
from . import tables
from .construction import construction_section
from .content import Absent, Content
from .frames import Units, build_units
from .gca import gca_section
from .judge_check import judge_check_section
from .judging import JudgeTables, judge_tables
from .labels import apply_labels, read_labels
from .other_logs import OtherLogs, split_logs
from .plots import (
    DIFFERENCE_LIMITS,
    SCORE_LIMITS,
    FigureRecord,
    Panel,
    agreement_heatmaps,
    bar_figure,
    heatmap_figure,
)
from .render import Section, cell, flat, frame_markdown, long_flat, markdown, wide
from .repeated import repeated_section
from .sensitivity import ALPHA, DEFAULT_METRIC, Sensitivity, profile_sensitivity
from .stats import MIN_TEMPLATES, Estimate
from .table_two import script_prediction_section
from .usage import calls_of, run_usage, table_one_notes, usage_section
from .variance import variance_section

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
    "script_accuracy": "Script acc.",
    "gain_over_blind": "MCQ − blind (paired)",
    "attack": "Attack",
    "defence": "Defence",
    "overconfidence": "Self − judge majority",
    "type_agreement": "Scenario type",
    "category_agreement": "Goal category",
    "role_agreement": "Role",
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
    annotations: Path | None = None  # a filled `agentsense annotate` sheet (CSV)
    sensitivity_metric: str = DEFAULT_METRIC
    alpha: float = ALPHA
    scorer: str | None = None  # one scoring of re-judged logs; default: all, newest first
    prefer_newest: bool = False  # conflicting duplicate samples: keep the newest log's
    figures: bool = True


@dataclass
class Report:
    """What was written, for the CLI summary and for tests."""

    out: Path
    draw: bool = True
    sections: list[str] = field(default_factory=list)  # titles of the sections written
    absent: dict[str, str] = field(default_factory=dict)  # title -> why it is left out
    figures: list[FigureRecord] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)  # one line per run, for the console
    notes: list[str] = field(default_factory=list)

    def csv(self, frame: pd.DataFrame, name: str) -> None:
        frame.to_csv(self.out / f"{name}.csv", index=False)
        self.tables.append(f"{name}.csv")

    def left_out(self) -> list[str]:
        """One line per section left out and why; the sections of model runs in one line when
        there is no model run (a report of judge_check, construct or gca logs alone)."""
        # "Nothing to note" is not worth a line.
        absent = {title: why for title, why in self.absent.items() if title != "Notes"}
        no_run = [title for title, why in absent.items() if why == NO_RUN]
        lines = [f"{', '.join(no_run)}: {NO_RUN}."] if no_run else []
        return lines + [f"{title}: {why}." for title, why in absent.items() if why != NO_RUN]

    def figure(self, name: str, draw: Callable[[Path], FigureRecord]) -> str:
        """Draw `figures/<name>.png` (unless figures are off); its Markdown image link."""
        if not self.draw:
            return ""
        record = draw(self.out / "figures" / f"{name}.png")
        self.figures.append(record)
        return f"\n\n![{record.title}](figures/{record.file})"


@dataclass
class Inputs:
    """What every section gets: the loaded runs, their analysis units and the options."""

    runs: Runs
    units: Units
    options: ReportOptions
    report: Report
    paths: list[str] = field(default_factory=list)  # the log files read (variance, usage)
    others: OtherLogs = field(default_factory=OtherLogs)  # judge_check, construct, gca logs


# --- sections ----------------------------------------------------------------------------------
# A section is a function of the Inputs that returns its Markdown, or Absent(why) when its inputs
# are missing; write_report runs them in SECTIONS order. Sections must not raise on missing data.


def _log_names(run: dict[str, object]) -> str:
    files = run.get("log_files")
    if isinstance(files, list) and len(files) > 1:
        return f"{files[-1]} + {len(files) - 1} more ({len(files)} logs merged)"
    return Path(str(run["log"])).name


def _who(run: dict[str, object]) -> str:
    if run["kind"] == "pairwise":
        return f"{run['sender']} × {run['receiver']}"
    roles = run.get("roles")
    if run["kind"] == "labelling" and isinstance(roles, dict) and "labeller" in roles:
        return f"labeller {roles['labeller']}"
    return str(run["model"])


def run_line(run: dict[str, object]) -> str:
    """One line per run for the console."""
    logs = int(str(run.get("logs") or 1))
    return (
        f"{run['task']} {_who(run)}: {logs} log{'s' if logs > 1 else ''}, {run.get('scenes', 0)} "
        f"scenes, scoring {run.get('scoring')}"
    )


def runs_section(inputs: Inputs) -> Content:
    rows = [
        [
            _log_names(run),
            run["task"],
            _who(run),
            run["group"],
            run["dataset"],
            run["mode"] or "–",
            "–" if pd.isna(run["rounds"]) else int(run["rounds"]),
            run["judges"] or "–",
            run.get("scoring") or "–",
            run.get("scenes", 0),
        ]
        for run in records(inputs.units.runs)
    ]
    head = [
        "log",
        "task",
        "model / sender × receiver",
        "row",
        "dataset",
        "protocol",
        "max messages",
        "judges",
        "scoring",
        "scenes",
    ]
    return "## Runs\n\n" + markdown(head, rows)


def notes_section(inputs: Inputs) -> Content:
    if not inputs.runs.notes:
        return Absent("nothing to note")
    return "## Notes\n\n" + "\n".join(f"- {note}" for note in inputs.runs.notes)


def _has(frame: pd.DataFrame, column: str) -> bool:
    return column in frame.columns and bool(frame[column].notna().any())


def _scored(units: Units) -> pd.DataFrame:
    return units.scenes[units.scenes["kind"].isin(["homogeneous", "pairwise", "blind"])]


def table_one_section(inputs: Inputs) -> Content:
    units, report = inputs.units, inputs.report
    if _scored(units).empty:
        return Absent("no scored sample of a model run (full, goal, info, pairwise or blind)")
    table = tables.table_one(units)
    report.csv(flat(table, "run"), "table1")
    counts = pd.DataFrame(
        {
            "n scenes": [_n(r, "judge_majority") for r in table.itertuples()],
            "n MCQ scenes": [_n(r, "mcq_accuracy") for r in table.itertuples()],
            "n templates (goal PSI)": [_n(r, "goal_psi") for r in table.itertuples()],
            "n blind scenes": [_n(r, "blind_mcq_accuracy") for r in table.itertuples()],
            "n conversations": list(table["conversations"]),
            "n blind conversations": list(table["blind_conversations"]),
        },
        index=table.index,
    )
    shown = pd.concat(
        [table.drop(columns=["conversations", "blind_conversations"]), counts], axis=1
    )
    # Columns no run has a value for (e.g. MCQ columns of a goal-only report) are not shown.
    shown = shown[[c for c in shown.columns if c == "kind" or _filled(shown[c])]]
    text = (
        "## Table 1: overall performance\n\nScores in %, mean [95% CI] over scenes: each scene "
        "counts once, its conversations (epochs, and the same scene in several logs of the row) "
        "averaged first. The interval stays in the score's range and is clustered by template "
        "(Wilson interval at the clustered effective sample size, t on templates − 1 degrees of "
        f"freedom); below {MIN_TEMPLATES} templates it says so, with 1 template it is undefined. "
        "PSI: mean over templates of the per-template std of the scene scores (goal PSI on judge "
        "majority) [95% percentile bootstrap over templates]; templates with fewer than 2 scored "
        "scenes are skipped. n scenes and n conversations count the row's units and the "
        "conversations pooled into them.\n\n"
        + frame_markdown(shown, "Model / sender × receiver", with_n=False, headers=HEADERS)
    )
    panels = [
        Panel(HEADERS[m], list(table.index), {"mean": list(table[m])})
        for m in ("judge_majority", "mcq_accuracy", "blind_mcq_accuracy")
        if any(isinstance(v, Estimate) and v.n for v in table[m])
    ]
    if panels:
        text += report.figure(
            "overall", lambda path: bar_figure(panels, "Overall performance", path)
        )
    return text + _bill_notes(inputs)


def _bill_notes(inputs: Inputs) -> str:
    calls = calls_of(inputs.units.runs, inputs.paths)
    lines = table_one_notes(run_usage(calls)) if not calls.empty else []
    return "".join(f"\n\n- Tokens: {line} (see *Cost and tokens*)." for line in lines)


def _written(section: Section | str, report: Report) -> Content:
    """A section from its own module: its CSVs written, its Markdown returned."""
    if isinstance(section, str):
        return Absent(section)
    for name, frame in section.tables.items():
        report.csv(frame, name)
    return section.text


def variance_components_section(inputs: Inputs) -> Content:
    return _written(variance_section(inputs.units.runs, inputs.paths), inputs.report)


def cost_section(inputs: Inputs) -> Content:
    return _written(usage_section(inputs.units.runs, inputs.paths), inputs.report)


def _filled(column: pd.Series) -> bool:
    return any((v.n > 0) if isinstance(v, Estimate) else bool(v) and not pd.isna(v) for v in column)


def _n(row: object, column: str) -> int:
    value = getattr(row, column)
    return value.n if isinstance(value, Estimate) else 0


def leakage_section(inputs: Inputs) -> Content:
    scenes = inputs.units.scenes
    if not (scenes["kind"] == "blind").any():
        return Absent("no agentsense/blind log among the inputs")
    if not _has(tables.real_scenes(inputs.units), "mcq_accuracy"):
        return Absent("no run with MCQs after a conversation (full, info or pairwise) to compare")
    table = tables.leakage(inputs.units)
    if table.empty:
        return Absent("no blind run has the model (or pair) of a run with MCQs")
    inputs.report.csv(flat(table, "run"), "leakage")
    return (
        "## Leakage baseline (blind test, §4.3)\n\nMCQ accuracy answered from the scenario "
        "alone (blind) and after the interaction; the gain is paired over the scenes in both.\n\n"
        + frame_markdown(table, "Model / sender × receiver", headers=HEADERS)
    )


def table_two_section(inputs: Inputs) -> Content:
    return _written(script_prediction_section(inputs.units), inputs.report)


def repeated_runs_section(inputs: Inputs) -> Content:
    return _written(repeated_section(inputs.runs, inputs.units, HEADERS), inputs.report)


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
    limits: tuple[float, float] = SCORE_LIMITS


def _breakdown(frame: pd.DataFrame, spec: Breakdown, report: Report, why: str) -> Content:
    if frame.empty:
        return Absent(why)
    report.csv(long_flat(frame), spec.name)
    panels = _panels(frame, spec.by, spec.metrics)
    # The table shows the first metric scored (judge majority unless only MCQs were).
    primary = next(m for m in spec.metrics if (frame["metric"] == m).any())
    figure = report.figure(
        spec.name, lambda path: bar_figure(panels, spec.title, path, limits=spec.limits)
    )
    table = wide(frame, spec.by, primary)
    return (
        f"## {spec.title}\n\n{HEADERS.get(primary, primary)} in %, mean [95% CI] clustered by "
        f"template (n); all metrics in `{spec.name}.csv`.\n\n"
        + frame_markdown(table, spec.label, headers=HEADERS)
        + figure
    )


def _goal_inputs(units: Units) -> Absent | None:
    if units.goals.empty:
        return Absent("no run with judged goals (full, goal or pairwise)")
    if not tables.has_categories(units):
        return Absent(
            "no goal has a category: label them with agentsense/labelling and pass --labels"
        )
    return None


def category_section(inputs: Inputs) -> Content:
    missing = _goal_inputs(inputs.units)
    if missing:
        return missing
    spec = Breakdown(
        "category", "goal category", "by_category", "Goal completion by goal category (Fig. 6)"
    )
    return _breakdown(tables.category_breakdown(inputs.units), spec, inputs.report, "no goal")


def overconfidence_section(inputs: Inputs) -> Content:
    missing = _goal_inputs(inputs.units)
    if missing:
        return missing
    spec = Breakdown(
        "category",
        "goal category",
        "overconfidence",
        "Over-confidence by goal category (self − judge majority)",
        ["overconfidence"],
        DIFFERENCE_LIMITS,
    )
    frame = tables.overconfidence(inputs.units)
    return _breakdown(frame, spec, inputs.report, "no goal with both a self and a judge score")


def _scene_section(by: str, label: str, name: str, figure: str) -> Callable[[Inputs], Content]:
    def section(inputs: Inputs) -> Content:
        frame = tables.scene_breakdown(inputs.units, by)
        spec = Breakdown(
            by,
            label,
            name,
            f"Scores by {label.lower()} ({figure})",
            tables.SCENE_BREAKDOWN_METRICS,
        )
        why = "no scored conversation run (full, goal, info or pairwise)"
        return _breakdown(frame, spec, inputs.report, why)

    return section


def _matrix_block(matrix: pd.DataFrame, title: str, name: str, report: Report) -> str:
    if matrix.empty:
        return ""
    report.csv(flat(matrix, "sender"), name)
    figure = report.figure(
        name, lambda path: heatmap_figure(matrix, title, path, "sender", "receiver")
    )
    return f"### {title}\n\n" + frame_markdown(matrix, "sender \\ receiver") + figure


def pairs_section(inputs: Inputs) -> Content:
    units, report = inputs.units, inputs.report
    variants = tables.pairwise_variants(units)
    if not variants:
        return Absent("no agentsense/pairwise log among the inputs")
    parts = [
        "## Sender × receiver (Figs. 5a, 7, 8)\n\nJudge majority in %, mean [95% CI] clustered "
        "by template (n scenes)."
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


def attack_section(inputs: Inputs) -> Content:
    table = tables.attack_defence(inputs.units)
    if table.empty:
        return Absent("no MCQ answered after a conversation (full, info or pairwise)")
    inputs.report.csv(flat(table, "model"), "attack_defence")
    panel = Panel(
        "Attacker / defender",
        list(table.index),
        {"attack": list(table["attack"]), "defence": list(table["defence"])},
    )
    figure = inputs.report.figure(
        "attack_defence",
        lambda path: bar_figure([panel], "Attacker and defender (Fig. 5b)", path),
    )
    return (
        "## Attacker and defender (§5.2, Fig. 5b)\n\n"
        "Attack: MCQ accuracy of the model's characters. "
        "Defence: 1 − accuracy of the MCQs about its characters' secrets (target rule in "
        "docs/analysis.md). In %, mean [95% CI] clustered by template (n questions).\n\n"
        + frame_markdown(table, "Model", headers=HEADERS)
        + figure
    )


def sensitivity_section(inputs: Inputs) -> Content:
    units, options, report = inputs.units, inputs.options, inputs.report
    metric = options.sensitivity_metric
    if not _has(tables.real_scenes(units), metric):
        return Absent(f"no conversation run scored {metric} (choose --sensitivity-metric)")
    result = profile_sensitivity(units, metric, options.alpha)
    if result.templates.empty:
        # The variance test needs 2+ scored scenes in a template and a spread over the run.
        return Absent(
            f"no template could be tested on {metric} (each needs 2 or more scored scenes, "
            f"and {metric} must vary over the run's scenes)"
        )
    report.csv(result.tests, "sensitivity_tests")
    report.csv(result.templates, "abnormal_templates")
    return _sensitivity_text(result) + report.figure(
        "sensitivity", lambda path: _sensitivity_figure(units, result, path)
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
        "a template is abnormal when rejected for more than half of the runs tested on it. "
        f"**Abnormal templates: {listed}** ({len(result.templates)} templates tested; details in "
        "`sensitivity_tests.csv`, `abnormal_templates.csv`)."
    )


def _sensitivity_figure(units: Units, result: Sensitivity, path: Path) -> FigureRecord:
    abnormal = set(result.templates.loc[result.templates["abnormal"], "template_id"])
    frame = tables.breakdown(tables.real_scenes(units), "template_id", [result.metric])
    panels = _panels(frame, "template_id", [result.metric])
    for panel in panels:
        panel.x = [f"{x}*" if x in abnormal else x for x in panel.x]
    title = f"{result.metric} per template (* abnormal)"
    return bar_figure(panels, title, path)


def labelling_section(inputs: Inputs) -> Content:
    table = tables.label_agreement(inputs.units)
    if table.empty:
        return Absent("no agentsense/labelling log among the inputs")
    inputs.report.csv(flat(table, "labeller"), "label_agreement")
    return (
        "## Labelling: agreement with the dataset's labels\n\nShare of scenario types, goal "
        "categories and sender/receiver roles the labeller gave as the records have them, in %, "
        "mean [95% CI] (n scenes with that label). Export the labels with `agentsense labels LOG "
        "--out labels.json` and pass `--labels labels.json`.\n\n"
        + frame_markdown(table, "Labeller", headers=HEADERS)
    )


STATISTICS = f"""## Statistics

- Intervals are 95% and **clustered by template**: the scenes of one template share background,
  goals and questions, so they are not independent. A mean's interval never leaves the metric's
  range ([0, 1] for scores, [−1, 1] for differences): it is the Wilson interval at the
  Korn–Graubard effective sample size p(1 − p)/v, with v the cluster-robust variance of the mean
  (statsmodels OLS on a constant, `cov_type="cluster"` by `template_id`, correction C/(C − 1))
  and a t critical value on C − 1 degrees of freedom, C the number of templates. Inside the range
  it equals mean ± t(C − 1) · SE. Below {MIN_TEMPLATES} templates a cell says "too few
  templates (k)"; with 1 template the interval is "undefined (1 template)". n counts the units
  (scenes for scene scores, goals for goal categories, questions for attack/defence); a scene
  counts once per row, its conversations (epochs, and the same scene in several logs of the row)
  averaged first. The naive intervals (units independent) are in the Uncertainty section.
- PSI [95% percentile bootstrap] over templates (whole templates resampled with replacement,
  2000 resamples, fixed seed); PSI skips templates with fewer than 2 scored scenes (an
  official-mode log's own PSI metric is NaN then, as in the official code).
- Judge agreement: Fleiss' κ (statsmodels), Krippendorff's α (krippendorff), Cohen's κ
  (scikit-learn); see the Judge reliability section.
- Chi-square test of App. D.6: chi2 = (n − 1)·s²/σ0², two-sided, see `docs/analysis.md`."""


def _number(value: object, digits: int = 2) -> str:
    return "–" if not isinstance(value, float | int) or math.isnan(value) else f"{value:.{digits}f}"


def _percent(value: object) -> str:
    if not isinstance(value, float | int) or math.isnan(value):
        return "–"
    return f"{100 * value:.1f}"


def _run_names(units: Units) -> dict[str, str]:
    return {str(run["log"]): str(run["group"]) for run in records(units.runs)}


def _reliability_text(tables: JudgeTables) -> str:
    summary = markdown(
        [
            "Run",
            "judges",
            "questions",
            "Fleiss' κ",
            "Krippendorff's α",
            "mean Cohen's κ",
            "self = majority %",
            "other = majority %",
            "always-yes = majority %",
            "self − majority yes rate (pp)",
        ],
        [
            [
                str(r.run),
                str(r.judges),
                str(r.units),
                _number(r.fleiss_kappa),
                _number(r.krippendorff_alpha),
                _number(r.mean_cohen_kappa),
                _percent(r.self_agreement),
                _percent(r.other_agreement),
                _percent(r.always_yes_agreement),
                _percent(r.self_overconfidence),
            ]
            for r in tables.summary.itertuples()
        ],
    )
    judges = markdown(
        ["Run", "judge", "model", "answers", "= panel majority %", "unreadable %"],
        [
            [
                *map(str, (r.run, r.judge, r.model, r.answers)),
                _percent(r.agree_majority),
                _percent(r.unreadable),
            ]
            for r in tables.judges.itertuples()
        ]
        + [
            [*map(str, (r.run, r.who, r.model, r.answers)), "", _percent(r.unreadable)]
            for r in tables.askers.itertuples()
        ],
    )
    categories = markdown(
        ["Run", "goal category", "questions", "Fleiss' κ", "Krippendorff's α", "self = majority %"],
        [
            [
                str(r.run),
                str(r.category),
                str(r.units),
                _number(r.fleiss_kappa),
                _number(r.krippendorff_alpha),
                _percent(r.self_agreement),
            ]
            for r in tables.by_category.itertuples()
        ],
    )
    return (
        "## Judge reliability\n\nAgreement of the judge panel on each judge question (a unit: "
        "one question about one goal of one scene and epoch). Fleiss' κ over the questions every "
        "judge answered readably (statsmodels); Krippendorff's α, nominal, keeping questions with "
        "an unreadable vote (krippendorff); Cohen's κ per pair (scikit-learn). Panel majority: "
        "more than half of the readable votes (ties left out). Self / other = majority: share of "
        "readable self / other answers equal to the judge majority of the goal; an asker saying "
        "yes to everything would reach the always-yes column. Self − majority: yes rate of self "
        "answers minus that of the judge majority on the same goals (over-confidence). "
        "Unreadable: no leading yes/no word (the official reading counts these as no). Columns "
        "in `judge_agreement*.csv`, `judge_pairs.csv`, `unreadable.csv`.\n\n"
        + summary
        + "\n\n### Each judge and asker\n\n"
        + judges
        + "\n\n### By goal category\n\n"
        + categories
    )


def reliability_section(inputs: Inputs) -> Content:
    answers = inputs.runs.answers
    if answers.empty or not (answers["kind"] == "judge").any():
        return Absent("no judged goal answers (full, goal or pairwise)")
    report = inputs.report
    tables = judge_tables(answers, _run_names(inputs.units))
    report.csv(tables.summary, "judge_agreement")
    report.csv(tables.by_category, "judge_agreement_by_category")
    report.csv(pd.concat([tables.judges, tables.askers], ignore_index=True), "unreadable")
    pair_rows = [
        frame.rename_axis("judge_a").reset_index().assign(run=run)
        for run, frame in tables.pairs.items()
    ]
    if pair_rows:
        report.csv(pd.concat(pair_rows, ignore_index=True), "judge_pairs")
    text = _reliability_text(tables)
    if tables.pairs:
        text += report.figure(
            "judge_agreement",
            lambda path: agreement_heatmaps(
                tables.pairs, "Pairwise judge agreement (Cohen's κ)", path
            ),
        )
    return text


def baselines_section(inputs: Inputs) -> Content:
    table = tables.baselines(inputs.units)
    if table.empty:
        return Absent("no scored conversation run (full, goal, info or pairwise)")
    frame = table.drop(columns=["score"]).assign(
        score_mean=[e.mean for e in table["score"]],
        score_ci_low=[e.low for e in table["score"]],
        score_ci_high=[e.high for e in table["score"]],
        n=[e.n for e in table["score"]],
    )
    inputs.report.csv(frame, "baselines")
    rows = [
        [
            str(r.group),
            HEADERS.get(str(r.metric), str(r.metric)),
            cell(r.score, with_n=True),
            _percent(r.always_yes),
            _percent(r.always_no),
            _percent(r.chance),
            _percent(r.blind),
            f"⚠ {r.flags!s}" if r.flags else "beats all",
        ]
        for r in table.itertuples()
    ]
    head = ["Run", "metric", "score", "always-yes", "always-no", "chance", "blind", "baselines"]
    return (
        "## Trivial baselines\n\nIn %, on the scenes the score is computed on. Always-yes / "
        "always-no: the score if every answer (self, other, every judge) were Yes / No, "
        "aggregated by the scorer's own rules. Chance: 1/number of options of each MCQ, averaged "
        "per character and over characters as MCQ accuracy is. Blind: the blind test of the same "
        "model on the same scenes, when its log is given. ⚠ lists the baselines the score's 95% "
        "CI (clustered by template) does not clear: ≤ always-no / chance / blind (not above "
        "them), ≥ always-yes (not below an everything-yes reading: the judges may say yes to "
        "anything).\n\n" + markdown(head, rows)
    )


def uncertainty_section(inputs: Inputs) -> Content:
    table = tables.uncertainty(inputs.units)
    if table.empty:
        return Absent("no scored conversation run (full, goal, info or pairwise)")
    inputs.report.csv(table, "uncertainty")
    rows = [
        [
            str(r.group),
            HEADERS.get(str(r.metric), str(r.metric)),
            str(r.n),
            str(r.templates),
            _percent(r.mean),
            _percent(r.naive_half_width),
            _percent(r.half_width),
            str(r.method),
            _number(r.ratio),
        ]
        for r in table.itertuples()
    ]
    head = [
        "Run",
        "metric",
        "n",
        "templates",
        "mean %",
        "± naive",
        "± reported",
        "reported interval",
        "reported / naive",
    ]
    return (
        "## Uncertainty: clustered and naive intervals\n\nHalf-widths (in %) of the 95% "
        "interval that treats the n scenes (templates, for PSI) as independent (naive t) and of "
        "the one the report gives: clustered by template for means, a bootstrap over templates "
        "for PSI. A ratio above 1 means the naive interval is too narrow.\n\n"
        + markdown(head, rows)
    )


def statistics_section(inputs: Inputs) -> Content:
    if _scored(inputs.units).empty:
        return Absent("no scored sample of a model run")
    return STATISTICS


def human_labels_section(inputs: Inputs) -> Content:
    if inputs.options.annotations is None:
        return Absent("no annotation sheet: pass --labels SHEET.csv (from `agentsense annotate`)")
    from .annotate import agreement_markdown, human_agreement

    result = human_agreement(inputs.runs, inputs.options.annotations)
    inputs.report.csv(result.judges, "human_judges")
    inputs.report.csv(result.by_category, "human_judges_by_category")
    return agreement_markdown(result)


@dataclass(frozen=True)
class LogSection:
    """A section of the logs that are not model runs (judge_check, construct, gca): it needs no
    run, so a report of such logs alone has it."""

    read: Callable[[OtherLogs, Report], Content]

    def __call__(self, inputs: Inputs) -> Content:
        return self.read(inputs.others, inputs.report)


NO_RUN = f"no model run among the inputs (a log of {READ_TASKS})"

SECTIONS: tuple[tuple[str, Callable[[Inputs], Content]], ...] = (
    ("Runs", runs_section),
    ("Notes", notes_section),
    ("Table 1", table_one_section),
    ("Leakage baseline", leakage_section),
    ("Table 2", table_two_section),
    ("Repeated runs", repeated_runs_section),
    ("Goal categories", category_section),
    ("Over-confidence", overconfidence_section),
    *(
        (label, _scene_section(by, label, name, figure))
        for by, label, name, figure in SCENE_FACTORS
    ),
    ("Sender × receiver", pairs_section),
    ("Attacker and defender", attack_section),
    ("Profile sensitivity", sensitivity_section),
    ("Judge reliability", reliability_section),
    ("Judges against human labels", human_labels_section),
    ("Judge check", LogSection(judge_check_section)),
    ("Trivial baselines", baselines_section),
    ("Uncertainty", uncertainty_section),
    ("Variance components", variance_components_section),
    ("Cost and tokens", cost_section),
    ("Labelling", labelling_section),
    ("Construction", LogSection(construction_section)),
    ("GCA", LogSection(gca_section)),
    ("Statistics", statistics_section),
)


def _no_nan(value: object) -> object:
    """JSON has no NaN: missing numbers become null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {key: _no_nan(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_no_nan(item) for item in value]
    return value


def _left_out(report: Report) -> str:
    lines = [f"- {line}" for line in report.left_out()]
    return "## Left out\n\n" + "\n".join(lines) if lines else ""


def _load(
    inputs: Sequence[str], options: ReportOptions
) -> tuple[Runs | None, OtherLogs, list[str]]:
    """The model runs (None: the inputs hold only judge_check, construct or gca logs), the
    other logs by task, and every log file."""
    paths = log_paths(inputs)
    main, others = split_logs(paths)
    if not others.any:
        return load_runs(inputs, options.scorer, options.prefer_newest), others, paths
    if main:
        # Foreign logs go along, so the report notes them as it always does.
        runs = load_runs(main + others.foreign, options.scorer, options.prefer_newest)
        return runs, others, paths
    return None, others, paths


def _sections(
    runs: Runs | None, others: OtherLogs, paths: list[str], options: ReportOptions
) -> Report:
    report = Report(options.out, draw=options.figures)
    units = build_units(runs, options.allow_mixed) if runs is not None else None
    given = Inputs(runs, units, options, report, paths, others) if runs and units else None
    parts = ["# AgentSense report"]
    for title, section in SECTIONS:
        if isinstance(section, LogSection):
            content = section.read(others, report)
        else:
            content = section(given) if given is not None else Absent(NO_RUN)
        if isinstance(content, Absent):
            report.absent[title] = content.reason
        else:
            report.sections.append(title)
            parts.append(content)
    left_out = _left_out(report)
    if left_out:
        # After the runs: what this report cannot show, and why.
        parts.insert(2 if "Runs" in report.sections else 1, left_out)
    others_runs = report.runs
    report.runs = [run_line(run) for run in records(units.runs)] if units is not None else []
    report.runs += others_runs
    report.notes = list(runs.notes) if runs is not None else []
    if others.foreign and runs is None:
        names = ", ".join(Path(path).name for path in others.foreign)
        report.notes.insert(0, f"Left out, not logs of an AgentSense task: {names}.")
    (options.out / "report.md").write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    return report


def write_report(inputs: Sequence[str], options: ReportOptions) -> Report:
    runs, others, paths = _load(inputs, options)
    if options.labels is not None and runs is not None:
        apply_labels(runs, read_labels(options.labels))
    (options.out / "figures").mkdir(parents=True, exist_ok=True)
    report = _sections(runs, others, paths, options)
    (options.out / "figures.json").write_text(
        json.dumps(_no_nan([asdict(f) for f in report.figures]), indent=1), encoding="utf-8"
    )
    return report
