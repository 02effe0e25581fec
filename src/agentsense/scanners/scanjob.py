"""Every scanner in one scan job (docs/scanners.md):

    scout scan src/agentsense/scanners/scanjob.py -T LOGS --scans SCANS
    scout scan src/agentsense/scanners/scanjob.py -T LOGS --scans SCANS \
        -S llm=true --model-role scanner=MODEL

The pattern scanners need no model; `-S llm=true` adds the LLM scanners on the role `scanner`.
"""

from __future__ import annotations

from inspect_scout import ScanJob, Scanner, Transcript, scanjob

from agentsense.scanners import llm as llm_scanners
from agentsense.scanners import patterns

PATTERNS = (
    patterns.character_break,
    patterns.wrong_speaker,
    patterns.secret_leak,
    patterns.refusal,
    patterns.newline_cut_loss,
    patterns.judge_disagreement,
)
LLM = (llm_scanners.character_break_llm, llm_scanners.secret_leak_llm)


@scanjob
def agentsense_scan(llm: bool = False) -> ScanJob:
    """The pattern scanners, and with `llm` the LLM scanners (model role `scanner`)."""
    scanners: list[Scanner[Transcript]] = [make() for make in PATTERNS]
    if llm:
        scanners += [make() for make in LLM]
    return ScanJob(scanners=scanners)
