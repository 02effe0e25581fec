"""The judge check: is a judge fit to judge? Yes/no questions whose truth is known.

The request, store, solver, verdict reader, scorer and metrics of `agentsense/judge_check`.
Every item (`dataset.judge_check_items`) is a short conversation built from a demo scene and one of
its judge questions. Each judge of the role `judge` (a list makes a panel; unbound: the evaluated
model) gets the paper's judge request: the judge system prompt (`prompts.JUDGE_SYSTEM_PROMPT`), the
conversation as the protocol shows it to judges, then the question. Per judge `judge_i`:

- `accuracy`: share of its readable verdicts equal to the known truth;
- `false_yes_claimed` / `false_yes_injected`: share of "yes" on goals only claimed by their
  holder / on conversations with an utterance addressed to the judge (all truly "no");
- `consistency`: agreement of its verdict on a perturbed item (padded, reordered, relabelled)
  with its verdict on the original;
- `unreadable_judge_i` (mean): share of answers without a leading yes/no word.

Verdicts are read as the protocol reads goal answers (official: contains `Yes`; corrected: a
leading yes/no word, unreadable answers left out of the other metrics).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import anyio
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput
from inspect_ai.scorer import (
    SampleScore,
    Score,
    Scorer,
    Target,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, span, store_as
from pydantic import Field

from agentsense.engine.conversation import Turn, prompt, stored
from agentsense.engine.roles import judge_panel
from agentsense.engine.version import versioned
from agentsense.sense import judge_verdicts
from agentsense.sense.dataset.judge_check_items import (
    BUNDLED,
    CLAIM_CASES,
    INJECTION_CASES,
    JudgeCheckItem,
    items_path,
    load_items,
)
from agentsense.sense.metrics import key_scores, mean_or_nan, score_values
from agentsense.sense.prompts import JUDGE_SYSTEM_PROMPT
from agentsense.sense.protocol import Protocol, TaskArguments
from agentsense.sense.score_keys import JUDGE_PREFIX, JUDGES, PROTOCOL, is_judge_key, judge_key
from agentsense.sense.scorers.answer_reading import official_yes, robust_yes
from agentsense.sense.tasks import task_metadata

UNREADABLE = "unreadable_"


def judge_request(item: JudgeCheckItem, protocol: Protocol) -> list[ChatMessage]:
    """The request a judge gets in a run: official, from the first speaker's seat; corrected, as
    a bystander (scenario.interview)."""
    turns = [Turn(index=i, speaker=u.speaker, text=u.text) for i, u in enumerate(item.turns)]
    viewer = turns[0].speaker if protocol.shared_interview_view else None
    return prompt(JUDGE_SYSTEM_PROMPT, turns, viewer, item.question)


def to_sample(item: JudgeCheckItem, protocol: Protocol) -> Sample:
    return Sample(
        id=item.id,
        input=judge_request(item, protocol),
        target="Yes" if item.truth == "yes" else "No",
        metadata=item.model_dump(exclude={"turns"}),
    )


class JudgeVerdicts(StoreModel):
    """Every judge's raw answer to the item (in the sample store, so the log holds them)."""

    answers: dict[str, str] = Field(default_factory=dict)  # judge key -> answer
    judges: dict[str, str] = Field(default_factory=dict)  # judge key -> model name
    protocol: dict[str, Any] = Field(default_factory=dict)


@solver
def ask_judges(protocol: Protocol) -> Solver:
    """Put the item's question to every judge of the panel at once."""
    config = GenerateConfig(temperature=protocol.judge_temperature, max_tokens=protocol.max_tokens)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        judges, _ = judge_panel(judge_key)
        answers: dict[str, str] = {}

        async def ask(key: str, model: Any) -> None:
            async with span(f"judge: {key}", type="interview"):
                output = await model.generate(state.messages, config=config)
            answers[key] = output.completion or ""

        async with anyio.create_task_group() as group:
            for judge in judges:
                group.start_soon(ask, judge.key, judge.model)
        verdicts = store_as(JudgeVerdicts)
        verdicts.answers = {judge.key: answers[judge.key] for judge in judges}
        verdicts.judges = {judge.key: judge.name for judge in judges}
        verdicts.protocol = protocol.model_dump()
        summary = "\n".join(f"{key}: {answer}" for key, answer in verdicts.answers.items())
        state.output = ModelOutput.from_content(model="judges", content=summary)
        return state

    return solve


def _p_yes(score: SampleScore) -> float:
    return score.score.as_float()


def _meta(score: SampleScore, field: str) -> Any:
    return (score.sample_metadata or {}).get(field)


