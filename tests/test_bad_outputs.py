"""Bad outputs: adversarial model replies give deterministic, hand-checked scores, with
unreadable answers counted in the log, and never a crash.

One scene per case (two characters, one goal and one MCQ each); the stub answers *every* request
of a scene (turns, interviews, judges, MCQs) with that case's text, found by the `CaseNN` tag in
the character names. Both protocol modes run through the `inspect` CLI and the `vllm/` provider.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log

from agentsense.standin.rules import Request
from agentsense.standin.stub.harness import InspectCLI, canonical, log_figures

pytestmark = pytest.mark.slow

OPTIONS = ["The red key.", "The blue key.", "The green key.", "The black key."]
ANSWER = 1  # "(B) The blue key."
LONG = ("No. " + "blah " * 2500)[:10_000]


@dataclass(frozen=True)
class Case:
    """An output and how it must be read: official yes (0/1), corrected yes (1/0/None), and the
    MCQ option index read in official and corrected mode (None: unreadable)."""

    name: str
    output: str
    official_yes: int
    corrected_yes: int | None
    mcq: int | None


CASES = [
    Case("empty", "", 0, None, None),
    Case("whitespace only", "   \n\t  ", 0, None, None),
    Case("10,000 characters", LONG, 0, 0, None),
    Case("Chinese", "是的，他做到了。", 0, None, None),
    Case("Cyrillic", "Да, конечно.", 0, None, None),
    Case("Arabic", "نعم", 0, None, None),
    Case("yes", "yes", 0, 1, None),
    Case("YES", "YES", 0, 1, None),
    Case("Yes.", "Yes.", 1, 1, None),
    Case("Yes and no", "Yes and no", 1, 1, None),
    Case("No, but yes", "No, but yes", 0, 0, None),
    Case("imitates a judge", "Judge: Yes", 1, 1, None),
    Case("imitates another character", "{other}: Yes, I fully agree.", 1, 1, None),
    Case("(A)(B)", "(A)(B)", 0, None, 0),
    Case("(B) or maybe (C)", "(B) or maybe (C)", 0, None, 1),
    Case("refusal", "I'm sorry, but I can't help with that.", 0, None, None),
    Case("AI disclaimer", "As an AI language model, I cannot answer.", 0, None, None),
    Case("markdown bold", "**Yes**", 1, 1, None),
    Case("leading newline", "\nYes", 1, 1, None),
    Case("labelled answer", "Answer: No", 0, 0, None),
    Case("N/A", "N/A", 0, None, None),
    Case("label out of range", "(E)", 0, None, 4),
    Case("lower-case letter", "b", 0, None, 1),
    Case("letter and dot", "B.", 0, None, 1),
    Case("option text", "The blue key.", 0, None, 1),
    Case("lower-case label", "(b)", 0, None, None),
    Case("emoji", "🙂👍", 0, None, None),
    Case("JSON", '{"answer": "Yes"}', 1, None, None),
    Case("special token", "<|im_end|>", 0, None, None),
    Case("zero-width space", "Yes\u200b", 1, 1, None),
]
TAG = re.compile(r"Case(\d\d)")


def names(i: int) -> tuple[str, str]:
    return f"Case{i:02d}Ann", f"Case{i:02d}Bob"


def adversarial(request: Request) -> str:
    """Every request of scene i gets case i's output (the tag is in every prompt)."""
    match = TAG.search(request.system + "\n".join(text for _, text in request.messages))
    if match is None:
        return "Yes."
    i = int(match.group(1))
    return CASES[i].output.replace("{other}", names(i)[1])


def character(name: str, other: str, goal: str) -> dict[str, Any]:
    def ask(obj: str, question: str) -> dict[str, str]:
        return {"obj": obj, "question": question}

    return {
        "name": name,
        "profile": f"{name} is a locksmith.",
        "goals": [
            {
                "goal": goal,
                "eval_questions": {
                    "self": [
                        ask(
                            name,
                            f"Has {name} achieved the goal '{goal}' during the conversation? "
                            "Answer Yes or No.",
                        )
                    ],
                    "others": [
                        ask(
                            other,
                            f"In your opinion, has {name} achieved the goal '{goal}'? "
                            "Answer Yes or No.",
                        )
                    ],
                    "judge": [
                        ask(
                            "judge",
                            f"Based on the conversation, has {name} achieved the goal '{goal}'? "
                            "Answer Yes or No.",
                        )
                    ],
                },
            }
        ],
        "private_info": f"{name} lost the spare key.",
        "info_reason_questions": [
            {
                "question": f"Which key does {other} carry?",
                "options": OPTIONS,
                "answer_label": ANSWER,
            }
        ],
    }


