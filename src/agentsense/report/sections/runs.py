"""The *Runs* section (one row per run, as the report groups them), the *Notes* of reading and
the *Statistics* (how the report's intervals and tests are computed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from agentsense.analysis.log_merge import finish_hint, shortfall
from agentsense.analysis.logs import records
from agentsense.analysis.stats import MIN_TEMPLATES
from agentsense.report import tables
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.frames import base_label
from agentsense.report.render import markdown


def _log_names(run: dict[str, object]) -> str:
    files = run.get("log_files")
    if isinstance(files, list) and len(files) > 1:
        return f"{files[-1]} + {len(files) - 1} more ({len(files)} logs merged)"
    return Path(str(run["log"])).name


def _who(run: dict[str, Any]) -> str:
    roles = run.get("roles")
    if run["kind"] == "labelling" and isinstance(roles, dict) and "labeller" in roles:
        return f"labeller {roles['labeller']}"
    return base_label(run)


def run_line(run: dict[str, object]) -> str:
    """One line per run for the console."""
    logs = int(str(run.get("logs") or 1))
    scenes = int(str(run.get("scenes") or 0))
    return (
        f"{run['task']} {_who(run)}: {logs} log{'s' if logs != 1 else ''}, {scenes} "
        f"scene{'s' if scenes != 1 else ''}, scoring {run.get('scoring')}"
    )


def unfinished_lines(runs: pd.DataFrame) -> list[str]:
    """One line per run that did not finish its plan (progress.shortfall), with the fix."""
    lines = []
    for run in records(runs):
        short = shortfall(run)
        if short is None:
            continue
        fix = finish_hint(str(run["status"]), Path(str(run["log"])).name)
        lines.append(f"{run['task']} {_who(run)} ({_log_names(run)}): {short}; {fix}.")
    return lines


def unfinished_banner(lines: list[str]) -> str:
    return (
        "> **Unfinished runs: their rows cover only part of what they planned.**\n>\n"
        + "\n".join(f"> - {line}" for line in lines)
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
  official-mode log's own PSI metric has no value then, as in the official code).
- Judge agreement: Fleiss' κ (statsmodels), Krippendorff's α (krippendorff), Cohen's κ
  (as scikit-learn computes it); see the Judge reliability section.
- Chi-square test of App. D.6: chi2 = (n − 1)·s²/σ0², two-sided, see `docs/analysis.md`."""


def statistics_section(inputs: Inputs) -> Content:
    if tables.scored_scenes(inputs.units).empty:
        return Absent("no scored sample of a model run")
    return STATISTICS
