"""What a model is shown of the conversation (docs/protocol.md §2.4 and §3.1).

Every past utterance is prefixed `Name: ` (unless it already starts so), then cut at its first
`\\n`; empty utterances stay empty and unprefixed. The viewer's own turns are `assistant`, every
other turn `user`; the system prompt comes first and an interview question last.
"""

from __future__ import annotations

import pytest
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from agentsense.engine.conversation import Turn, history, prompt, visible_text


def turn(speaker: str, text: str, index: int = 1) -> Turn:
    return Turn(index=index, speaker=speaker, text=text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hi, there!", "BobSmith: Hi, there!"),
        # dedupe: already prefixed, not prefixed twice
        ("BobSmith: hello", "BobSmith: hello"),
        # only the exact "Name: " counts as a prefix
        ("BobSmith:hello", "BobSmith: BobSmith:hello"),
        ("bobsmith: hello", "BobSmith: bobsmith: hello"),
        ("BobSmith hello", "BobSmith: BobSmith hello"),
        ("AliceGreene: hello", "BobSmith: AliceGreene: hello"),
        (" BobSmith: hello", "BobSmith:  BobSmith: hello"),
        # cut at the first newline, after prefixing
        ("line one\nline two\nline three", "BobSmith: line one"),
        ("BobSmith: line one\nline two", "BobSmith: line one"),
        ("\nstarts with a blank line.", "BobSmith: "),
        ("\n", "BobSmith: "),
        ("BobSmith: \nrest", "BobSmith: "),
        ("*smiles*\nHello there.", "BobSmith: *smiles*"),
        # only "\n" separates: "\r" survives
        ("a\rb", "BobSmith: a\rb"),
        ("first\r\nsecond", "BobSmith: first\r"),
        # no stripping
        ("   ", "BobSmith:    "),
        ("  hi  ", "BobSmith:   hi  "),
        # empty stays empty, unprefixed
        ("", ""),
    ],
)
def test_visible_text(text: str, expected: str) -> None:
    assert visible_text(turn("BobSmith", text)) == expected


def test_visible_text_leaves_the_stored_turn_untouched() -> None:
    stored = turn("BobSmith", "one\ntwo")
    assert visible_text(stored) == "BobSmith: one"
    assert stored.text == "one\ntwo"


TURNS = [
    Turn(index=0, speaker="BobSmith", text="Hi, there!", scripted=True),
    turn("CarolJones", "Hello Bob.\nSecond line nobody sees.", 1),
    turn("AliceGreene", "", 2),
    turn("BobSmith", "BobSmith: I already carry my name.", 3),
    turn("AliceGreene", "\nblank first line", 4),
]


def test_history_from_a_participants_seat() -> None:
    messages = history(TURNS, "BobSmith")
    assert [type(m) for m in messages] == [
        ChatMessageAssistant,
        ChatMessageUser,
        ChatMessageUser,
        ChatMessageAssistant,
        ChatMessageUser,
    ]
    assert [m.text for m in messages] == [
        "BobSmith: Hi, there!",
        "CarolJones: Hello Bob.",
        "",
        "BobSmith: I already carry my name.",
        "AliceGreene: ",
    ]


def test_history_from_another_seat() -> None:
    messages = history(TURNS, "AliceGreene")
    assert [m.role for m in messages] == ["user", "user", "assistant", "user", "assistant"]


def test_history_of_a_bystander_is_all_user() -> None:
    messages = history(TURNS, None)
    assert [m.role for m in messages] == ["user"] * 5
    assert [m.text for m in messages] == [
        "BobSmith: Hi, there!",
        "CarolJones: Hello Bob.",
        "",
        "BobSmith: I already carry my name.",
        "AliceGreene: ",
    ]


def test_history_of_a_non_participant_name_is_all_user() -> None:
    assert [m.role for m in history(TURNS, "judge_1")] == ["user"] * 5


def test_prompt_system_first_question_last() -> None:
    question = "Please answer the question and only output your choice.\nQ? Options: (A) x; (B) y."
    messages = prompt("SYSTEM TEXT", TURNS, "CarolJones", question)
    assert isinstance(messages[0], ChatMessageSystem)
    assert messages[0].text == "SYSTEM TEXT"
    assert [m.role for m in messages[1:-1]] == ["user", "assistant", "user", "user", "user"]
    assert isinstance(messages[-1], ChatMessageUser)
    # The question has no speaker: neither prefixed nor cut at its newline.
    assert messages[-1].text == question
    assert len(messages) == 1 + len(TURNS) + 1


def test_prompt_without_question_ends_with_the_last_turn() -> None:
    messages = prompt("SYSTEM TEXT", TURNS[:2], "BobSmith")
    assert [(m.role, m.text) for m in messages] == [
        ("system", "SYSTEM TEXT"),
        ("assistant", "BobSmith: Hi, there!"),
        ("user", "CarolJones: Hello Bob."),
    ]


def test_first_turn_request_of_the_second_speaker() -> None:
    # docs/protocol.md §2.4: CarolJones, first turn, start agent BobSmith.
    messages = prompt("You are CarolJones. ...", TURNS[:1], "CarolJones")
    assert [(m.role, m.text) for m in messages] == [
        ("system", "You are CarolJones. ..."),
        ("user", "BobSmith: Hi, there!"),
    ]
