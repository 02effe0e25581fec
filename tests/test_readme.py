"""The README's generated Parameters section matches the task signatures."""

from __future__ import annotations

from pathlib import Path

from agentsense.arguments import BEGIN, END, replace_section, section

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_parameters_section_is_generated_from_the_signatures() -> None:
    text = README.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    assert replace_section(text) == text, (
        "README.md is out of date: run python -m agentsense.arguments README.md"
    )


def test_the_section_lists_every_argument_of_every_task() -> None:
    import agentsense
    from agentsense.engine.strict import declared_names

    generated = section()
    for name in agentsense.__all__:
        for argument in declared_names(getattr(agentsense, name)):
            assert f"`{argument}`" in generated, (name, argument)


def test_ci_runs_exactly_the_readme_test_command() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("Run the whole test suite", 1)[1].split("```bash\n", 1)[1]
    command = block.split("\n```", 1)[0].strip()
    script = (README.parent / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert script[-1] == command, "the last line of .ci/run is not the README's test command"
