"""`agentsense report LOG --out FILE`: one clear error (no traceback, exit 2) naming --out, the
file in the way and a folder to give instead, before any log is read; the file is left alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentsense.cli import main


@pytest.mark.parametrize("inside", [False, True], ids=["file", "folder-in-file"])
def test_report_out_at_a_file(
    inside: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # short paths, as a user types them
    existing = Path("report.md")
    existing.write_text("notes I keep\n", encoding="utf-8")
    out = existing / "sub" if inside else existing
    log = "logs/"  # refused before any log is read
    assert main(["report", log, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    what = "a file" if inside else "a file, not a folder"
    assert err == (
        f"agentsense report: error: --out {out}: {existing} is {what}.\n"
        "  Give a folder for the report's files, e.g. --out report-report/\n"
    )
    assert "Traceback" not in err and all(len(line) <= 80 for line in err.splitlines())
    assert existing.read_text(encoding="utf-8") == "notes I keep\n"
