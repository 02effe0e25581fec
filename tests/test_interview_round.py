"""One interview round (`Interviewer.ask`): answers in plan order, each seen once by the hook
right after its call, and a failed call raised as itself (not as an exception group)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from inspect_ai.model import Model, ModelOutput

from agentsense.engine.conversation import Turn
from agentsense.engine.roles import Judge
from agentsense.sense.dataset.samples import demo_path
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.interview import Interviewer, Question
from agentsense.sense.protocol import Protocol
from agentsense.sense.scorers.goal import goal_questions


class Answering:
    """A judge that answers every question with its text reversed (delays out of plan order)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return self.name

    async def generate(self, messages: list[Any], config: Any) -> ModelOutput:
        text = messages[-1].text
        await asyncio.sleep(0.001 * (len(text) % 7))
        return ModelOutput.from_content(model=self.name, content=text[::-1])


class Failing(Answering):
    async def generate(self, messages: list[Any], config: Any) -> ModelOutput:
        raise RuntimeError(f"{self.name} is down")


def judge_round(judges: list[Judge]) -> tuple[Interviewer, list[Question]]:
    record = demo_path().read_text().splitlines()[0]
    scene = Scenario.model_validate_json(record)
    turns = [Turn(index=0, speaker=scene.names[0], text="Hi, there!", scripted=True)]
    interviewer = Interviewer(scene, turns, scene.names[0], Protocol(), {}, judges)
    questions = [q for q in goal_questions(scene, judges) if q.kind == "judge"]
    assert len(questions) >= 4
    return interviewer, questions


def test_answers_come_in_plan_order_and_each_is_seen_once() -> None:
    judges = [Judge(f"judge_{i}", cast(Model, Answering(f"j{i}"))) for i in (1, 2)]
    interviewer, questions = judge_round(judges)
    seen: list[tuple[Question, str]] = []
    answers = asyncio.run(interviewer.ask(questions, on_answer=lambda q, a: seen.append((q, a))))
    assert list(answers) == questions
    assert all(answers[q] == q.text[::-1] for q in questions)
    assert sorted(seen, key=lambda pair: questions.index(pair[0])) == list(answers.items())


def test_a_failed_call_is_raised_as_itself() -> None:
    judges = [
        Judge("judge_1", cast(Model, Answering("ok"))),
        Judge("judge_2", cast(Model, Failing("down"))),
    ]
    interviewer, questions = judge_round(judges)
    seen: list[Question] = []
    with pytest.raises(RuntimeError, match="down is down"):
        asyncio.run(interviewer.ask(questions, on_answer=lambda q, a: seen.append(q)))
    assert all(q.interviewee == "judge_1" for q in seen)  # no record of a failed call
