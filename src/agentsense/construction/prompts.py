"""Every prompt of the AgentSense construction pipeline, verbatim, in one place.

Prompts 1-16 are the paper's (arXiv 2410.19346, App. A.2) as its text prints them, typos
included ("infomation", "to to", "cane only be chosn", "Descrpition", "Firends", ...): they are
part of how the benchmark was made. The PDF's quote glyphs are mapped back to what they stand for
(a backtick for the opening glyph, an ASCII apostrophe for the closing one). Prompt 19 (sender /
receiver recognition) is shared with `agentsense/labelling` and lives in `agentsense.sense.prompts`.

Differences from the official code (`ljcleo/agent_sense`, `data_prepare/`), which ships Prompts
3-9 only: the code sends Prompts 3-6 as a system message (instructions plus its `json_prompt`)
and a user message (the input JSON), and lays the text out on several lines; here every prompt
is one user message, as the paper prints it, with the input JSON in place of its placeholder.
The wording is identical (construction-pipeline.md section 12). `docs/construction.md` says why.

How each template is filled (`fill_*` below): Prompts 1-9 name their inputs (`{script}`,
`{scenario_json_string}`, ...) next to literal JSON braces, so only the named placeholders are
replaced; Prompt 10 has nine positional `{}`; Prompts 11, 12, 16 and 19 are `str.format`
templates (their doubled braces are escapes); Prompts 13-15 mark their inputs with `!!`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentsense.sense.prompts import SENDER_RECEIVER_PROMPT

# Prompt 1: Episodes Division
PROMPT_1_EPISODES_DIVISION = (
    "You are very good at reading scripts and extracting key information. According to "
    "discernible shifts in temporal settings, spatial locations, character dynamics and "
    "narrative progressions, divide the following script into multiple episodes. Do not "
    "delete or modify script content. ###Script: {script} Please return the results "
    'according to the following JSON structure: ```json [{"episode1": "xxx", "episode2": '
    '"xxx", "episode3": "xxx", ...}] ```'
)


# Prompt 2: Scenes Division
PROMPT_2_SCENES_DIVISION = (
    "You are very good at reading scripts and extracting key information. According to the "
    "variations in the dialogue content, divide the following episode into multiple scenes. "
    "Do not delete or modify episode content. ###Episode: {episode} Please return the "
    'results according to the following JSON structure: ```json [{"scene1": "xxx", '
    '"scene2": "xxx", "scene3": "xxx", ...}] ```'
)


# Prompt 3: Descriptive Background Generation
PROMPT_3_DESCRIPTIVE_BACKGROUND = (
    "You are an excellent writer good at analyzing story backgrounds. You are given some "
    "information of a specific scenario in a story. More specifically: - The story is split "
    "into scenes, and you are given the background of each scene until the current one; - "
    "The current scene is also split into scenarios, and you are given the background of "
    "each scenario until the current one; - Finally, you are given the current scenario's "
    "description and dialog. Write ONE paragraph to provide a DESCRIPTIVE background of the "
    "given scenario. A good background should cover the information that sets up the "
    "scenario, but does NOT reveal too many details from the scenario, or include "
    'irrelevant details. Output a JSON document like `{"background": "..."}`. '
    "{scenario_json_string}"
)


# Prompt 4: Original Social Goal Extraction
PROMPT_4_GOAL_EXTRACTION = (
    "You are an excellent psychologist good at understanding social goals and needs. You "
    "are given a social scenario with its background, description, and dialog. For the "
    "specific character of **{character}**, identify their social goals. Social goals "
    "typically fall into one of these categories: - Exchange information with others; - "
    "Build relationship with others; - Maintain relationship or provide emotional support; "
    "- Identify themselves with a group; - Co-operate with others; - Compete with others; - "
    "Resolve conflicts. Social goals should be objective, specific and clear; whether the "
    "character has achieved them should be observable. The character can have one single "
    "goal or multiple independent goals in the scenario; find and list all of them. For "
    "each goal, write a sentence to describe the goal. Use infinitive verbs and third "
    'person pronouns. Output a JSON document like `{"name": "...", "goals": ["...", ...]}`. '
    "{scenario_json_string}"
)


# Prompt 5: Scenario Rewriting
PROMPT_5_SCENARIO_REWRITING = (
    "You are an excellent psychologist good at designing social scenarios. You are given a "
    "social scenario with background, description, and dialog. You are also given the "
    "social goals of several major characters. Set up a new social scenario involving only "
    "these **major characters**. Each character's new social goals should appear **before** "
    "the scenario starts. First, filter out contents from the background and description "
    "that describes the detail of the scenario; however, details of the beginning of the "
    "scenario can be kept. Second, rewrite each character's social goals so that it: - DOES "
    "NOT rely on other character's goals; - DOES NOT include potential action the character "
    "will take; - Uses infinitive verbs and third person pronouns. Filter out social goals "
    "that cannot obey these criteria. Modify the background/description to include more "
    "information if necessary. Describe the background and description of the new scenario, "
    "and list the new social goals of each major character. Output a JSON document like "
    '`{"background": "...", "description": "...", "characters": [{"name": "...", "goals": '
    '["...", ...]}, ...]}`. {scenario_json_string}'
)


# Prompt 6: Social Goal Filtering
PROMPT_6_GOAL_FILTERING = (
    "You are an excellent psychologist good at analyzing social goals. You are given the "
    "social goals of a character in a designed social scenario. You are provided the "
    "background, description and character lists. Now, for the specified goal, check if it "
    "needs to be rewritten or removed due to any of these reasons: 1. The goal directly "
    "involves characters not participating in the scenario, e.g. 'deal with the client' (if "
    "'client' is not in the list of characters); 2. The goal requires information not "
    "provided in the background or description, e.g. 'describe the plan' (if the plan "
    "already exists but not provided); 3. The goal is a physical action, e.g. 'fix the "
    "television'; 4. The goal is too abstract to evaluate, e.g. 'navigate professional "
    "challenges'; 5. The goal is too subjective to evaluate, e.g. 'maintain dignity'; 6. "
    "The goal is meaningless to evaluate, e.g. 'join the conversation'. Write a detailed "
    "paragraph to examine the social goal. Compare it with each of the criteria above. If "
    "the goal matches one or more criteria above, check if you can rewrite the goal to "
    "avoid them. You should still remove the goal if this is not possible. Based on your "
    "examination, write an updated version of the goal: - If the goal is valid, return the "
    "original goal. - If the goal can be rewritten, return the rewritten goal. - If the "
    "goal needs to be removed, return an empty string. Finally, any returned goal (if any) "
    "should be formatted into 'To xxx.', e.g. 'To share his/her discovery.' (including the "
    'final period). Output a JSON document like `{"examination": "...", "update": "..."}`. '
    "{scenario_with_current_character_goal_json_string}"
)


# Prompt 7: Case Validation
PROMPT_7_CASE_VALIDATION = (
    "You are an excellent psychologist who is good at analyzing the private information of "
    "each character in a social scenario. Private information refers to information that "
    "only the character knows and no one else knows. To determine whether there is private "
    "information, we need to check whether a specific character has information known to "
    "him/her, and whether the information exists in the background and description. Because "
    "the information in the background and description will be obtained by all characters, "
    "only when a specific character can obtain this information through its own goal and "
    "this information does not exist in the background and description, it indicates that "
    "the scene is a scene involving private information reasoning. You only need to return "
    "*Yes* or *No* to confirm whether there is any private information. The following is "
    "the background information, description, main characters and corresponding social "
    "goals: ###Background: {background} ###Description: {description} ###Characters: "
    "{characters}"
)


# Prompt 8: Private Info Generation
PROMPT_8_PRIVATE_INFO_GENERATION = (
    "You are good at writing questions for specific roles based on a social scenario. Below "
    "you will be provided with background information, a description of the current scene, "
    "and the goals of each of the main characters. ###Background: {background} "
    "###Description: {description} ###Characters: {characters} Please try to give some "
    "questions that the target character (in the following JSON format content, 'role' is "
    "used to refer to) can answer, but other characters will have difficulty answering "
    "before the interaction. These questions should strictly contain information that the "
    "target character knows, but is beyond the knowledge of other characters, so other "
    "characters cannot answer them at first. Specifically, the information required for "
    "these questions cannot appear in the background and description, because other "
    "characters will obtain this part as information. Questions cannot be expressed in the "
    "second person because the questions will eventually be used to ask other characters. "
    'For example, when the target character of a question is Rose, "Rose, why did you ..." '
    'is not a good question, but should be written as "Why did Rose ..." Please provide a '
    "statement (in the following JSON format content, 'explanation' is used to refer to) "
    "that explains why the target character can answer the question, but other characters "
    "cannot. The statement should be objective factual information presented in the script, "
    "and should not mention the question, so it cannot appear in a sentence structure like "
    '"This question is ...". Please provide the correct answer to the question, and the '
    "answer can be found in the information given. Please use casual language as much as "
    "possible, and try to ask questions in the third person, such as \"What is Jason's true "
    'identity?". Please answer in English. Please return the results according to the '
    'following JSON structure: ```json [{"role": str, "question": str, "explanation": str, '
    '"answer": str}, {"role": str, "question": str, "explanation": str, "answer": str}] ```'
)


# Prompt 9: Negative Option Generation
PROMPT_9_NEGATIVE_OPTIONS = (
    "You are a multiple-choice generator. Given a description of social scenario, a "
    "question and an answer, you need to generate 3 additional incorrect options. Incorrect "
    "options should be expressed in a similar way to the answer, but need to have "
    "completely different actual meanings so that they are sufficiently distinguishable "
    "from the answer. ###Description: {description} ###Question: {question} ###Answer: "
    "{answer} Please return the results according to the following JSON structure: ```json "
    '[{"option1": "xxx", "option2": "xxx", "option3": "xxx"}] ```'
)


# Prompt 10: Negative Options Rephrasing
PROMPT_10_NEGATIVE_OPTIONS_REPHRASING = (
    "The following is information and a corresponding quiz for a social simulation "
    "scenario. ### background: {} ### description: {} ### characters: {} ### social goals: "
    "{} ### private infomation: {} ### question: {} ### negative options: {} ### answer: {} "
    "When I put myself in the role of {} to do the question, I thought the options were too "
    "easy. The problem was that the negative options were not closely related to the given "
    "scenario or the character's motivation. The criterion for a good negative option is "
    "that it is impossible to determine which option is correct based on the above "
    "information only. Now I want to rewrite these negative options to make them more "
    "similar to the correct answers and make the questions as difficult as possible. The "
    "returned negative options should be in the same format as provided, both in list "
    "format. Make sure the new negative options also have 3 options. The return should be "
    'given in json format, for example: ```json {"negative_options": ["xx", "xx", "xx"]} '
    "```"
)


# Prompt 11: Entity Word Extraction
PROMPT_11_ENTITY_EXTRACTION = (
    "Your task is to extract key elements from the scene background and description, "
    "including location and characters. ## background: {background} ## description: "
    '{description} Output in the following JSON format: {{"characters":[str,str...], '
    '"location":[str,str...], }}'
)


# Prompt 12: Entity Word Replacement
PROMPT_12_ENTITY_REPLACEMENT = (
    "Please replace the provided scene background and description with a new location, and "
    "record the location before and after the modification. ## background: {background} ## "
    "description: {description} ## location involved: {location_involved} Output in the "
    'following JSON format: {{"background_replace_location":str, '
    '"description_replace_location":str, '
    '"replace_location_list":[{{"original_name":str,"revised_name":str}}]}}'
)


# Prompt 13: Attribute Extraction of Original Characters
PROMPT_13_ATTRIBUTE_EXTRACTION = (
    "Template Example: !! Description Information: !! Characters: !! Instruction: Generate "
    "user profile for each character in the Characters according to to the Template Example "
    "profile attribute and the Description Information. Try your best to fill in each "
    "attribute and NEVER respond with 'Unknown'. The secret attribute should be consistent "
    "with the private info given in the Information. You should response in JSON format "
    "list with each character as dict and within each character, use attribute as a key and "
    "corresponding content as the value. Answer format: ```json [ { # charcater_1 profile "
    "}, { # character_2 profile } ] ```"
)


# Prompt 14: Relationship Extraction of Original Characters
PROMPT_14_RELATIONSHIP_EXTRACTION = (
    "Description Information: !! Characters: !! Relationship choice: [family, friend, "
    "romantic, acquaintance, stranger] Instruction: Choose the relationship among the "
    "Characters according to the Description Information. The relationship cane only be "
    "chosn from [family, friend, romantic, acquaintance, stranger]. Do not respond with "
    "Unkown or any other labels beyond the choices. When all the characters have the same "
    'relationship, just reply with one key "relationship": Answer format 1: ```json { '
    '"relationship": # your_choice } ``` When there exist multiple relationships among '
    "characters, reply with the following format: Answer format 2: ```json { "
    '"relationship": {"A_and_B": "#your_choice_1", "A_and_C": "# your_choice_2"} } ```'
)


# Prompt 15: Characters Attribute Replace-ability Assessment
PROMPT_15_REPLACEABILITY = (
    "[Descrpition Info]: !! [Relationship]: !! [Characters]: !! [Instructions]: According "
    "to the [Description Info] of a script and [Relationship] among characters, determine "
    "whether each attribute of the [Characters] is replaceable with different settings "
    "without influencing the overall script. Choose from [almost, maybe, no]. For example, "
    "if the Age attribute is almost replacebale, then the character's age has no impact on "
    "the background description; if the gender is not replaceable, then the character has "
    "to be a certain gender in the script. Rules that help you choose: Family members "
    "usually have fixed ages and genders (if daughter or son appeared in the script); "
    "Romantic require exactly the same gender as script. Firends are usually similar ages, "
    "etc. Answer with the following JSON format, where # is your output: ```json [ { "
    '"name": #character_1, "age": "#your_choice", "occupation": "#your_choice", "gender": '
    '"#your_choice" } { "name": #character_2, ... } ] ```'
)


# Prompt 16: Agent Synthesizing
PROMPT_16_AGENT_SYNTHESIZING = (
    "Please generate {num} diverse user profiles that meet following requirements:\\\\ "
    "Gender: {cand_gender} Age: {cand_age} Occupation: {cand_occupation} Please return your "
    'response in the following format of JSON: [{{"name":agent1, "gender":gender, '
    '"age":age, "occupation":occupation}},{{"name":agent2, ...}}]'
)


# Prompt 19: Prompt for Sender and Receiver Recognition (one copy, shared with labelling).
PROMPT_19_ROLES = SENDER_RECEIVER_PROMPT

PAPER_PROMPTS: dict[int, str] = {
    1: PROMPT_1_EPISODES_DIVISION,
    2: PROMPT_2_SCENES_DIVISION,
    3: PROMPT_3_DESCRIPTIVE_BACKGROUND,
    4: PROMPT_4_GOAL_EXTRACTION,
    5: PROMPT_5_SCENARIO_REWRITING,
    6: PROMPT_6_GOAL_FILTERING,
    7: PROMPT_7_CASE_VALIDATION,
    8: PROMPT_8_PRIVATE_INFO_GENERATION,
    9: PROMPT_9_NEGATIVE_OPTIONS,
    10: PROMPT_10_NEGATIVE_OPTIONS_REPHRASING,
    11: PROMPT_11_ENTITY_EXTRACTION,
    12: PROMPT_12_ENTITY_REPLACEMENT,
    13: PROMPT_13_ATTRIBUTE_EXTRACTION,
    14: PROMPT_14_RELATIONSHIP_EXTRACTION,
    15: PROMPT_15_REPLACEABILITY,
    16: PROMPT_16_AGENT_SYNTHESIZING,
    19: PROMPT_19_ROLES,
}

# --- The project's own texts (no paper counterpart) ---------------------------------------------

# The official code's JSON-repair request (`1_goal/config.json`, `fix_prompt`), sent here as a
# follow-up turn of the same conversation, with the stage's JSON example and what was wrong.
FIX_JSON_PROMPT = "Fix the incorrect JSON document. Output like `{example}`."
FIX_REASON = "The problem: {reason}."
# Prompt 7 asks for *Yes* or *No*, not JSON.
FIX_YES_NO_PROMPT = "Reply with *Yes* or *No* only."

# Prompt 13's "Template Example": the profile attributes the paper reports (section 3.5, Fig. 4).
PROFILE_TEMPLATE_EXAMPLE: dict[str, str] = {
    "name": "...",
    "gender": "...",
    "age": "...",
    "occupation": "...",
    "big_five": "...",
    "moral_values": "...",
    "personality_and_values": "...",
    "decision_making_style": "...",
    "secret": "...",
}


# --- Filling ------------------------------------------------------------------------------------


def compact_json(value: Any) -> str:
    """The input JSON as the official code sends it (pydantic `model_dump_json`: compact, UTF-8)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def fill_named(template: str, **values: str) -> str:
    """Replace `{name}` placeholders only: the templates also hold literal JSON braces."""
    for key, value in values.items():
        placeholder = "{" + key + "}"
        if placeholder not in template:
            raise KeyError(f"no placeholder {placeholder} in the prompt")
        template = template.replace(placeholder, value)
    return template


def fill_positional(template: str, values: Sequence[str]) -> str:
    """Prompt 10: nine `{}` slots, filled in order (its JSON example has no empty braces)."""
    parts = template.split("{}")
    if len(parts) != len(values) + 1:
        raise ValueError(f"the prompt has {len(parts) - 1} slots, {len(values)} values given")
    return "".join(part + value for part, value in zip(parts, [*values, ""], strict=True))


def fill_marks(template: str, values: Sequence[str]) -> str:
    """Prompts 13-15: `!!` slots, filled in order of appearance."""
    parts = template.split("!!")
    if len(parts) != len(values) + 1:
        raise ValueError(f"the prompt has {len(parts) - 1} slots, {len(values)} values given")
    return "".join(part + value for part, value in zip(parts, [*values, ""], strict=True))


def fill_format(template: str, **values: Any) -> str:
    """Prompts 11, 12, 16, 19: `str.format` templates (doubled braces are escapes).

    Prompt 16's `\\\\` is a LaTeX line break left in the paper's text: it becomes a newline.
    """
    return template.format(**values).replace("\\\\ ", "\n")
