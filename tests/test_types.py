"""mypy (strict, the package; `[tool.mypy]` in pyproject.toml) as a test of the suite, so that
pytest-xdist runs it on one worker beside the others: as a step of the README's command before
pytest, it ran alone for about 50 s with the second core idle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_package_type_checks() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout
