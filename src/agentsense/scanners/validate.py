"""Precision and recall of each scanner on the labelled turns in `validation/` (docs/scanners.md):

    python -m agentsense.scanners.validate [--model MODEL]

The pattern scanners run their rules on each turn; the LLM scanners ask `--model` (default
`scanner-standin/patterns`, which answers with the pattern rules: a check of the plumbing, not
of a language model) about a one-turn transcript built from each case.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

from agentsense.scanners import detect

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


def cases(name: str) -> list[Case]:
    text = files("agentsense.scanners").joinpath("validation", f"{name}.jsonl").read_text("utf-8")
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


def pattern_figures(name: str) -> Figures:
    found = cases(name)
    return figures(name, [c["label"] for c in found], [RULES[name](c) for c in found])


async def _llm_flags(scanner: str, found: list[Case], model: str) -> list[bool]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
    from inspect_scout import Transcript

    from agentsense.scanners import llm

    scan = getattr(llm, scanner)(model=model)
    flags = []
    for i, case in enumerate(found):
        secrets = [{"name": case["speaker"], "private_info": case.get("secret", "")}]
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


def llm_figures(scanner: str, model: str) -> Figures:
    found = cases(LLM[scanner])
    flags = asyncio.run(_llm_flags(scanner, found, model))
    return figures(f"{scanner} ({model})", [c["label"] for c in found], flags)


def table(rows: list[Figures]) -> str:
    lines = ["| scanner | positives | negatives | precision | recall |", "|---|---|---|---|---|"]
    lines += [
        f"| {f.scanner} | {f.positives} | {f.negatives} | {f.precision:.2f} | {f.recall:.2f} |"
        for f in rows
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m agentsense.scanners.validate")
    parser.add_argument("--model", default="scanner-standin/patterns", help="for the LLM scanners")
    parser.add_argument("--patterns-only", action="store_true", help="skip the LLM scanners")
    args = parser.parse_args(argv)
    rows = [pattern_figures(name) for name in RULES]
    if not args.patterns_only:
        rows += [llm_figures(scanner, args.model) for scanner in LLM]
    print(table(rows))


if __name__ == "__main__":
    main()
