"""The *Trivial baselines* section: each score against always-yes, always-no, chance and blind."""

from __future__ import annotations

from agentsense.report import tables
from agentsense.report.content import Absent, Content
from agentsense.report.document import Inputs
from agentsense.report.headers import HEADERS
from agentsense.report.render import cell, markdown
from agentsense.report.sections.shared import percent


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
            percent(r.always_yes),
            percent(r.always_no),
            percent(r.chance),
            percent(r.blind),
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
