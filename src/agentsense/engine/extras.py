"""The optional extras a command or a task needs beyond the core (pyproject.toml), and the check
that stops it, before any model call or file write, with the one line that says what to install:
never an ImportError halfway through. `smollm` has its own, longer check (smollm/prepare.py),
since that extra needs a second, `--no-deps` install.
"""

from __future__ import annotations

from importlib.util import find_spec

from rich.markup import escape

from agentsense.engine.errors import PrerequisiteError

# Extra -> the modules the code imports from it (pyproject.toml lists the distributions; pyarrow
# is left out: pandas uses it when it is there and the code never imports it).
EXTRAS: dict[str, tuple[str, ...]] = {
    "report": ("pandas", "numpy", "scipy", "statsmodels", "krippendorff", "matplotlib"),
    "gca": ("sacrebleu", "rouge_score"),
}


class MissingExtra(PrerequisiteError):
    """An extra that is not installed. Inspect prints a PrerequisiteError's message as Rich
    markup, which would swallow `[gca]`: the message is escaped for it, and `str()` (the
    `agentsense` command's print) is the plain text."""

    def __init__(self, text: str) -> None:
        super().__init__(escape(text))
        self.text = text

    def __str__(self) -> str:
        return self.text


def missing(extra: str) -> list[str]:
    """The modules of `extra` that are not installed (found without importing them)."""
    return [name for name in EXTRAS[extra] if find_spec(name) is None]


def require_extra(extra: str, needed_by: str) -> None:
    """Stop `needed_by` if `extra` is incomplete, with one line that names it and the install
    that fixes it (under 80 columns: Inspect wraps its error at the console's width)."""
    if missing(extra):
        raise MissingExtra(
            f"{needed_by} needs the {extra} extra: pip install 'agentsense[{extra}]'"
        )