def dataset(path: Path) -> Path:
    lines = []
    for i in range(len(CASES)):
        ann, bob = names(i)
        lines.append(
            json.dumps(
                {
                    "sample_idx": i,
                    "template_idx": i,
                    "background": "Two locksmiths meet.",
                    "description": "They must agree on who keeps the keys.",
                    "characters": [
                        character(ann, bob, f"To get {bob} to share the key."),
                        character(bob, ann, f"To keep the key from {ann}."),
                    ],
                },
                ensure_ascii=False,
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def expected(case: Case, official: bool) -> dict[str, float]:
    yes = case.official_yes if official else case.corrected_yes
    goal = math.nan if yes is None else float(yes)
    keys = ["self", "other", "judge_1", "judge_2", "judge_3", "judge_mean", "judge_majority"]
    return {**dict.fromkeys(keys, goal), "mcq_accuracy": float(case.mcq == ANSWER)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One CLI run per protocol mode over all cases; the stub plays every model."""
    from agentsense.standin.stub import StubServer

    root = tmp_path_factory.mktemp("bad-outputs")
    data = dataset(root / "cases.jsonl")
    logs = {}
    with StubServer(rule=adversarial) as stub:
        for mode in ("official", "corrected"):
            cli = InspectCLI(root / mode)
            result = cli.run(
                [
                    "eval",
                    "agentsense/full",
                    "-T",
                    f"dataset={data}",
                    "-T",
                    f"protocol={mode}",
                    "-T",
                    "max_messages=3",
                    "--model",
                    "vllm/agent",
                    "--model-role",
                    "judge=vllm/judge-a,vllm/judge-b,vllm/judge-c",
                    "--display",
                    "none",
                ],
                env={"VLLM_BASE_URL": stub.base_url},
            )
            assert result.returncode == 0, result.output[-3000:]
            print(f"\n{mode}: {len(CASES)} cases in {result.seconds:.1f} s")
            (logs[mode],) = cli.eval_logs()
    return logs


def test_enough_cases() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("mode", ["official", "corrected"])
def test_adversarial_outputs_score_as_expected(runs: dict[str, Path], mode: str) -> None:
    figures = log_figures(runs[mode])
    assert figures.status == "success" and figures.samples == len(CASES)
    assert figures.errored == 0 and figures.sample_retries == 0
    official = mode == "official"
    log = read_eval_log(str(runs[mode]))
    rows, wrong = [], []
    for sample in log.samples or []:
        case = CASES[int(sample.id)]
        score = sample.scores["goal_and_mcq"] if sample.scores else None
        assert score is not None and score.metadata is not None
        unreadable_goals = score.metadata["unreadable_goal_answers"]
        unreadable_mcq = score.metadata["unreadable_mcq_answers"]
        value: dict[str, Any] = dict(score.value)  # type: ignore[arg-type]
        rows.append(
            f"  {case.name:28} self={value['self']!s:5} mcq={value['mcq_accuracy']!s:4} "
            f"unreadable goal/MCQ answers={unreadable_goals}/{unreadable_mcq}"
        )
        if canonical(value) != canonical(expected(case, official)):
            wrong.append(f"{case.name}: {value} != {expected(case, official)}")
        # 10 goal answers per scene (self + others + 3 judges, for 2 characters), 2 MCQs.
        goal_unreadable = 10 if not official and case.corrected_yes is None else 0
        assert (unreadable_goals, unreadable_mcq) == (goal_unreadable, 2 * (case.mcq is None)), (
            case.name
        )
    total_goals = sum(r.count("goal/MCQ answers=10/") for r in rows)
    print(f"\n{mode} mode, {len(rows)} cases ({total_goals} with unreadable goal answers):")
    print("\n".join(rows))
    assert wrong == []


def test_long_and_empty_utterances_reach_the_transcript_whole(runs: dict[str, Path]) -> None:
    log = read_eval_log(str(runs["corrected"]))
    by_case = {CASES[int(s.id)].name: s for s in log.samples or []}
    turns = by_case["10,000 characters"].store["Conversation:turns"]
    assert [len(t["text"]) for t in turns[1:]] == [10_000, 10_000]
    assert [t["text"] for t in by_case["empty"].store["Conversation:turns"][1:]] == ["", ""]
