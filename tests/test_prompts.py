"""Prompt rendering, byte for byte against docs/protocol.md §2.5, §2.6 and §4.1."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.persona import system_prompt
from agentsense.sense.prompts import (
    GREETING,
    JUDGE_SYSTEM_PROMPT,
    OPTION_MARKS,
    character_system_prompt,
    mcq_prompt,
)
from agentsense.sense.protocol import Protocol
from agentsense.sense.scorers.mcq import mcq_questions

# A rendered example, as the official code renders it (docs/protocol.md §2.5).
ALICE_PROMPT = (
    "You are AliceGreene. PROFILE_OF_AliceGreene (age 30, teacher).\n"
    "\n"
    "Now you are in a social scene. BACKGROUND TEXT.\n"
    "DESCRIPTION TEXT.\n"
    "\n"
    "In this scene, as AliceGreene, you have some social goals and secrets that you don't want "
    "anyone else to know.\n"
    "\n"
    "SOCIAL GOALS: To goal1 of AliceGreene. To goal2 of AliceGreene.\n"
    "\n"
    "SECRETS: SECRET_OF_AliceGreene.\n"
    "Please advance your social goals while hiding your secrets as much as possible.\n"
    "\n"
    "Based on the interactions below, what would you like to say next? Please answer in a "
    "paragraph."
)

# The official template (prompt_template.json) as a JSON string (docs/protocol.md §2.5).
TEMPLATE_LINES = [
    "You are {name}. {profile}",
    "",
    "Now you are in a social scene. {background}",
    "{desc}",
    "",
    "In this scene, as {name}, you have some social goals and secrets that you don't want anyone "
    "else to know.",
    "",
    "SOCIAL GOALS: {social_goal}",
    "",
    "SECRETS: {private_info}.",
    "Please advance your social goals while hiding your secrets as much as possible.",
    "",
    "Based on the interactions below, what would you like to say next? "
    "Please answer in a paragraph.",
]


def goal(text: str, name: str) -> dict[str, Any]:
    return {
        "goal": text,
        "eval_questions": {"self": [{"obj": name, "question": f"Q {text}"}], "others": []},
    }


def scene(alice_secret: Any = "SECRET_OF_AliceGreene", alice_profile: Any = None) -> Scenario:
    profile = (
        alice_profile if alice_profile is not None else "PROFILE_OF_AliceGreene (age 30, teacher)."
    )
    return Scenario.model_validate(
        {
            "sample_idx": 1,
            "template_idx": 1,
            "background": "BACKGROUND TEXT.",
            "description": "DESCRIPTION TEXT.",
            "characters": [
                {
                    "name": "AliceGreene",
                    "profile": profile,
                    "goals": [
                        goal("To goal1 of AliceGreene.", "AliceGreene"),
                        goal("To goal2 of AliceGreene.", "AliceGreene"),
                    ],
                    "private_info": alice_secret,
                    "info_reason_questions": [
                        {
                            "question": "INFOQ for AliceGreene: What is BobSmith's secret?",
                            "options": ["opt zero", "opt one", "opt two", "opt three"],
                            "answer_label": 0,
                        },
                        {"question": "A question without options?", "answer_label": 0},
                    ],
                },
                {
                    "name": "BobSmith",
                    "profile": "PROFILE_OF_BobSmith.",
                    "goals": [goal("To goal1 of BobSmith.", "BobSmith")],
                    "private_info": "SECRET_OF_BobSmith",
                    "info_reason_questions": [
                        {
                            "question": "INFOQ for BobSmith: What is AliceGreene's secret?",
                            "options": ["b", "c", "d", "Ends with a dot."],
                            "answer_label": "3",
                        }
                    ],
                },
            ],
        }
    )


def test_character_prompt_matches_the_verified_example_byte_for_byte() -> None:
    s = scene()
    assert system_prompt(s, s.characters[0]) == ALICE_PROMPT


def test_character_prompt_matches_the_template_layout() -> None:
    expected = "\n".join(TEMPLATE_LINES).format(
        name="BobSmith",
        profile="PROFILE_OF_BobSmith.",
        background="BACKGROUND TEXT.",
        desc="DESCRIPTION TEXT.",
        social_goal="To goal1 of BobSmith.",
        private_info="SECRET_OF_BobSmith",
    )
    s = scene()
    assert system_prompt(s, s.characters[1]) == expected


@pytest.mark.parametrize("secret", [None, ""])
def test_no_secret_renders_na(secret: str | None) -> None:
    s = scene(alice_secret=secret)
    text = system_prompt(s, s.characters[0])
    assert "\nSECRETS: N/A.\nPlease advance" in text
    assert text == ALICE_PROMPT.replace("SECRET_OF_AliceGreene.", "N/A.")


def test_secret_ending_with_a_dot_renders_two_dots() -> None:
    s = scene(alice_secret="She lost her job.")
    text = system_prompt(s, s.characters[0])
    assert "\nSECRETS: She lost her job..\n" in text


def test_profile_object_is_rendered_as_str_of_dict() -> None:
    s = scene(alice_profile={"age": 30, "job": "teacher"})
    text = system_prompt(s, s.characters[0])
    assert text.startswith("You are AliceGreene. {'age': 30, 'job': 'teacher'}\n\nNow you are")


def test_placeholders_inside_values_are_not_substituted_again() -> None:
    # safe_substitute is one pass: a "$name" inside a value stays literal.
    text = character_system_prompt(
        name="AliceGreene",
        profile="Costs $5; says ${name} and $desc.",
        background="B",
        description="D",
        goals=["To win."],
        secret="",
    )
    assert text.startswith("You are AliceGreene. Costs $5; says ${name} and $desc.\n")


def test_profile_with_newline_is_kept() -> None:
    s = scene(alice_profile="Line one.\nLine two.")
    text = system_prompt(s, s.characters[0])
    assert text.startswith(
        "You are AliceGreene. Line one.\nLine two.\n\nNow you are in a social scene."
    )


def test_judge_prompt_and_greeting() -> None:
    # docs/protocol.md §2.6 (= paper Prompt 18) and §2.2.
    assert JUDGE_SYSTEM_PROMPT == (
        "You are skilled at evaluating whether a person has achieved his or her social goal "
        "during social interactions."
    )
    assert GREETING == "Hi, there!"


# docs/protocol.md §4.1
OPTIONS = ["opt zero", "opt one", "opt two", "opt three"]
QUESTION = "INFOQ for AliceGreene: What is BobSmith's secret?"


@pytest.mark.parametrize(
    ("mark", "expected"),
    [
        (
            "upper",
            "Please answer the question and only output your choice.\n"
            "INFOQ for AliceGreene: What is BobSmith's secret? Options: "
            "(A) opt zero; (B) opt one; (C) opt two; (D) opt three.",
        ),
        (
            "lower",
            "Please answer the question and only output your choice.\n"
            "INFOQ for AliceGreene: What is BobSmith's secret? Options: "
            "(a) opt zero; (b) opt one; (c) opt two; (d) opt three.",
        ),
        (
            "number",
            "Please answer the question and only output your choice.\n"
            "INFOQ for AliceGreene: What is BobSmith's secret? Options: "
            "(1) opt zero; (2) opt one; (3) opt two; (4) opt three.",
        ),
    ],
)
def test_mcq_format(mark: str, expected: str) -> None:
    assert mcq_prompt(QUESTION, OPTIONS, OPTION_MARKS[mark]) == expected


def test_mcq_without_options() -> None:
    assert mcq_prompt("Who?", None, OPTION_MARKS["upper"]) == (
        "Please answer the question and only output your choice.\nWho?"
    )


def test_mcq_option_ending_with_a_dot() -> None:
    text = mcq_prompt("Q?", ["a", "Last one."], OPTION_MARKS["upper"])
    assert (
        text == "Please answer the question and only output your choice.\n"
        "Q? Options: (A) a; (B) Last one.."
    )


def test_mcq_questions_of_a_scene_are_asked_to_their_own_character() -> None:
    s = scene()
    questions = mcq_questions(s, Protocol(option_mark="lower"), random.Random(0))
    assert [(q.kind, q.about, q.interviewee, q.item) for q in questions] == [
        ("mcq", "AliceGreene", "AliceGreene", 0),
        ("mcq", "AliceGreene", "AliceGreene", 1),
        ("mcq", "BobSmith", "BobSmith", 0),
    ]
    assert questions[0].text == (
        "Please answer the question and only output your choice.\n"
        "INFOQ for AliceGreene: What is BobSmith's secret? Options: "
        "(a) opt zero; (b) opt one; (c) opt two; (d) opt three."
    )
    assert questions[1].text == (
        "Please answer the question and only output your choice.\nA question without options?"
    )
    assert questions[2].text == (
        "Please answer the question and only output your choice.\n"
        "INFOQ for BobSmith: What is AliceGreene's secret? Options: "
        "(a) b; (b) c; (c) d; (d) Ends with a dot.."
    )


def test_option_mark_all_draws_one_alphabet_per_question() -> None:
    s = scene()
    alphabets = {
        "(A) opt zero; (B) opt one; (C) opt two; (D) opt three.": "upper",
        "(a) opt zero; (b) opt one; (c) opt two; (d) opt three.": "lower",
        "(1) opt zero; (2) opt one; (3) opt two; (4) opt three.": "number",
    }
    seen = set()
    for seed in range(40):
        first = mcq_questions(s, Protocol(option_mark="all"), random.Random(seed))[0].text
        tail = first.split(" Options: ", 1)[1]
        assert tail in alphabets
        seen.add(alphabets[tail])
    assert seen == {"upper", "lower", "number"}
