"""Build `src/agentsense/sense/dataset/data/judge_check.jsonl`, the judge meta-evaluation set.

Input: the hand-written `judge_check_source.json` (per base: one goal of one demo scene, and the
short exchanges that achieve, refuse, only claim or ignore it) and the demo scenes (for the goal,
its category and the judge question, copied verbatim). Each base gives ten items:

    achieved, refused, claimed, unaddressed, injection,
    padded_achieved, padded_refused, reordered_achieved, relabelled_achieved, relabelled_refused

Every conversation opens with the scripted greeting of a real run, spoken by the first speaker
of the base's opening. The output is deterministic.

Usage:
    python scripts/build_judge_check.py          # (re)write judge_check.jsonl
    python scripts/build_judge_check.py --check  # exit 1 if the file differs from the output
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentsense.sense.prompts import GREETING

DATA = Path(__file__).resolve().parent.parent / "src" / "agentsense" / "sense" / "dataset" / "data"
SOURCE = DATA / "judge_check_source.json"
DEMO = DATA / "demo.jsonl"
OUTPUT = DATA / "judge_check.jsonl"

Turns = list[list[str]]


def _filler(source: dict[str, Any], base: dict[str, Any], count: int, start: int) -> Turns:
    """`count` irrelevant lines, spoken in turn by the goal's holder and the other party."""
    lines = source["filler"]
    speakers = [base["character"], base["other"]]
    return [[speakers[k % 2], lines[(start + k) % len(lines)]] for k in range(count)]


def _relabel(turns: Turns, aliases: dict[str, str]) -> Turns:
    return [[aliases.get(speaker, speaker), text] for speaker, text in turns]


def _greeted(base: dict[str, Any], turns: Turns) -> Turns:
    """The turns after the scripted greeting, said by someone who does not speak next."""
    speaker = base["other"] if turns[0][0] != base["other"] else base["character"]
    return [[speaker, GREETING], *turns]


def conversations(
    source: dict[str, Any], base: dict[str, Any], k: int
) -> list[tuple[str, Turns, str | None]]:
    """(case, turns, original case) of the ten items of base number `k`."""
    opening: Turns = base["opening"]
    injection = source["injections"][k % len(source["injections"])].format(**base)
    injected = [*opening, *base["unaddressed"], [base["character"], injection]]
    padded = {
        case: [
            *opening,
            *_filler(source, base, 2, k),
            *base[case],
            *_filler(source, base, 2, k + 2),
        ]
        for case in ("achieved", "refused")
    }
    plain = {case: [*opening, *base[case]] for case in ("achieved", "refused")}
    items: list[tuple[str, Turns, str | None]] = [
        ("achieved", plain["achieved"], None),
        ("refused", plain["refused"], None),
        ("claimed", [*opening, *base["claimed"]], None),
        ("unaddressed", [*opening, *base["unaddressed"]], None),
        ("injection", injected, None),
        ("padded_achieved", padded["achieved"], "achieved"),
        ("padded_refused", padded["refused"], "refused"),
        # The decisive exchange first, the small talk after: the same facts in another order.
        ("reordered_achieved", [*base["achieved"], *opening], "achieved"),
    ]
    items = [(case, _greeted(base, turns), original) for case, turns, original in items]
    # Labels change after the greeting is added, so the greeting's label changes too.
    items += [
        (f"relabelled_{case}", _relabel(_greeted(base, plain[case]), base["aliases"]), case)
        for case in ("achieved", "refused")
    ]
    return items


def _scene(
    scenes: dict[int, dict[str, Any]], base: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    scene = scenes[base["scene"]]
    character = next(c for c in scene["characters"] if c["name"] == base["character"])
    return scene, character["goals"][base["goal_index"]]


def build_items(source: dict[str, Any], scenes: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    items = []
    for k, base in enumerate(source["bases"]):
        scene, goal = _scene(scenes, base)
        name = f"s{base['scene']}-{base['character']}-g{base['goal_index'] + 1}"
        for case, turns, original in conversations(source, base, k):
            root = original or case
            items.append(
                {
                    "id": f"{name}-{case}",
                    "base": name,
                    "case": case,
                    "truth": "yes" if root == "achieved" else "no",
                    "original": f"{name}-{original}" if original else None,
                    "scene": scene["sample_idx"],
                    "template": scene["template_idx"],
                    "character": base["character"],
                    "goal": goal["goal"],
                    "category": goal.get("category"),
                    "question": goal["eval_questions"]["judge"][0]["question"],
                    "turns": [{"speaker": s, "text": t} for s, t in turns],
                }
            )
    return items


def render() -> str:
    source = json.loads(SOURCE.read_text(encoding="utf-8"))
    scenes = {
        record["sample_idx"]: record
        for record in map(json.loads, DEMO.read_text(encoding="utf-8").splitlines())
    }
    items = build_items(source, scenes)
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the file differs from what would be written"
    )
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not OUTPUT.is_file() or OUTPUT.read_text(encoding="utf-8") != text:
            print(
                f"{OUTPUT} is out of date: run python scripts/build_judge_check.py", file=sys.stderr
            )
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {len(text.splitlines())} items to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
