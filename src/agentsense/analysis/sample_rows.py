"""One sample of a log -> its rows, in one pass: the scene, its goals, its MCQ answers, its goal
answers (`ANSWER_COLUMNS`), its model calls and every scoring's headline values.

The goal and MCQ rows come from the score metadata the scorers log (`goal_scores`,
`mcq_answers`, `goal_answers`); nothing is re-derived from the answers.

The answer columns (`ANSWER_COLUMNS`, for users of `inspect_ai.analysis`): docs/analysis.md,
"Statistics", Judge reliability.

Whose secret an MCQ probes (`mcq_target`): docs/analysis.md, "Whose secret is an MCQ about?".
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from inspect_ai.event import ModelEvent, SpanBeginEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import ModelUsage

from agentsense.analysis.baselines import scene_baselines
from agentsense.analysis.logs import as_float, panel
from agentsense.engine.roles import CHARACTER_ROLE, JUDGE_ROLE, RECEIVER_ROLE, SENDER_ROLE
from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.dataset.schema import MCQ, Scenario
from agentsense.sense.protocol import Protocol
from agentsense.sense.score_keys import (
    GOAL_ANSWERS,
    GOAL_KEYS,
    GOAL_SCORES,
    HEADLINE_FIRST,
    JUDGE_REPEAT,
    JUDGES,
    MCQ_ACCURACY,
    MCQ_ANSWERS,
    PROTOCOL,
    SCORE_KEYS,
    answer_kind,
)
from agentsense.sense.scorers.answer_reading import robust_yes

ANSWER_COLUMNS = ["log", "id", "epoch", "template_id", "character", "goal_index", "category"]
ANSWER_COLUMNS += ["kind", "asker", "model", "item", "answer", "reading", "unreadable"]
EXPLICIT_FIELDS = ("target", "about", "owner")


@dataclass
class SampleContext:
    """One scored sample of one log, with what is needed to expand it into rows."""

    log: str
    id: str
    epoch: int
    scene: Scenario
    values: dict[str, Any]
    metadata: dict[str, Any]
    character_models: dict[str, str]
    character_roles: dict[str, str | None]

    @property
    def key(self) -> dict[str, Any]:
        return {"log": self.log, "id": self.id, "epoch": self.epoch}


def sample_context(
    log: str,
    sample: EvalSample,
    run: Mapping[str, Any],
    scored: tuple[dict[str, Any], dict[str, Any]],
) -> SampleContext | None:
    """The sample with its merged scoring `scored`; None without the scenario record."""
    if not (sample.metadata or {}).get("scenario"):
        return None
    scene = scenario_of(sample.metadata)
    roles: dict[str, str | None] = sample.metadata.get("model_roles") or {}
    models = {
        name: run["roles"].get(role, run["model"]) if role else run["model"]
        for name, role in ((n, roles.get(n)) for n in scene.names)
    }
    roles_of = {name: roles.get(name) for name in scene.names}
    return SampleContext(log, str(sample.id), sample.epoch, scene, *scored, models, roles_of)


# --- the scene, its goals, MCQs and answers ------------------------------------------------------


def judge_labels(judges: Mapping[str, str]) -> dict[str, str]:
    """judge_i -> a column label naming the judge model (numbered if a model sits twice)."""
    seen: Counter[str] = Counter()
    labels: dict[str, str] = {}
    for key, name in judges.items():
        seen[name] += 1
        labels[key] = f"judge: {name}" + (f" ({seen[name]})" if seen[name] > 1 else "")
    return labels


def scene_row(context: SampleContext, rounds: Any) -> dict[str, Any]:
    scene, values = context.scene, context.values
    row: dict[str, Any] = {
        **context.key,
        # The file this sample was read from (merging renames `log` to the run's newest log).
        "source_log": context.log,
        "template_id": str(scene.template_idx),
        "scenario_type": scene.scenario_type,
        "n_characters": len(scene.characters),
        "rounds": rounds,
    }
    row.update({name: as_float(values[name]) for name in SCORE_KEYS if name in values})
    for key, label in judge_labels(context.metadata.get(JUDGES) or {}).items():
        row[label] = as_float(values.get(key))
    protocol = Protocol.model_validate({"mode": context.metadata.get(PROTOCOL) or "official"})
    judges = list(context.metadata.get(JUDGES) or {})
    scored = {name: row[name] for name in SCORE_KEYS if name in row}
    row.update(scene_baselines(scene, judges, protocol, scored))
    return row


def goal_rows(context: SampleContext) -> list[dict[str, Any]]:
    """One row per goal, with the per-goal scores the scorer logged (`goal_scores`)."""
    logged = {
        (row["character"], row["goal"]): row for row in context.metadata.get(GOAL_SCORES) or []
    }
    rows = []
    for character in context.scene.characters:
        for index, goal in enumerate(character.goals):
            scores = logged.get((character.name, index + 1))  # goals are logged from 1
            if scores is None:
                continue
            rows.append(
                {
                    **context.key,
                    "character": character.name,
                    "goal_index": index,
                    "goal": goal.goal,
                    "category": goal.category,
                    "role": context.character_roles.get(character.name),
                    "player": context.character_models[character.name],
                    **{name: as_float(scores[name]) for name in GOAL_KEYS},
                }
            )
    return rows


def _mentions(text: str, name: str) -> int | None:
    match = re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text)
    return match.start() if match else None


def mcq_target(scene: Scenario, asker: str, mcq: MCQ) -> str | None:
    """The character whose secret `mcq` (asked to `asker`) is about, or None if unknown."""
    others = [name for name in scene.names if name != asker]
    extra = mcq.model_extra or {}
    for field in EXPLICIT_FIELDS:
        if extra.get(field) in others:
            return str(extra[field])
    if len(others) == 1:
        return others[0]
    named = [
        (position, name)
        for name in others
        if (position := _mentions(mcq.question, name)) is not None
    ]
    return min(named)[1] if named else None


def mcq_rows(context: SampleContext) -> list[dict[str, Any]]:
    """One row per MCQ answer the scorer logged (`mcq_answers`, MCQs numbered from 1)."""
    rows = []
    for answer in context.metadata.get(MCQ_ANSWERS) or []:
        asker, index = str(answer["character"]), int(answer["mcq"]) - 1
        items = context.scene.character(asker).info_reason_questions
        target = mcq_target(context.scene, asker, items[index])
        rows.append(
            {
                **context.key,
                "asker": asker,
                "item": index,
                "asker_model": context.character_models[asker],
                "asker_role": context.character_roles.get(asker),
                "target": target,
                "target_model": context.character_models.get(target) if target else None,
                "target_role": context.character_roles.get(target) if target else None,
                "correct": float(bool(answer["right"])),
            }
        )
    return rows


def answer_rows(context: SampleContext) -> list[dict[str, Any]]:
    """One row per goal answer the scorer logged (`goal_answers`, goals and questions numbered
    from 1, as `scorers.goal.score_goals` logs them)."""
    scene, rows = context.scene, []
    for record in context.metadata.get(GOAL_ANSWERS) or []:
        character = scene.character(str(record["character"]))
        index = int(record["goal"]) - 1
        kind, asker = answer_kind(str(record["asker"]), character.name)
        reading = record["reading"]
        rows.append(
            {
                **context.key,
                "template_id": str(scene.template_idx),
                "character": character.name,
                "goal_index": index,
                "category": character.goals[index].category,
                "kind": kind,
                "asker": asker,
                "model": record["model"],
                "item": int(record["item"]) - 1,
                "answer": str(record["answer"]),
                "reading": float(reading) if reading is not None else math.nan,
                "unreadable": robust_yes(str(record["answer"])) is None,
            }
        )
    return rows


# --- every scoring's values (judge repeats: the variance components) -----------------------------

VALUE_METRICS = (*HEADLINE_FIRST, MCQ_ACCURACY)
VALUE_COLUMNS = ["log", "id", "epoch", "template", "scoring", JUDGE_REPEAT, "panel", "metric"]
VALUE_COLUMNS += ["value"]


def value_rows(log: str, sample: EvalSample) -> list[dict[str, Any]]:
    """One row per scoring and headline metric of a scored sample (each scoring, not only the
    merged one: `-S repeat=K` re-judgings are the variance components' judge repeats)."""
    if sample.error or not sample.scores:
        return []
    rows = []
    for name, score in sample.scores.items():
        if not isinstance(score.value, dict):
            continue
        metadata = score.metadata or {}
        for metric in VALUE_METRICS:
            value = score.value.get(metric)
            if isinstance(value, (int, float)) and not math.isnan(value):
                rows.append(
                    {
                        "log": log,
                        "id": str(sample.id),
                        "epoch": int(sample.epoch),
                        "template": str((sample.metadata or {}).get("template_id")),
                        "scoring": name,
                        JUDGE_REPEAT: int(metadata.get(JUDGE_REPEAT) or 0),
                        "panel": panel(metadata),
                        "metric": metric,
                        "value": float(value),
                    }
                )
    return rows


# --- model calls (tokens and cost) ---------------------------------------------------------------

PLAYER_ROLES = (CHARACTER_ROLE, SENDER_ROLE, RECEIVER_ROLE)  # roles that play characters
SIMULATION, SCORING = "simulation", "scoring"
EVALUATED = "evaluated model"  # calls with no role
RESCORED = " (re-scoring)"  # a part's calls made by `inspect score` after the eval
CALL_COLUMNS = ["log", "id", "epoch", "phase", "scoring", "rescored", "part", "role", "model"]
TOKEN_COLUMNS = ["input_tokens", "output_tokens", "total_tokens"]
CALL_COLUMNS += ["calls", *TOKEN_COLUMNS, "cost"]


def part_of(phase: str, role: str | None) -> str:
    """The part of the bill a call belongs to (`character turns`, `interviews`, `judges`, or
    its role and phase for other tasks' roles: GCA's environment and critics, the builder)."""
    if role == JUDGE_ROLE:
        return "judges"
    if role in PLAYER_ROLES:
        part = "character turns" if phase == SIMULATION else "interviews"
        return part if role == CHARACTER_ROLE else f"{part} ({role})"
    return f"{role or EVALUATED} ({phase})"


def _scorer_span(event: ModelEvent, spans: dict[str, SpanBeginEvent]) -> str | None:
    """The id of the scorer span a call was made in, if any."""
    span_id = event.span_id
    while span_id is not None and span_id in spans:
        span = spans[span_id]
        if span.type == "scorer":
            return span.id
        span_id = span.parent_id
    return None


def _rescored(span: SpanBeginEvent, sample: EvalSample) -> bool:
    """Whether a scorer ran after the sample had finished (`inspect score` re-scoring it)."""
    if not sample.completed_at:
        return False
    return span.timestamp > datetime.fromisoformat(str(sample.completed_at))


def reported_tokens(usage: ModelUsage | None) -> dict[str, float]:
    """A reply's token counts and cost, NaN where the server reported none: no `usage` at all,
    or a total of 0 (some OpenAI-compatible servers send zeros; a reply always costs tokens),
    with it every other count that is 0 too."""
    if usage is None:
        return dict.fromkeys([*TOKEN_COLUMNS, "cost"], math.nan)
    counts = {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
    }
    unreported = usage.total_tokens == 0
    out = {k: math.nan if unreported and v == 0 else float(v) for k, v in counts.items()}
    out["cost"] = math.nan if usage.total_cost is None else usage.total_cost
    return out


def call_rows(log: str, sample: EvalSample) -> list[dict[str, Any]]:
    """One row per model call of one sample, read from its events: so a re-judge appended by
    `inspect score` counts too (Inspect's `EvalLog.stats` covers the eval only). Cache reads
    cost no tokens and are left out, as Inspect does."""
    spans = {e.id: e for e in sample.events if isinstance(e, SpanBeginEvent)}
    scorer_spans = [e.id for e in spans.values() if e.type == "scorer"]
    later = {span for span in scorer_spans if _rescored(spans[span], sample)}
    # Scorer spans run in the order the scores were added (the eval's, then each re-score).
    scoring_of = dict(zip(scorer_spans, list(sample.scores or {}), strict=False))
    rows = []
    for event in sample.events:
        if not isinstance(event, ModelEvent) or event.cache == "read":
            continue
        usage = event.output.usage if event.output is not None else None
        replied = event.error is None and event.output is not None and event.output.choices
        if usage is None and not replied:
            continue  # neither a reply nor a bill: no call to count
        tokens = reported_tokens(usage)
        span = _scorer_span(event, spans)
        phase = SIMULATION if span is None else SCORING
        name = scoring_of.get(span, "") if span is not None else ""
        score = (sample.scores or {}).get(name)
        repeat = (score.metadata or {}).get(JUDGE_REPEAT) if score is not None else None
        rows.append(
            {
                "log": log,
                "id": str(sample.id),
                "epoch": int(sample.epoch),
                "phase": phase,
                "scoring": f"{name} (repeat {repeat})" if repeat else name,
                "rescored": span in later,
                "part": part_of(phase, event.role) + (RESCORED if span in later else ""),
                "role": event.role or "",
                "model": event.model,
                "calls": 1,
                **tokens,
            }
        )
    return rows
