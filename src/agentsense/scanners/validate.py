"""Precision and recall of each scanner on the labelled turns (docs/scanners.md), on two sets
kept apart: the development set in `validation/` (the rules were written on it) and the held-out
set in `validation/heldout/` (written from the docs' table alone; the rules were not tuned on it):

    python -m agentsense.scanners.validate [--set development|held-out] [--model MODEL]

The pattern scanners run their rules on each turn; the LLM scanners ask `--model` (default
`scanner-standin/patterns`, which answers with the pattern rules: a check of the plumbing, not
of a language model) about a one-turn transcript built from each case. An LLM scanner reads its
own file of a set (`secret_leak_llm.jsonl`) where the set has one, else its pattern's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from agentsense.scanners import detect

if TYPE_CHECKING:  # importlib.resources.abc is new in Python 3.11
    from importlib.resources.abc import Traversable

Case = dict[str, Any]

RULES: dict[str, Callable[[Case], bool]] = {
    "character_break": lambda c: detect.character_break(c["text"]),
    "wrong_speaker": lambda c: (
        detect.wrong_speaker(c["text"], c["speaker"], c["names"]) is not None
    ),
    "secret_leak": lambda c: detect.secret_leak(c["text"], c["secret"], c["names"]),
    "refusal": lambda c: detect.refusal(c["text"]),
    "newline_cut_loss": lambda c: detect.cut_loss(c["text"], c["speaker"]) >= detect.MOST,
    "judge_disagreement": lambda c: (
        detect.panel_splits(
            {"asker": judge, "reading": reading, "character": "x", "goal": 1, "item": 1}
            for judge, reading in c["readings"].items()
        )[0]
        > 0
    ),
}
LLM = {"character_break_llm": "character_break", "secret_leak_llm": "secret_leak"}
# Each set's folder under the package (the held-out set must never be tuned on: see its README).
SETS = {"development": ("validation",), "held-out": ("validation", "heldout")}


def case_file(name: str, which: str = "development") -> Traversable:
    """The labelled turns of scanner `name` in set `which` (an LLM scanner falls back to its
    pattern's file)."""
    folder = files("agentsense.scanners").joinpath(*SETS[which])
    own = folder.joinpath(f"{name}.jsonl")
    return own if own.is_file() else folder.joinpath(f"{LLM.get(name, name)}.jsonl")


def cases(name: str, which: str = "development") -> list[Case]:
    text = case_file(name, which).read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@dataclass(frozen=True)
class Figures:
    scanner: str
    positives: int
    negatives: int
    precision: float
    recall: float


def figures(scanner: str, labels: list[bool], flagged: list[bool]) -> Figures:
    tp = sum(a and b for a, b in zip(labels, flagged, strict=True))
    fp = sum(b and not a for a, b in zip(labels, flagged, strict=True))
    positives = sum(labels)
    precision = tp / (tp + fp) if tp + fp else float("nan")
    return Figures(scanner, positives, len(labels) - positives, precision, tp / positives)


def pattern_figures(name: str, which: str = "development") -> Figures:
    found = cases(name, which)
    return figures(name, [c["label"] for c in found], [RULES[name](c) for c in found])


async def _llm_flags(scanner: str, found: list[Case], model: str) -> list[bool]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
    from inspect_scout import Transcript

    from agentsense.scanners import llm

    scan = getattr(llm, scanner)(model=model)
    flags = []
    for i, case in enumerate(found):
        # The scene's whole cast, as in a log: only the speaker's secret is known.
        cast = case.get("names") or [case["speaker"]]
        secrets = [
            {"name": n, "private_info": case.get("secret", "") if n == case["speaker"] else ""}
            for n in cast
        ]
        transcript = Transcript(
            transcript_id=f"{scanner}-{i}",
            messages=[
                ChatMessageUser(content="The scene begins."),
                ChatMessageAssistant(content=f"{case['speaker']}: {case['text']}"),
            ],
            metadata={"sample_metadata": {"scenario": {"characters": secrets}}},
        )
        result = await scan(transcript)
        flags.append(bool(result.value))  # type: ignore[union-attr]
    return flags


def llm_figures(scanner: str, model: str, which: str = "development") -> Figures:
    found = cases(scanner, which)
    flags = asyncio.run(_llm_flags(scanner, found, model))
    return figures(f"{scanner} ({model})", [c["label"] for c in found], flags)


def table(rows: list[Figures]) -> str:
    lines = ["| scanner | positives | negatives | precision | recall |", "|---|---|---|---|---|"]
    lines += [
        f"| {f.scanner} | {f.positives} | {f.negatives} | {_share(f.precision)} "
        f"| {_share(f.recall)} |"
        for f in rows
    ]
    return "\n".join(lines)


def _share(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}"  # precision when nothing is flagged


HEADINGS = {
    "development": "Development set (validation/: the rules were written on it)",
    "held-out": "Held-out set (validation/heldout/: written from the docs alone, never tuned on)",
}


def set_rows(which: str, model: str | None) -> list[Figures]:
    """Every pattern scanner's figures on set `which`, then the LLM scanners' on `model`."""
    rows = [pattern_figures(name, which) for name in RULES]
    return rows + [llm_figures(scanner, model, which) for scanner in LLM] if model else rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m agentsense.scanners.validate")
    parser.add_argument("--model", default="scanner-standin/patterns", help="for the LLM scanners")
    parser.add_argument("--patterns-only", action="store_true", help="skip the LLM scanners")
    parser.add_argument("--set", choices=[*SETS, "both"], default="both", help="which labelled set")
    args = parser.parse_args(argv)
    model = None if args.patterns_only else args.model
    chosen = list(SETS) if args.set == "both" else [args.set]
    print("\n\n".join(f"{HEADINGS[which]}:\n\n{table(set_rows(which, model))}" for which in chosen))


if __name__ == "__main__":
    main()
