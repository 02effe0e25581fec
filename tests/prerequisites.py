"""A prerequisite a test cannot run without (a real model's extra, Debian's chromium): skipped on
a developer machine, failed when `CI` is set, since CI installs it and a silently skipped test
would prove nothing there."""

from __future__ import annotations

import os

import pytest


def prerequisite_missing(what: str, message: str) -> None:
    """Skip, or under CI fail, a test whose prerequisite is missing; `what`: what CI must do."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must {what}, but {message}")
    pytest.skip(message)
