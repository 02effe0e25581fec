"""The README a newcomer reads in ten minutes, kept in step with the code: at most 250 lines, its
task table and the guide's Parameters section generated from the task table, every docs link
resolving, and CI running exactly its test command."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import agentsense
import agentsense.tasks
from agentsense.arguments import BEGIN, END, TASKS_BEGIN, TASKS_END, section, tasks_section
from agentsense.engine.strict import declared_names
from file_modules import file_module

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "usage.md"
MAX_LINES = 250


def generated_sections() -> ModuleType:
    """scripts/generated_sections.py, the one writer of every generated section."""
    return file_module(ROOT / "scripts" / "generated_sections.py", "generated_sections")


def test_every_generated_section_is_what_the_code_prints() -> None:
    script = generated_sections()
    for path in (README, GUIDE):
        text = path.read_text(encoding="utf-8")
        assert script.regenerated(path) == text, (
            f"{path.name} is out of date: run python scripts/generated_sections.py"
        )
    assert README.read_text(encoding="utf-8").count(TASKS_BEGIN) == 1
    assert GUIDE.read_text(encoding="utf-8").count(BEGIN) == 1
    assert GUIDE.read_text(encoding="utf-8").count(END) == 1


def test_the_readme_has_one_row_per_task_of_the_table() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split(TASKS_BEGIN, 1)[1].split(TASKS_END, 1)[0]
    rows = re.findall(r"^\| `agentsense/(\w+)` \|", table, flags=re.MULTILINE)
    assert rows == [
        line.split("`")[1].removeprefix("agentsense/")
        for line in tasks_section().splitlines()[3:-1]
    ]
    assert sorted(rows) == sorted(agentsense.__all__)


def test_the_section_lists_every_argument_of_every_task() -> None:
    generated = section()
    for name in agentsense.__all__:
        # from the table's module: `agentsense.sotopia` is also the package of the benchmark
        for argument in declared_names(getattr(agentsense.tasks, name)):
            assert f"`{argument}`" in generated, (name, argument)


def test_the_readme_reads_in_ten_minutes() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines (at most {MAX_LINES})"
    headings = [line for line in lines if line.startswith("## ")]
    for shape in (
        "## Set up",
        "## Usage",
        "## Tasks",
        "## Scoring",
        "## Dataset",
        "## Evaluation Report",
        "## Citation",
    ):
        assert any(h.startswith(shape) for h in headings), shape


def test_every_local_link_of_the_readme_and_the_docs_resolves() -> None:
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://", "#", "mailto:")):
                continue
            path = (page.parent / target.partition("#")[0]).resolve()
            assert path.exists(), f"{page.relative_to(ROOT)} links to {target}, which is missing"


def test_ci_runs_exactly_the_readme_test_command() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("Run the whole test suite", 1)[1].split("```bash\n", 1)[1]
    command = block.split("\n```", 1)[0].strip()
    script = (README.parent / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert script[-1] == command, "the last line of .ci/run is not the README's test command"
