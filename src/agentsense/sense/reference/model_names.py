"""Serving names (`vllm/Qwen/Qwen2.5-72B-Instruct`, `gpt-4o-2024-05-13`) -> the paper's model names.

The names are data: the packaged `models.csv`, then a user's file of the same form named by the
`extra` argument or by AGENTSENSE_MODEL_NAMES (a user's line wins over a packaged one). Matching
ignores case and an Inspect provider prefix, so a file lists each name once, without provider.
"""

from __future__ import annotations

import csv
import functools
import os
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from agentsense.engine.errors import ReportError
from agentsense.sense.reference.paper import paper_models

__all__ = ["ENV", "HEADER", "name_table", "paper_model", "read_names"]

ENV = "AGENTSENSE_MODEL_NAMES"
HEADER = ("serving_name", "paper_model")
# Inspect's providers (inspect_ai/model/_providers): the first segment a model name may carry.
PROVIDERS = frozenset(
    [
        "anthropic",
        "azureai",
        "bedrock",
        "cloudflare",
        "deepseek",
        "fireworks",
        "google",
        "grok",
        "groq",
        "hf",
        "hf-inference-providers",
        "litellm-proxy",
        "llama-cpp-python",
        "meta",
        "mistral",
        "moonshot",
        "nnterp",
        "ollama",
        "openai",
        "openai-api",
        "openai-api-completions",
        "openrouter",
        "perplexity",
        "sagemaker",
        "sambanova",
        "sglang",
        "together",
        "transformer_lens",
        "vllm",
        "vllm-completions",
    ]
)
# These carry a service segment too: openai-api/<service>/<model>.
SERVICE_PROVIDERS = frozenset({"openai-api", "openai-api-completions"})
FORMAT = (
    f"a CSV file whose first line (after '#' comment lines) is {','.join(HEADER)} and whose "
    "other lines each hold one serving name and one model of the paper's tables"
)


def _fold(name: str) -> str:
    return name.strip().casefold()


def packaged_csv() -> Path:
    return Path(str(resources.files("agentsense.sense.reference") / "models.csv"))


def _lines(path: Path, origin: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of the lines that are not blank or comments."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(
            f"{path}: no such model-names file ({origin}). Fix: give the path of {FORMAT}."
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ReportError(
            f"{path}: the model-names file ({origin}) cannot be read as UTF-8 text ({error}). "
            f"Fix: save it as {FORMAT}."
        ) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def _split(line: str) -> list[str]:
    return [field.strip() for field in next(csv.reader([line]))]


def _fields(path: Path, number: int, line: str) -> tuple[str, str]:
    fields = _split(line)
    if len(fields) != len(HEADER) or not all(fields):
        raise ReportError(
            f"{path}, line {number}: {line.strip()!r} is not a serving name and a paper model "
            f"separated by one comma. Fix: write it as serving_name,paper_model (e.g. "
            f"Qwen/Qwen2.5-72B-Instruct,Qwen2.5-72b), quoting a name that holds a comma."
        )
    return fields[0], fields[1]


def _paper_name(path: Path, number: int, model: str) -> str:
    known = paper_models()
    if _fold(model) not in known:
        raise ReportError(
            f"{path}, line {number}: {model!r} is not a model of the paper's tables. Fix: write "
            f"one of {', '.join(sorted(known.values()))} in the paper_model column (any case)."
        )
    return known[_fold(model)]


def read_names(path: Path, origin: str = "a model-names file") -> dict[str, str]:
    """Folded serving name -> the paper's model name, from `path`; a bad line is refused."""
    lines = _lines(path, origin)
    first = next(lines, None)
    if first is None or tuple(_split(first[1])) != HEADER:
        number, found = first or (1, "")
        raise ReportError(
            f"{path}, line {number}: found {found.strip()!r} where the header belongs. Fix: make "
            f"the first line that is not a '#' comment read {','.join(HEADER)}."
        )
    names: dict[str, tuple[int, str]] = {}
    for number, line in lines:
        serving, model = _fields(path, number, line)
        paper = _paper_name(path, number, model)
        earlier = names.get(_fold(serving))
        if earlier and earlier[1] != paper:  # the same name twice is harmless; two models is not
            raise ReportError(
                f"{path}, line {number}: {serving!r} is mapped to {earlier[1]} on line "
                f"{earlier[0]} and to {paper} here. Fix: keep one of the two lines."
            )
        names[_fold(serving)] = (number, paper)
    return {serving: paper for serving, (_, paper) in names.items()}


@functools.cache
def _packaged() -> dict[str, str]:
    names = read_names(packaged_csv(), "packaged with agentsense")
    # The paper's own names resolve to themselves ('qwen2.5-72b', 'Llama-3-8B').
    return {**paper_models(), **names}


def name_table(extra: Path | None = None) -> dict[str, str]:
    """The packaged names, then AGENTSENSE_MODEL_NAMES's file, then `extra`: a later file wins."""
    names = dict(_packaged())
    if os.environ.get(ENV):
        names.update(read_names(Path(os.environ[ENV]), f"from {ENV}"))
    if extra is not None:
        names.update(read_names(extra, "the extra argument"))
    return names


def _candidates(name: str) -> Iterator[str]:
    """The name, then the name without each Inspect provider prefix it carries."""
    folded = _fold(name)
    yield folded
    provider, _, rest = folded.partition("/")
    while rest and provider in PROVIDERS:
        if provider in SERVICE_PROVIDERS:  # openai-api/<service>/<model>: both are tried
            yield rest
            _, _, rest = rest.partition("/")
            if not rest:
                return
        yield rest
        provider, _, rest = rest.partition("/")


def paper_model(name: str, extra: Path | None = None) -> str | None:
    """The paper's name of the model served as `name`, or None when no file knows it."""
    names = name_table(extra)
    return next((names[c] for c in _candidates(name) if c in names), None)
