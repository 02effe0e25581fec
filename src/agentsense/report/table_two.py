"""Table 2 of the paper (§4.3): script prediction accuracy beside the blind test, per model.

Script Acc.: the share of `agentsense/script_prediction` samples (one per template by default)
whose reply names the scene's script. Blind Acc.: MCQ accuracy of `agentsense/blind` of the same
model. Both as fractions, as the paper prints them, with a 95% CI clustered by template.
"""

from __future__ import annotations

import pandas as pd

from agentsense.report.frames import Units
from agentsense.report.render import Section, cell, markdown
from agentsense.report.tables import estimate
from agentsense.sense.score_keys import BLIND_MCQ_ACCURACY, SCRIPT_ACCURACY

COLUMNS = (SCRIPT_ACCURACY, BLIND_MCQ_ACCURACY)


def has_script_runs(units: Units) -> bool:
    return bool((units.scenes["kind"] == "script").any())


def table_two(units: Units) -> pd.DataFrame:
    """One row per model (family) with a script-prediction run: both accuracies and their n."""
    scenes = units.scenes
    scripts = scenes[scenes["kind"] == "script"]
    blind = scenes[scenes["kind"] == "blind"]
    rows = []
    for family, frame in scripts.groupby("family", sort=True):
        baseline = blind[blind["family"] == family]
        rows.append(
            {
                "model": str(family),
                SCRIPT_ACCURACY: estimate(frame, SCRIPT_ACCURACY),
                "templates": int(frame["template_id"].nunique()),
                BLIND_MCQ_ACCURACY: estimate(baseline, BLIND_MCQ_ACCURACY),
            }
        )
    return pd.DataFrame(rows, columns=["model", SCRIPT_ACCURACY, "templates", *COLUMNS[1:]])


def flat_table_two(table: pd.DataFrame) -> pd.DataFrame:
    """The CSV form: fractions, CI bounds and n per column."""
    out: dict[str, list[object]] = {"model": list(table["model"]), "templates": []}
    out["templates"] = list(table["templates"])
    for column in COLUMNS:
        values = list(table[column])
        out[f"{column}_mean"] = [v.mean for v in values]
        out[f"{column}_ci_low"] = [v.low for v in values]
        out[f"{column}_ci_high"] = [v.high for v in values]
        out[f"{column}_n"] = [v.n for v in values]
    return pd.DataFrame(out)


def table_two_markdown(table: pd.DataFrame) -> str:
    rows = [
        [
            str(r.model),
            cell(r.script_accuracy, percent=False),
            str(r.templates),
            cell(r.blind_mcq_accuracy, percent=False, with_n=True),
        ]
        for r in table.itertuples()
    ]
    head = ["Model", "Script acc.", "templates asked", "Blind acc. (n scenes)"]
    return (
        "## Table 2: script prediction and blind test (§4.3)\n\nScript acc.: share of the "
        "scenario backgrounds (one scene per template unless `-T per_template` said otherwise) "
        "from which the model named the original script, read by the tolerant title rule "
        "(case, articles and punctuation ignored; docs/leakage.md). Blind acc.: MCQ accuracy "
        "before any interaction (`agentsense/blind` of the same model; – without its log). "
        "Fractions, mean ± 95% CI half-width clustered by template. The paper: 0.03-0.07 and "
        "0.35-0.62.\n\n" + markdown(head, rows)
    )


def script_prediction_section(units: Units) -> Section | str:
    """The section, or why it is left out."""
    if not has_script_runs(units):
        return "no agentsense/script_prediction log among the inputs"
    table = table_two(units)
    return Section(table_two_markdown(table), {"table2": flat_table_two(table)})
