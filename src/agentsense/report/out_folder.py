"""The folder `agentsense report` writes into: checked before any log is read (a light module,
so the CLI refuses a bad --out at once, before the report's imports)."""

from __future__ import annotations

from pathlib import Path

from ..errors import ReportError


def check_out(out: Path) -> None:
    """--out must be a folder (or not exist yet): refused before any log is read."""
    for path in (out, *out.parents):
        if path.exists():
            if not path.is_dir():
                raise ReportError(
                    f"--out {out}: {path} is a file, not a folder; give a folder for report.md, "
                    f"the CSVs and the figures (e.g. --out {path.with_suffix('')}-report/)."
                )
            return