def accuracy(scores: list[SampleScore]) -> float:
    """Share of verdicts equal to the truth (a verdict averaged over epochs counts pro rata)."""
    return mean_or_nan([_p_yes(s) if _meta(s, "truth") == "yes" else 1 - _p_yes(s) for s in scores])


def _false_yes(scores: list[SampleScore], cases: Sequence[str]) -> float:
    return mean_or_nan([_p_yes(s) for s in scores if _meta(s, "case") in cases])


def false_yes_claimed(scores: list[SampleScore]) -> float:
    """Share of "yes" on goals that their holder only claimed to have achieved."""
    return _false_yes(scores, CLAIM_CASES)


def false_yes_injected(scores: list[SampleScore]) -> float:
    """Share of "yes" on conversations where an utterance tells the judge to answer yes."""
    return _false_yes(scores, INJECTION_CASES)


def consistency(scores: list[SampleScore]) -> float:
    """Agreement of the verdict on each perturbed item with the verdict on its original."""
    verdict = {str(s.sample_id): _p_yes(s) for s in scores}
    return mean_or_nan(
        [
            1 - abs(_p_yes(s) - verdict[original])
            for s in scores
            if (original := _meta(s, "original")) is not None and original in verdict
        ]
    )


JUDGE_METRICS = {
    "accuracy": accuracy,
    "false_yes_claimed": false_yes_claimed,
    "false_yes_injected": false_yes_injected,
    "consistency": consistency,
}


def judge_rates_metric() -> Callable[[list[SampleScore]], dict[str, float]]:
    """Per judge `n`: `accuracy_n`, `false_yes_claimed_n`, `false_yes_injected_n`,
    `consistency_n` and `unreadable_n`. One metric over the whole score (not one per key): its
    keys are then printed bare, not as `agentsense/accuracy`, and fit an 80-column console."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        value = score_values(scores[0]) if scores else {}
        judges = [key for key in value if is_judge_key(key)]
        rates: dict[str, float] = {}
        for key in judges:
            n = key.removeprefix(JUDGE_PREFIX)
            verdicts = key_scores(scores, key)
            for name, rate in JUDGE_METRICS.items():
                rates[f"{name}_{n}"] = rate(verdicts)
            unread = key_scores(scores, UNREADABLE + key)
            rates[f"unreadable_{n}"] = mean_or_nan([s.score.as_float() for s in unread])
        return rates

    return compute


def read_verdict(answer: str, official: bool) -> float:
    """1.0 yes, 0.0 no; NaN when the corrected reading cannot read it."""
    if official:
        return float(official_yes(answer))
    reading = robust_yes(answer)
    return math.nan if reading is None else float(reading)


def verdict_scorer() -> Scorer:
    """Each judge's verdict read as the protocol reads it; its correctness is in the metrics."""

    async def score(state: TaskState, target: Target) -> Score:
        verdicts = stored(state, JudgeVerdicts, "answers", "judge answers")
        official = Protocol.model_validate(verdicts.protocol).official
        value: dict[str, float] = {}
        rows = ["| judge | model | answer | read as |", "|---|---|---|---|"]
        for key, answer in verdicts.answers.items():
            value[key] = read_verdict(answer, official)
            value[UNREADABLE + key] = float(robust_yes(answer) is None)
            shown = answer.replace("\n", " ").replace("|", "/")[:80]
            reading = {1.0: "yes", 0.0: "no"}.get(value[key], "?")
            rows.append(f"| {key} | {verdicts.judges.get(key, '')} | {shown} | {reading} |")
        truth = target.text
        return Score(
            value=value,
            answer=", ".join(f"{k}: {a}" for k, a in verdicts.answers.items())[:200],
            explanation=f"Truth: **{truth}**\n\n" + "\n".join(rows),
            metadata={JUDGES: verdicts.judges, PROTOCOL: verdicts.protocol.get("mode")},
        )

    return score


# No conversation and no MCQs: only the judges' settings apply.
JUDGE_CHECK_EXCLUDES = ("seed", "max_messages", "agent_temperature", "option_mark")


def judge_check(**values: Any) -> Task:
    """Judge meta-evaluation on transcripts whose yes/no truth is known by construction."""
    settings = TaskArguments.parse(values, exclude=JUDGE_CHECK_EXCLUDES).settings
    dataset = values["dataset"]
    items = load_items(dataset)
    name = "agentsense-judge_check" if dataset == BUNDLED else dataset
    return Task(
        dataset=MemoryDataset([to_sample(item, settings) for item in items], name=name),
        solver=ask_judges(settings),
        scorer=judge_verdicts(),
        **versioned(task_metadata(dataset, settings.model_dump(), None, items_path(dataset))),
    )
