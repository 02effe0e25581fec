"""Regenerate the outputs docs/analysis.md shows, from the code: run the stand-in evaluations the
page describes, then `agentsense report` and `agentsense compare`, and put what they print
between the page's `<!-- output: NAME -->` and `<!-- /output -->` markers.

    python scripts/analysis_docs.py docs/analysis.md          # rewrite the page
    python scripts/analysis_docs.py docs/analysis.md --check  # exit 1 if it is out of date

`tests/test_analysis_docs.py` runs the check (slow: about a minute of stand-in evaluations).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

AGENT, OTHER = "standin/persona/agent", "standin/persona/other"
JUDGES = ["standin/persona/judge-a", "standin/persona/judge-b", "standin/persona/judge-c"]
# The outputs the page shows, each made by `outputs` below.
BLOCKS = ("info-console", "table-one", "compare", "compare-refused")
BLOCK = re.compile(r"(<!-- output: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /output -->)", re.S)


def run_logs(root: Path) -> dict[str, Path]:
    """The logs of the page's examples (stand-in models, demo set), one folder each."""
    from inspect_ai import eval

    from agentsense.tasks import blind, full, goal, info, pairwise

    judged = {"judge": JUDGES}
    runs = {
        "full-agent": (full(dataset="demo"), AGENT, judged, None),
        "full-other": (full(dataset="demo"), OTHER, judged, None),
        "blind": (blind(dataset="demo"), AGENT, {}, None),
        "pairwise": (
            pairwise(dataset="demo"),
            AGENT,
            {**judged, "sender": AGENT, "receiver": OTHER},
            None,
        ),
        "info": (info(dataset="demo"), AGENT, {}, 4),
        "goal": (goal(dataset="demo"), AGENT, judged, 6),
    }
    paths = {}
    for name, (task, model, roles, limit) in runs.items():
        (log,) = eval(
            task,
            model=model,
            model_roles=roles or None,
            limit=limit,
            log_dir=str(root / name),
            display="none",
        )
        paths[name] = Path(log.location)
    return paths


def printed(argv: list[str]) -> str:
    """What `agentsense ARGV` prints (stdout, then stderr), as a user sees it."""
    from agentsense.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(argv)
    return (out.getvalue() + err.getvalue()).rstrip("\n")


def table_one(root: Path, folders: list[str]) -> str:
    """Table 1 of `agentsense report FOLDERS --out report`, as report.md has it."""
    printed(["report", *folders, "--out", "report", "--no-figures"])
    text = (root / "report" / "report.md").read_text(encoding="utf-8")
    section = text.split("## Table 1", 1)[1].split("\n## ", 1)[0]
    return "\n".join(line for line in section.splitlines() if line.startswith("|"))


def outputs(root: Path) -> dict[str, str]:
    """Block name -> the text the page shows (commands run inside `root`)."""
    logs = run_logs(root)
    folder = {name: str(path.parent.relative_to(root)) for name, path in logs.items()}
    previous = Path.cwd()
    os.chdir(root)
    try:
        shown: dict[str, Callable[[], str]] = {
            "info-console": lambda: printed(["report", folder["info"], "--out", "report-info"]),
            "table-one": lambda: table_one(
                root,
                [folder[name] for name in ("full-agent", "full-other", "blind", "pairwise")],
            ),
            "compare": lambda: printed(["compare", folder["full-agent"], folder["full-other"]]),
            "compare-refused": lambda: "\n".join(
                [
                    f"$ agentsense compare {folder['goal']} {folder['full-agent']}",
                    printed(["compare", folder["goal"], folder["full-agent"]]),
                    f"$ agentsense compare {folder['full-agent']} {folder['pairwise']}",
                    printed(["compare", folder["full-agent"], folder["pairwise"]]),
                    f"$ agentsense compare {folder['goal']} {folder['info']}",
                    printed(["compare", folder["goal"], folder["info"]]),
                ]
            ),
        }
        assert tuple(shown) == BLOCKS
        return {name: make() for name, make in shown.items()}
    finally:
        os.chdir(previous)


def regenerate(page: str, generated: dict[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in generated:
            raise KeyError(f"docs block {name!r} has no generator in scripts/analysis_docs.py")
        return f"{match.group(1)}```text\n{generated[name]}\n```\n{match.group(4)}"

    return BLOCK.sub(replace, page)


def main() -> int:
    parser = argparse.ArgumentParser(description="Regenerate the outputs docs/analysis.md shows.")
    parser.add_argument("page", type=Path)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    args = parser.parse_args()
    page = args.page.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as root:
        new = regenerate(page, outputs(Path(root)))
    if args.check:
        if new != page:
            print(f"{args.page} is out of date: run python scripts/analysis_docs.py {args.page}")
            print("".join(difflib.unified_diff(page.splitlines(True), new.splitlines(True))))
            return 1
        return 0
    args.page.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
