"""The report's *Transcript scans*: counts per model from an Inspect Scout scan of the logs
(`agentsense report LOGS --scan SCAN_DIR`; the scanners are in `agentsense.scanners`).

A count scanner's value is the number of turns it flagged in a transcript; a share scanner's
(`newline_cut_loss`, `judge_disagreement`) a fraction, reported as its mean; a yes/no scanner's
(the LLM scanners) whether it flagged the transcript.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from agentsense.engine.errors import ReportError
from agentsense.report.document import Absent, Content, Inputs
from agentsense.report.render import markdown

SHARES = frozenset({"newline_cut_loss", "judge_disagreement"})
HOW = (
    "no scan given: `scout scan src/agentsense/scanners/scanjob.py -T LOGS --scans SCANS`, then "
    "`agentsense report LOGS --scan SCANS` (docs/scanners.md; needs `agentsense[scout]`, "
    "Python 3.11+)"
)


def scan_locations(path: Path) -> list[Path]:
    """The scan folder itself, or every scan in a `--scans` folder, oldest first."""
    if (path / "_scan.json").is_file():
        return [path]
    scans = sorted(path.glob("scan_id=*/_scan.json"), key=lambda p: p.stat().st_mtime)
    if not path.is_dir() or not scans:
        raise ReportError(
            f"--scan {path}: no Scout scan there (a folder with _scan.json, or a --scans folder "
            "holding scan_id=* folders); run `scout scan ... --scans DIR` first."
        )
    return [scan.parent for scan in scans]


def scanner_frames(path: Path) -> dict[str, pd.DataFrame]:
    """Each scanner's results; a scanner run in several scans: its newest scan's."""
    try:
        from inspect_scout import scan_results_df
    except ImportError as error:
        raise ReportError(
            f"--scan: reading a scan needs Inspect Scout ({error}); pip install 'agentsense[scout]'"
            " (Python 3.11+)."
        ) from None
    frames: dict[str, pd.DataFrame] = {}
    for scan in scan_locations(path):
        frames.update(scan_results_df(str(scan)).scanners)
    return frames


def scan_counts(path: Path) -> pd.DataFrame:
    """Per scanner and model: transcripts scanned, transcripts flagged, turns flagged (count
    scanners), the mean share (share scanners), and scan errors. A yes/no scanner (the LLM
    scanners) flags transcripts only."""
    rows = []
    for name, frame in sorted(scanner_frames(path).items()):
        value = pd.to_numeric(frame["value"], errors="coerce").astype(float)
        errors = frame["scan_error"].notna()
        share = name in SHARES
        count = not share and (frame["value_type"] == "number").all()
        for model, group in frame.groupby("transcript_model", dropna=False, sort=True):
            ok = value[group.index][~errors[group.index]]
            rows.append(
                {
                    "scanner": name,
                    "model": model,
                    "transcripts": len(group),
                    "flagged_transcripts": int((ok > 0).sum()),
                    "flagged_turns": int(ok.sum()) if count else None,
                    "mean_share": round(float(ok.mean()), 4) if share and len(ok) else None,
                    "errors": int(errors[group.index].sum()),
                }
            )
    return pd.DataFrame(rows).astype({"flagged_turns": "Int64"})


def scans_section(inputs: Inputs) -> Content:
    if inputs.options.scan is None:
        return Absent(HOW)
    counts = scan_counts(inputs.options.scan)
    if counts.empty:
        return Absent(f"the scans in {inputs.options.scan} have no results")
    inputs.report.csv(counts, "scans")
    cells = [["" if pd.isna(v) else v for v in row] for row in counts.astype(object).values]
    table = markdown(list(counts.columns), cells)
    return (
        "## Transcript scans\n\nInspect Scout's scanners (docs/scanners.md) over these logs: per "
        "model, the transcripts a scanner flagged, the turns it flagged (pattern scanners) or the "
        "mean share (newline_cut_loss: of the characters' text cut; judge_disagreement: of judged "
        "goals split); the newest scan of each scanner. Each transcript's results: `scout view`; "
        f"this table: `scans.csv`.\n\n{table}"
    )
