"""Every prompt of the AgentSense benchmark, verbatim, in one place.

The strings below are part of the benchmark's definition. They reproduce the official code
(`ljcleo/agent_sense`, `SENSE/configs/prompt_template.json`, `SENSE/utils/data_utils.py`) and the
paper's appendix (arXiv 2410.19346, A.2 and C). Do not edit them to "improve" wording: scores are
only comparable with published numbers when these are byte-identical. Where the paper and the code
disagree (greeting, "a paragraph" vs "one paragraph", the description line), the code wins,
because the code produced the published numbers.
"""

from __future__ import annotations

import json
from string import Template

# Character system prompt (official `prompt_template`, `$`-placeholders filled with
# `string.Template.safe_substitute`). Note the literal "." after ${private_info}.
CHARACTER_SYSTEM_PROMPT = Template(
    "You are ${name}. ${profile}\n"
    "\n"
    "Now you are in a social scene. ${background}\n"
    "${desc}\n"
    "\n"
    "In this scene, as ${name}, you have some social goals and secrets that you don't want "
    "anyone else to know.\n"
    "\n"
    "SOCIAL GOALS: ${social_goal}\n"
    "\n"
    "SECRETS: ${private_info}.\n"
    "Please advance your social goals while hiding your secrets as much as possible.\n"
    "\n"
    "Based on the interactions below, what would you like to say next? "
    "Please answer in a paragraph."
)

# What a character without a secret gets in place of ${private_info}.
NO_SECRET = "N/A"

# Judge system prompt (official `judge_prompt_template`, = paper Prompt 18).
JUDGE_SYSTEM_PROMPT = (
    "You are skilled at evaluating whether a person has achieved his or her social goal "
    "during social interactions."
)

# The scripted, non-model opening line of every conversation (the paper writes "Hi there!").
GREETING = "Hi, there!"

# Multiple-choice question about private information (official `data_utils.py` L8-34):
# instruction line, question, " Options: ", options joined by "; ", final ".".
MCQ_INSTRUCTION = "Please answer the question and only output your choice.\n"
MCQ_OPTIONS_INTRO = " Options: "
MCQ_OPTION_SEPARATOR = "; "
MCQ_END = "."

# Option labels per `option_mark` (official `--option_mark`); "all" picks one per question.
OPTION_MARKS: dict[str, str] = {
    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "lower": "abcdefghijklmnopqrstuvwxyz",
    "number": "123456789",
}

# Paper Prompt 19: sender / receiver recognition (labelling of `roles`).
SENDER_RECEIVER_PROMPT = (
    "In the context of social interactions, please categorize each individual into one of the "
    "following roles based on their primary social goals: Sender: This role is characterized by "
    "the goal of sharing, transmitting, or providing information or opinions to others. "
    "Receiver: This role is characterized by the goal of receiving, understanding, or reacting "
    "to information shared by others. Please review the following individuals involved in the "
    "interaction and assign each one the appropriate role: {data} Please return your response in "
    'the following format of JSON: {{"user1":"sender", "user2":"receiver, ...}}'
)


def character_system_prompt(
    *, name: str, profile: str, background: str, description: str, goals: list[str], secret: str
) -> str:
    """Fill the character system prompt exactly as the official code does."""
    return CHARACTER_SYSTEM_PROMPT.safe_substitute(
        name=name,
        profile=profile,
        background=background,
        desc=description,
        social_goal=" ".join(goals),
        private_info=secret or NO_SECRET,
    )


def mcq_prompt(question: str, options: list[str] | None, labels: str) -> str:
    """Format a private-information MCQ exactly as the official code does.

    `labels` is the alphabet of option marks (e.g. "ABCD..."); without options only the
    instruction and the question are sent, as in the official code.
    """
    text = MCQ_INSTRUCTION + question
    if options:
        marked = [f"({labels[i]}) {option}" for i, option in enumerate(options)]
        text += MCQ_OPTIONS_INTRO + MCQ_OPTION_SEPARATOR.join(marked) + MCQ_END
    return text


