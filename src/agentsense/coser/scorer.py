"""The GCA scorer: four critics (the model bound to `critic`), CoSER's score per dimension and
their average, and BLEU / ROUGE-L against the book's conversation.

It works from the sample store alone (the conversation and the settings it ran with), so
`inspect score` can re-judge a log with another critic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from inspect_ai.model import Model
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import TaskState
from inspect_ai.util import collect

from agentsense.coser import KEYS
from agentsense.coser import prompts as coser_prompts
from agentsense.coser.compared_texts import actor_rounds, reference_text, simulation_text
from agentsense.coser.critic import Verdict, critic_messages, judge_dimension
from agentsense.coser.overlap import bleu, rouge_l
from agentsense.coser.record import Circumstance
from agentsense.coser.score import dimension_score, ignored_severities, severity_sum
from agentsense.coser.simulation import GCASettings, circumstance_of, role_model
from agentsense.engine.conversation import Conversation, Turn, stored
from agentsense.engine.extras import require_extra
from agentsense.engine.roles import CRITIC_ROLE
from agentsense.sense.metrics import mean_or_nan


def profiles_text(profiles: dict[str, str]) -> str:
    return "\n\n".join(f"### {name}\n\n{profile}" for name, profile in profiles.items())


def dimension_entry(verdict: Verdict, rounds: int) -> tuple[float, dict[str, Any]]:
    """A dimension's score (NaN when unreadable) and its metadata row."""
    total = severity_sum(verdict.flaws)
    value = dimension_score(total, rounds) if verdict.readable else math.nan
    return value, {
        "readable": verdict.readable,
        "score": None if math.isnan(value) else value,
        "severity_sum": total,
        "rounds": rounds,
        "flaws": verdict.flaws,
        "ignored_severities": ignored_severities(verdict.flaws),
        "attempts": verdict.attempts,
        "replies": verdict.replies,
    }


def critic_scores(
    verdicts: Sequence[Verdict], rounds: int
) -> tuple[dict[str, float], dict[str, dict[str, Any]]]:
    """Each critic's score under its key, then their average (NaN if a dimension is unreadable),
    and each dimension's metadata row."""
    value: dict[str, float] = {}
    rows: dict[str, dict[str, Any]] = {}
    for verdict in verdicts:
        value[KEYS[verdict.dimension]], rows[verdict.dimension] = dimension_entry(verdict, rounds)
    value["average"] = mean_or_nan(list(value.values()))
    return value, rows


async def run_critics(
    model: Model,
    dimensions: Sequence[coser_prompts.Dimension],
    systems: Sequence[str],
    simulation: str,
    settings: GCASettings,
) -> list[Verdict]:
    return await collect(
        *[
            judge_dimension(
                model,
                dimension,
                critic_messages(system, simulation),
                settings.critic_attempts,
                settings.critic_max_tokens,
            )
            for dimension, system in zip(dimensions, systems, strict=True)
        ]
    )


def explanation(rows: dict[str, dict[str, Any]], overlap: dict[str, float]) -> str:
    lines = ["| dimension | score | flaws (severity) |", "|---|---|---|"]
    for name, row in rows.items():
        score = "unreadable" if not row["readable"] else f"{row['score']:.1f}"
        flaws = "; ".join(
            f"{flaw.get('type', '?')} ({flaw.get('severity')})" for flaw in row["flaws"]
        )
        lines.append(f"| {name} | {score} | {flaws or 'none'} |")
    if overlap:
        lines.append("")
        lines.append(", ".join(f"{key} {value:.4f}" for key, value in overlap.items()))
    return "\n".join(lines)


def critic_systems(record: Circumstance, settings: GCASettings) -> list[str]:
    k = settings.continue_from
    extra = coser_prompts.continue_from_instruction(k) if k > 0 else ""
    return [
        coser_prompts.critic_prompt(
            dimension,
            book=record.book,
            plot_summary=record.plot.summary,
            scenario=record.scenario,
            character_profiles=profiles_text(record.involved_profiles()),
            original_conversation=reference_text(record.dialogues),
            major_characters=record.major_characters,
            additional_instructions=extra,
        )
        for dimension in coser_prompts.DIMENSIONS
    ]


def conversation_of(state: TaskState) -> tuple[list[Turn], GCASettings]:
    hint = "score logs of agentsense/gca (its simulation writes the conversation)."
    conversation = stored(state, Conversation, "turns", "conversation", hint)
    return list(conversation.turns), GCASettings.model_validate(conversation.protocol)


def critics_scorer() -> Scorer:
    """CoSER's four critics (role `critic`), the length-corrected scores, BLEU and ROUGE-L."""
    # `inspect score --scorer agentsense/gca_critics` makes it without the task's own check
    require_extra("gca", "the agentsense/gca scorer")

    async def score(state: TaskState, target: Target) -> Score:
        record = circumstance_of(state.metadata)
        turns, settings = conversation_of(state)
        simulation = simulation_text(turns)
        verdicts = await run_critics(
            role_model(CRITIC_ROLE),
            coser_prompts.DIMENSIONS,
            critic_systems(record, settings),
            simulation,
            settings,
        )
        rounds = actor_rounds(turns)
        value, rows = critic_scores(verdicts, rounds)
        k = min(settings.continue_from, len(record.dialogues))
        ours, book = simulation_text(turns[k:]), reference_text(record.dialogues[k:])
        overlap = {"bleu": bleu(ours, book), "rouge_l": rouge_l(ours, book)}
        value.update(overlap)
        return Score(
            value=value,
            answer=simulation,
            explanation=explanation(rows, overlap),
            metadata={
                "dimensions": rows,
                "rounds": rounds,
                "messages": len(turns),
                "unreadable": [name for name, row in rows.items() if not row["readable"]],
            },
        )

    return score
