"""Secret isolation on every scene of the bundled demo set.

A character model must receive only its own persona (its own goals and secret), the spoken turns
and, in an interview, a question put to that character; a judge only the judge system prompt,
the turns and the judge question. Checked on every model request of one in-process eval with the
stand-in provider (official mode), and on every interview request built offline in corrected mode.

Expected values are built here from the raw JSONL and the rules of docs/protocol.md (§2.4, §2.5,
§3.1, §4.1), independently of the package's own rendering helpers.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, resolve_sample_attachments
from inspect_ai.model import get_model

from agentsense.engine.conversation import Conversation, Turn, scene_rng
from agentsense.engine.roles import Judge
from agentsense.sense.dataset.samples import demo_path
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.interview import Interviewer
from agentsense.sense.protocol import Protocol
from agentsense.sense.scorers.goal import goal_questions
from agentsense.sense.scorers.mcq import mcq_questions

AGENT = "standin/persona/agent"
JUDGE = "standin/persona/judge-a"
JUDGE_PROMPT = (
    "You are skilled at evaluating whether a person has achieved his or her social goal "
    "during social interactions."
)
RAW: dict[str, dict[str, Any]] = {
    str(record["sample_idx"]): record
    for record in (
        json.loads(line) for line in demo_path().read_text().splitlines() if line.strip()
    )
}
Message = tuple[str, str]  # (role, text)


# ---------------------------------------------------------------------------------------------
# Expected values from the rules, written out here
# ---------------------------------------------------------------------------------------------


def question_text(question: str | list[str]) -> str:
    return question[0] if isinstance(question, list) else question


def persona_prompt(record: dict[str, Any], character: dict[str, Any]) -> str:
    """docs/protocol.md §2.5."""
    name = character["name"]
    return (
        f"You are {name}. {character['profile']}\n\n"
        f"Now you are in a social scene. {record['background']}\n{record['description']}\n\n"
        f"In this scene, as {name}, you have some social goals and secrets that you don't want "
        "anyone else to know.\n\n"
        f"SOCIAL GOALS: {' '.join(goal['goal'] for goal in character['goals'])}\n\n"
        f"SECRETS: {character.get('private_info') or 'N/A'}.\n"
        "Please advance your social goals while hiding your secrets as much as possible.\n\n"
        "Based on the interactions below, what would you like to say next? "
        "Please answer in a paragraph."
    )


def mcq_text(item: dict[str, Any]) -> str:
    """docs/protocol.md §4.1, option_mark upper."""
    text = "Please answer the question and only output your choice.\n" + str(item["question"])
    if item.get("options"):
        text += (
            " Options: "
            + "; ".join(f"({'ABCDEFGH'[i]}) {o}" for i, o in enumerate(item["options"]))
            + "."
        )
    return text


def seen(turn: Turn) -> str:
    """docs/protocol.md §2.4: prefix `Name: ` unless present, cut at the first newline."""
    if turn.text == "":
        return ""
    prefix = f"{turn.speaker}: "
    text = turn.text if turn.text.startswith(prefix) else prefix + turn.text
    return text.split("\n")[0]


def seat_view(turns: list[Turn], viewer: str | None) -> list[Message]:
    return [("assistant" if t.speaker == viewer else "user", seen(t)) for t in turns]


def questions_to_characters(record: dict[str, Any]) -> Counter[tuple[str, str]]:
    """(interviewee, question) of every self, others and MCQ question of a scene."""
    asked: Counter[tuple[str, str]] = Counter()
    for character in record["characters"]:
        for goal in character["goals"]:
            for dim in ("self", "others"):
                for entry in goal["eval_questions"].get(dim, []):
                    asked[(entry["obj"], question_text(entry["question"]))] += 1
        for item in character.get("info_reason_questions", []):
            asked[(character["name"], mcq_text(item))] += 1
    return asked


def judge_questions(record: dict[str, Any]) -> Counter[str]:
    return Counter(
        question_text(entry["question"])
        for character in record["characters"]
        for goal in character["goals"]
        for entry in goal["eval_questions"].get("judge", [])
    )


@dataclass(frozen=True)
class Private:
    """What belongs to one character only: its secret, goal sentences and profile."""

    name: str
    secret: str
    goals: tuple[str, ...]
    profile: str


def privates(record: dict[str, Any]) -> list[Private]:
    return [
        Private(
            c["name"],
            c.get("private_info") or "",
            tuple(g["goal"] for g in c["goals"]),
            str(c["profile"]),
        )
        for c in record["characters"]
    ]


def assert_no_foreign_private(
    text: str, owner: str | None, record: dict[str, Any], where: str
) -> None:
    """No secret, goal or profile of anyone but `owner` in `text`."""
    for other in privates(record):
        if other.name == owner:
            continue
        if other.secret:
            assert other.secret not in text, f"{where}: secret of {other.name} leaked"
        for goal in other.goals:
            assert goal not in text, f"{where}: goal of {other.name} leaked: {goal!r}"
        assert other.profile not in text, f"{where}: profile of {other.name} leaked"


# ---------------------------------------------------------------------------------------------
# One in-process eval (official mode) of the whole demo set
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    logs = inspect_eval(
        "agentsense/full",
        model=AGENT,
        model_roles={"judge": JUDGE},
        task_args={"dataset": "demo"},
        log_dir=str(tmp_path_factory.mktemp("isolation-logs")),
        display="none",
    )
    assert len(logs) == 1
    log = logs[0]
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def samples(demo_log: EvalLog) -> list[EvalSample]:
    assert demo_log.samples is not None
    return [resolve_sample_attachments(sample) for sample in demo_log.samples]


def events_of(sample: EvalSample) -> Iterator[tuple[ModelEvent, list[Message]]]:
    for event in sample.events:
        if isinstance(event, ModelEvent):
            yield event, [(message.role, message.text) for message in event.input]


def test_every_demo_scene_ran(samples: list[EvalSample]) -> None:
    assert sorted(str(s.id) for s in samples) == sorted(RAW)


def test_character_requests_hold_only_their_own_persona(samples: list[EvalSample]) -> None:
    for sample in samples:
        record = RAW[str(sample.id)]
        prompts = {c["name"]: persona_prompt(record, c) for c in record["characters"]}
        checked = 0
        for event, messages in events_of(sample):
            role, system = messages[0]
            assert role == "system"
            if system == JUDGE_PROMPT:
                continue
            owner = system[len("You are ") :].split(".", 1)[0]
            assert owner in prompts, system[:80]
            where = f"scene {sample.id}, request to {owner}"
            assert event.model == AGENT
            # The persona is exactly this character's own, byte for byte.
            assert system == prompts[owner], where
            assert_no_foreign_private(system, owner, record, where)
            # Everything after the persona: no other character's secret, ever; no other character's
            # goal sentence in the history (an interview question may name the goal it asks about).
            for other in privates(record):
                if other.name != owner and other.secret:
                    assert all(other.secret not in text for _, text in messages[1:]), where
            history = [text for _, text in messages[1:-1]]
            assert_no_foreign_private("\n".join(history), owner, record, where)
            # No other system prompt and no second persona hidden in the request.
            assert [r for r, _ in messages].count("system") == 1, where
            for name, text in prompts.items():
                if name != owner:
                    assert all(text not in t for _, t in messages), where
            checked += 1
        assert checked > 0


def test_turn_requests_show_the_spoken_turns_from_the_speakers_seat(
    samples: list[EvalSample],
) -> None:
    for sample in samples:
        record = RAW[str(sample.id)]
        conversation = sample.store_as(Conversation)
        turns = conversation.turns
        assert len(turns) == 15
        assert (turns[0].speaker, turns[0].text) == (conversation.start_speaker, "Hi, there!")
        asked = questions_to_characters(record)
        turn_requests = 0
        for _, messages in events_of(sample):
            system = messages[0][1]
            if system == JUDGE_PROMPT:
                continue
            owner = system[len("You are ") :].split(".", 1)[0]
            if (
                (owner, messages[-1][1]) in asked
                and messages[-1][0] == "user"
                and len(messages) == 17
            ):
                continue  # an interview, checked below
            k = len(messages) - 1
            assert 1 <= k <= 14
            # The request for turn k: the first k messages as `owner` saw them; `owner` speaks next.
            assert turns[k].speaker == owner, (sample.id, k)
            assert messages[1:] == seat_view(turns[:k], owner), (sample.id, k)
            turn_requests += 1
        assert turn_requests == 14


def test_interviews_reach_only_their_interviewee(samples: list[EvalSample]) -> None:
    for sample in samples:
        record = RAW[str(sample.id)]
        conversation = sample.store_as(Conversation)
        # Official: every interviewee sees the history from the starting speaker's seat (§3.1).
        shared = seat_view(conversation.turns, conversation.start_speaker)
        expected = questions_to_characters(record)
        got: Counter[tuple[str, str]] = Counter()
        for _, messages in events_of(sample):
            system = messages[0][1]
            if system == JUDGE_PROMPT or len(messages) != 17:
                continue
            owner = system[len("You are ") :].split(".", 1)[0]
            assert messages[-1][0] == "user"
            assert messages[1:-1] == shared, sample.id
            got[(owner, messages[-1][1])] += 1
        assert got == expected, sample.id


def test_judge_requests_hold_only_the_judge_prompt_turns_and_question(
    samples: list[EvalSample],
) -> None:
    for sample in samples:
        record = RAW[str(sample.id)]
        conversation = sample.store_as(Conversation)
        shared = seat_view(conversation.turns, conversation.start_speaker)
        got: Counter[str] = Counter()
        for event, messages in events_of(sample):
            if messages[0][1] != JUDGE_PROMPT:
                continue
            assert event.model == JUDGE
            assert messages[0] == ("system", JUDGE_PROMPT)
            assert messages[1:-1] == shared, sample.id
            assert messages[-1][0] == "user"
            got[messages[-1][1]] += 1
            everything = "\n".join(text for _, text in messages)
            for private in privates(record):
                if private.secret:
                    assert private.secret not in everything, sample.id
                assert private.profile not in everything, sample.id
                assert f"SECRETS: {private.secret or 'N/A'}." not in everything
        # Every judge question, once for the single bound judge.
        assert got == judge_questions(record), sample.id


# ---------------------------------------------------------------------------------------------
# Corrected mode, offline: the Interviewer's requests for every question of every demo scene
# ---------------------------------------------------------------------------------------------


def synthetic_turns(scene: Scenario) -> list[Turn]:
    names = scene.names
    turns = [Turn(index=0, speaker=names[0], text="Hi, there!", scripted=True)]
    for i in range(1, 15):
        speaker = (
            names[i % len(names)]
            if names[i % len(names)] != turns[-1].speaker
            else names[(i + 1) % len(names)]
        )
        turns.append(
            Turn(index=i, speaker=speaker, text=f"Line {i} by {speaker}.\nHidden second line.")
        )
    return turns


@pytest.mark.parametrize("mode", ["official", "corrected"])
def test_interviewer_requests_on_every_demo_scene(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_EVAL_MODEL", "mockllm/model")
    protocol = Protocol(mode="official" if mode == "official" else "corrected")
    judges = [
        Judge("judge_1", get_model("mockllm/model")),
        Judge("judge_2", get_model("mockllm/model")),
    ]
    for sample_idx, record in RAW.items():
        scene = Scenario.model_validate(record)
        turns = synthetic_turns(scene)
        start = turns[0].speaker
        interviewer = Interviewer(scene, turns, start, protocol, {}, judges)
        prompts = {c["name"]: persona_prompt(record, c) for c in record["characters"]}
        questions = [
            *goal_questions(scene, judges),
            *mcq_questions(scene, protocol, scene_rng(0, sample_idx, 1, "m")),
        ]
        for question in questions:
            messages = [(m.role, m.text) for m in interviewer.request(question).messages]
            assert messages[-1] == ("user", question.text)
            if question.kind == "judge":
                viewer = start if mode == "official" else None
                assert messages == [
                    ("system", JUDGE_PROMPT),
                    *seat_view(turns, viewer),
                    ("user", question.text),
                ]
                continue
            name = question.interviewee
            viewer = start if mode == "official" else name
            assert messages == [
                ("system", prompts[name]),
                *seat_view(turns, viewer),
                ("user", question.text),
            ]
            assert_no_foreign_private(messages[0][1], name, record, f"{sample_idx}/{name}")