# --- Labelling (not part of the official code; used by `agentsense/labelling`) ------------------
# Written for this project from the paper's definitions (App. B.2 Table 4, App. B.3 Table 5 and
# the goal categories of Prompt 4); the roles prompt is the paper's Prompt 19 above.

SCENARIO_TYPES: dict[str, str] = {
    "personal domain": "Interactions in the personal domain often happen at home, during private "
    "gatherings, or in intimate settings, involving family, close friends, and partners.",
    "small society": "Small society interactions occur in smaller social environments like "
    "schools, workplaces, and communities, occurring in classrooms, offices, conference rooms, "
    "community activity centers, and other places.",
    "large society": "Large society interactions take place in broader contexts such as public "
    "spaces, online platforms, and international conferences.",
}

GOAL_CATEGORIES: dict[str, str] = {
    "Information Acquisition": "(existence need) to obtain information from others.",
    "Information Provision": "(existence need) to share or give information to others.",
    "Relationship Building": "(relatedness need) to build a relationship with others.",
    "Relationship Maintenance": "(relatedness need) to maintain a relationship or provide "
    "emotional support.",
    "Identity Recognition": "(relatedness need) to identify oneself with a group or be recognized "
    "by it.",
    "Cooperation": "(growth need) to co-operate with others.",
    "Competition": "(growth need) to compete with others.",
    "Conflict Resolution": "(growth need) to resolve conflicts.",
}

SCENARIO_TYPE_PROMPT = (
    "You are an excellent sociologist good at classifying social scenarios. Social scenarios fall "
    "into three types:\n{types}\n\nClassify the following social scenario into exactly one of "
    "these types.\n###Background: {background}\n###Description: {description}\n\n"
    'Please return your response in the following format of JSON: {{"type": "<one of the types>"}}'
)

GOAL_CATEGORY_PROMPT = (
    "You are an excellent psychologist good at understanding social goals and needs. Following "
    "the ERG theory, social goals fall into eight categories:\n{categories}\n\nClassify each of "
    "the following social goals into exactly one of these categories.\n"
    "###Background: {background}\n###Goals:\n{goals}\n\nPlease return your response in the "
    "following format of JSON, with one "
    'entry per goal number: {{"1": "<category>", "2": "<category>", ...}}'
)


def scenario_type_prompt(background: str, description: str) -> str:
    types = "\n".join(f"- {name}: {text}" for name, text in SCENARIO_TYPES.items())
    return SCENARIO_TYPE_PROMPT.format(types=types, background=background, description=description)


def goal_category_prompt(background: str, goals: list[tuple[str, str]]) -> str:
    """`goals`: (character, goal) pairs, numbered from 1 in the prompt."""
    categories = "\n".join(f"- {name}: {text}" for name, text in GOAL_CATEGORIES.items())
    numbered = "\n".join(f"{i}. {name}: {goal}" for i, (name, goal) in enumerate(goals, start=1))
    return GOAL_CATEGORY_PROMPT.format(categories=categories, background=background, goals=numbered)


def sender_receiver_prompt(goals: dict[str, list[str]]) -> str:
    """`goals`: character -> its goals, as the JSON `{data}` of Prompt 19."""
    return SENDER_RECEIVER_PROMPT.format(data=json.dumps(goals, ensure_ascii=False))


# --- Script prediction (§4.3, Table 2; used by `agentsense/script_prediction`) -----------------
# The paper describes the test ("whether models can guess the original scripts from background
# information", one sample per template) but prints no prompt; this one was written for this
# project in the style of the paper's construction prompts (docs/leakage.md).
SCRIPT_PREDICTION_PROMPT = (
    "You are very good at recognizing films, TV series and plays. The following background of a "
    "social scenario was adapted from a script. Guess which script it comes from.\n"
    "###Background: {background}\n"
    "Please answer with the title of the script only."
)


def script_prediction_prompt(background: str) -> str:
    return SCRIPT_PREDICTION_PROMPT.format(background=background)
