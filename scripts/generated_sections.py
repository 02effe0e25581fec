"""Rewrite the sections of the docs that are generated from the code, in place:

    python scripts/generated_sections.py

the README's task table (`agentsense.arguments.tasks_section`), and the guide's Parameters
(`agentsense.arguments.section`) and what-each-task-logs table (`agentsense.logged_metrics`).
tests/test_readme.py and tests/test_logged_metrics.py fail when a file differs from this.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentsense import arguments, logged_metrics

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "usage.md"

# (file, first line, last line, what goes between them)
SECTIONS: list[tuple[Path, str, str, Callable[[], str]]] = [
    (README, arguments.TASKS_BEGIN, arguments.TASKS_END, arguments.tasks_section),
    (GUIDE, arguments.BEGIN, arguments.END, arguments.section),
    (GUIDE, logged_metrics.BEGIN, logged_metrics.END, logged_metrics.section),
]


def replace_between(text: str, begin: str, end: str, section: str) -> str:
    """`text` with its generated section (from the line `begin` through `end`) replaced."""
    start, stop = text.index(begin), text.index(end) + len(end)
    return text[:start] + section + text[stop:]


def regenerated(path: Path) -> str:
    """The file's text with each of its generated sections as the code prints it now."""
    text = path.read_text(encoding="utf-8")
    for file, begin, end, make in SECTIONS:
        if file == path:
            text = replace_between(text, begin, end, make())
    return text


def main() -> int:
    for path in dict.fromkeys(file for file, *_ in SECTIONS):
        path.write_text(regenerated(path), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
