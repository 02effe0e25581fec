"""The folder `agentsense report` writes into: checked before any log is read (a light module,
so the CLI refuses a bad --out at once, before the report's imports)."""

from __future__ import annotations

from pathlib import Path

from agentsense.engine.errors import ReportError


def check_out(out: Path) -> None:
    """--out must be a folder (or not exist yet): refused before any log is read."""
    for path in (out, *out.parents):
        if path.exists():
            if not path.is_dir():
                what = "a file, not a folder" if path == out else "a file"
                raise ReportError(
                    f"--out {out}: {path} is {what}.\n  Give a folder for the report's files, "
                    f"e.g. --out {path.with_suffix('')}-report/"
                )
            return
