"""SOTOPIA-EVAL as a scorer on the role `judge` (a panel allowed).

Each judge is sent Sotopia's evaluator prompt (`prompts.evaluator_prompt`) on the episode's
history and answers, per agent, a `[reasoning, score]` pair for each of the seven dimensions.
A dimension that is missing, not an integer, or out of its range is NaN for that judge and
agent, and listed in `unreadable`; it is never zero and never dropped: the episode's value of the
dimension (the mean over agents and judges) and of `overall` is then NaN, which Inspect counts as
unscored. sotopia 0.1.5 drops the whole evaluation instead (docs/deviations.md §5).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from inspect_ai.model import ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import TaskState

from agentsense.engine.conversation import stored
from agentsense.engine.roles import judge_panel
from agentsense.sotopia import KEYS
from agentsense.sotopia.episode import SotopiaEpisode, SotopiaSettings
from agentsense.sotopia.prompts import DIMENSIONS, RANGES, evaluator_prompt

NAN = float("nan")
Reading = dict[str, tuple[float, str]]  # dimension -> (score or NaN, reasoning)


def _document(text: str) -> Any:
    """The reply's JSON object (0.1.5: a leading ```json fence dropped, `properties` unwrapped)."""
    body = re.sub(r"^```(json)?\s*", "", text.strip()).removesuffix("```").strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        start, end = body.find("{"), body.rfind("}")
        try:
            data = json.loads(body[start : end + 1]) if 0 <= start < end else None
        except json.JSONDecodeError:
            return None
    if isinstance(data, dict) and isinstance(data.get("properties"), dict):
        return data["properties"]
    return data


def _integer(value: Any) -> int | None:
    """An integer as pydantic's lax mode reads one: 7, 7.0 or "7" (never a bool)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return None


def read_dimension(name: str, item: Any) -> tuple[float, str, str]:
    """(score or NaN, reasoning, problem or '') of one `[reasoning, score]` pair."""
    if not isinstance(item, list | tuple) or len(item) != 2:
        return NAN, "", "missing" if item is None else f"not a [reasoning, score] pair: {item!r}"
    reasoning, score = str(item[0]), _integer(item[1])
    low, high = RANGES[name]
    if score is None:
        return NAN, reasoning, f"not an integer: {item[1]!r}"
    if not low <= score <= high:
        return NAN, reasoning, f"{score} is out of {low}..{high}"
    return float(score), reasoning, ""


def read_evaluation(text: str, agents: int) -> tuple[list[Reading], list[str]]:
    """Per agent (by position, as 0.1.5 takes them) each dimension's reading; and the problems,
    `agent_2 goal: 11 is out of 0..10`, one per unreadable value."""
    data = _document(text)
    evaluations = data.get("evaluations") if isinstance(data, dict) else None
    found = list(evaluations.values())[:agents] if isinstance(evaluations, dict) else []
    readings: list[Reading] = []
    problems: list[str] = []
    for i in range(agents):
        block = found[i] if i < len(found) and isinstance(found[i], dict) else {}
        reading: Reading = {}
        for name in DIMENSIONS:
            score, reasoning, problem = read_dimension(name, block.get(name))
            reading[name] = (score, reasoning)
            if problem:
                problems.append(f"agent_{i + 1} {name}: {problem}")
        readings.append(reading)
    if not isinstance(evaluations, dict):
        problems = [f"no `evaluations` object in the reply ({len(problems)} values unreadable)"]
    return readings, problems


def mean_or_nan(values: list[float]) -> float:
    """The mean, NaN if any value is NaN (an unreadable value is never left out)."""
    return NAN if not values or any(math.isnan(v) for v in values) else sum(values) / len(values)


def episode_value(readings: list[list[Reading]]) -> dict[str, float]:
    """Score key -> the mean over judges and agents; `overall` is the mean of each agent's
    seven (0.1.5's `overall_score`), averaged the same way."""
    flat = [reading for judge in readings for reading in judge]
    value = {KEYS[d]: mean_or_nan([r[d][0] for r in flat]) for d in DIMENSIONS}
    overall = [mean_or_nan([r[d][0] for d in DIMENSIONS]) for r in flat]
    value["overall"] = mean_or_nan(overall)
    return value


def evaluation_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        hint = "score logs of agentsense/sotopia (its solver writes the episode)."
        episode = stored(state, SotopiaEpisode, "agents", "Sotopia episode", hint)
        settings = SotopiaSettings.model_validate(episode.settings)
        config = GenerateConfig(
            temperature=settings.judge_temperature, max_tokens=settings.judge_max_tokens
        )
        prompt = evaluator_prompt(episode.judge_history, len(episode.agents))
        judges, _ = judge_panel(lambda n: f"judge_{n}")
        readings: list[list[Reading]] = []
        records: list[dict[str, Any]] = []
        unreadable: list[str] = []
        for judge in judges:
            output = await judge.model.generate([ChatMessageUser(content=prompt)], config=config)
            reading, problems = read_evaluation(output.completion, len(episode.agents))
            readings.append(reading)
            unreadable += [f"{judge.key} {problem}" for problem in problems]
            records.append(judge_record(judge.key, judge.name, episode.agents, reading, problems))
        value = episode_value(readings)
        return Score(
            value=value,  # type: ignore[arg-type]
            answer=episode.judge_history,
            explanation=explanation(value, unreadable),
            metadata={
                "judges": records,
                "unreadable": unreadable,
                "terminated_because": episode.terminated_because,
                "turns": max((a.turn for a in episode.actions), default=0),
                "unparsed_actions": sum(a.unparsed for a in episode.actions),
            },
        )

    return score


def judge_record(
    key: str, model: str, agents: list[str], reading: list[Reading], problems: list[str]
) -> dict[str, Any]:
    """One judge's evaluation as the log keeps it: per agent and dimension, score and reasoning."""
    return {
        "judge": key,
        "model": model,
        "agents": {
            name: {
                KEYS[d]: {"score": None if math.isnan(s) else s, "reasoning": r}
                for d, (s, r) in per_agent.items()
            }
            for name, per_agent in zip(agents, reading, strict=True)
        },
        "unreadable": problems,
    }


def explanation(value: dict[str, float], unreadable: list[str]) -> str:
    shown = ", ".join(f"{k} {'NaN' if math.isnan(v) else f'{v:g}'}" for k, v in value.items())
    return shown + (f"; unreadable: {'; '.join(unreadable)}" if unreadable else "")
