"""CoSER's Given-Circumstance Acting prompts, verbatim (Neph0s/CoSER @ 624efc50, gca_evaluation/).

Every text a model sees in an `agentsense/gca` run comes from here; AgentSense's own prompts stay
in `agentsense.sense.prompts`. Sources (docs/gca.md has the full list): the character template is
`utils.py:224-254` (fixed-template branch) plus the `Agent` suffix (`agent.py:325-349`); the
Environment prompt `utils.py:361-389`; the next-speaker prompts `utils.py:391-404` (HEAD) and
`40c21a2:utils.py:387-395` (Feb-2025, the paper's); the critic template and the four dimensions
`prompts.py:2-121`; the JSON repair prompt `utils.py:457-459`. Strings that end in spaces in the
original are written line by line so the spaces stay visible and survive formatters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ENVIRONMENT = "Environment"
NSP = "NSP"
END_CHAT = "<END CHAT>"
RANDOM = "random"

# --- character agents (utils.py:224-254; agent.py:325-349) ---------------------------------

OUTPUT_FORMAT_WITHOUT_THOUGHT = (
    "Your output should include **speech** and **action**. "
    "Use (your action) for actions, which others can see."
)
OUTPUT_FORMAT_WITH_THOUGHT = (
    "Your output should include **thought**, **speech**, and **action**. "
    "Use [your thought] for thoughts, which others can't see. "
    "Use (your action) for actions, which others can see."
)
OUTPUT_FORMAT_WITH_EXAMPLE = (
    "Your output should include **thought**, **speech**, and **action**. "
    "Use [your thought] for thoughts, which others can't see, "
    "e.g. [I'm terrified, but I must appear strong.]. "
    "Use (your action) for actions, which others can see, "
    "such as (watches silently, trying to control her fear and anger)."
)
# One is drawn per prompt (`random.choice`) to separate the other characters' profiles.
PROFILE_DECORATORS = ("*" * 30 + "\n\n", "*" * 20 + "\n\n", "\n\n", "\n", "")
CONCISENESS_SUFFIX = (
    "\n\nSpeak concisely as humans, instead of being verbose. Limit your response to 60 words.\n\n"
)
CONVERSATION_START = "===Conversation Start===\n\n"


def output_format(thoughts: bool, example: bool) -> str:
    """The `===Requirements===` text: no thoughts, thoughts, or thoughts with an example."""
    if not thoughts:
        return OUTPUT_FORMAT_WITHOUT_THOUGHT
    return OUTPUT_FORMAT_WITH_EXAMPLE if example else OUTPUT_FORMAT_WITH_THOUGHT


def character_prompt(
    character: str,
    book: str,
    profile: str,
    scenario: str,
    other_profiles: Sequence[tuple[str, str]],
    decorator: str,
    motivation: str,
    requirements: str,
) -> str:
    """`get_character_prompt(..., fixed_template=True)` without retrieval, plus the Agent suffix."""
    others = "".join(
        f"{decorator}{name}: {text}\n\n" for name, text in other_profiles if name != character
    )
    if others:
        others = f"===Information about the other Characters===\n{others}\n\n"
    if motivation:
        motivation = f"===Your Inner Thoughts===\n{motivation}\n\n"
    prompt = (
        f"You are {character} from {book}.\n\n==={character}'s Profile===\n{profile}\n\n"
        f"===Current Scenario===\n{scenario}\n\n{others}{motivation}\n\n"
        f"===Requirements===\n{requirements}\n\n"
    )
    # The Agent constructor strips newlines, then adds the conciseness instruction.
    return prompt.strip("\n") + CONCISENESS_SUFFIX


# --- Environment agent (utils.py:361-389) ----------------------------------------------------

ENVIRONMENT_ROLES = (
    "an environment model",
    "a world model",
    "a world simulator",
    "an environment simulator",
)


ENVIRONMENT_TEMPLATE = (
    "You are {role_phrase} for a role-playing game. Your task is to provide the environmental "
    "feedback: Based on the characters' interactions, dialogues, and actions, describe the "
    "resulting changes in the environment. This includes:\n"
    "   - Physical changes in the setting\n"
    "   - Reactions of background characters or crowds\n"
    "   - Ambient sounds, weather changes, or atmospheric shifts\n"
    "   - Any other relevant environmental details\n"
    "\n"
    "Your descriptions should be vivid and help set the scene, but avoid dictating the actions "
    "or dialogue of the main characters (including {major_characters}).\n"
    "\n"
    "Important notes:\n"
    "- You may include actions and reactions of minor characters or crowds, as long as they're "
    "not main characters (including {major_characters}).\n"
    "- Keep your environmental descriptions concise but impactful, typically 1-3 sentences.\n"
    "- Respond to subtle cues in the characters' interactions to create a dynamic, reactive "
    "environment.\n"
    "- Your output should match the tone, setting, and cultural context of the scenario.\n"
    "\n"
    "===The scenario is as follows===\n"
    "{scenario}"
)


def environment_prompt(role_phrase: str, major_characters: Sequence[str], scenario: str) -> str:
    """The Environment agent's system prompt; `major_characters` is shown as a Python list."""
    return ENVIRONMENT_TEMPLATE.format(
        role_phrase=role_phrase, major_characters=repr(list(major_characters)), scenario=scenario
    )


# --- next-speaker predictor (Feb-2025: 40c21a2:utils.py:387-395; HEAD: utils.py:391-404) -------


NEXT_SPEAKER_TEMPLATE = (
    "Your task is to predict the next speaker for a role-playing game. That is, you need to "
    "determine which character (or the {ENVIRONMENT}) might act next based on their previous "
    "interactions. The {ENVIRONMENT} is a special role that provides the environmental "
    "feedback. Choose a name from this list: {all_characters}. If it's unclear who should act "
    'next, output "random". If you believe the scene or conversation should conclude, output '
    '"<END CHAT>".\n'
    "\n"
    "===The scenario is as follows===\n"
    "{scenario}"
)
# The Dec-2025 code (HEAD utils.py:391-404) appends this block.
NEXT_SPEAKER_OUTPUT_FORMAT = (
    "\n"
    "\n"
    "===Output Format===\n"
    "You must structure your response as follows:\n"
    "1. Reasoning: Explain your thought process.\n"
    "2. Next Speaker: Select exactly one character name from the list: {all_characters}.\n"
)


def next_speaker_prompt(all_characters: Sequence[str], scenario: str, output_format: bool) -> str:
    """The NSP system prompt; `output_format=True` adds HEAD's Reasoning / Next Speaker block."""
    template = NEXT_SPEAKER_TEMPLATE + (NEXT_SPEAKER_OUTPUT_FORMAT if output_format else "")
    return template.format(
        ENVIRONMENT=ENVIRONMENT, all_characters=repr(list(all_characters)), scenario=scenario
    )


# --- critics (prompts.py:2-121, main.py:433-435, utils.py:457-459) -----------------------------

CRITIC_TEMPLATE = (
    "You are a literary critic specializing in character analysis and dialogue evaluation. "
    "Given a simulated conversation for a plot in {book}, your task is to evaluate this "
    "conversation via the following steps:\n"
    "\n"
    "1. Read and understand the provided materials about {book}:\n"
    "   * Story context and scenario.\n"
    "   * Profiles of the main characters, including {major_characters}.\n"
    "   * The original conversation from {book} in the same scenario as a reference.\n"
    "\n"
    "  2. Evaluate the simulated conversation in terms of {dimension_name}, i.e., "
    "{dimension_brief}. \n"
    "   Note that, each character message is composed of speech, action (wrapped within (...) "
    "), and inner thoughts (wrapped within [...] ). The inner thoughts are not spoken aloud "
    "and are thus invisible to other characters. \n"
    "   The detailed evaluation criteria will be provided below.\n"
    "   {additional_instructions}\n"
    "\n"
    "## Scenario\n"
    "\n"
    "### Plot Summary\n"
    "\n"
    "{plot_summary}\n"
    "\n"
    "### Current Scenario\n"
    "\n"
    "{scenario}\n"
    "\n"
    "## Character Profiles\n"
    "\n"
    "{character_profiles}\n"
    "\n"
    "## Original Conversation\n"
    "\n"
    "{original_conversation}\n"
    "\n"
    "## Evaluation Criteria\n"
    "\n"
    "To evaluate the simulated conversation, identify the following types of flaws:\n"
    "\n"
    "{dimension_criteria}\n"
    "\n"
    "## Scoring Guidelines\n"
    "\n"
    "1. Identify all instances of flaws occurred in the simulated conversation.\n"
    "      \n"
    "2. For each flaw identified, determine its level of severity into 1 to 5, where 1 "
    "indicates minor, 3 indicates moderate, and 5 indicates severe.\n"
    "   \n"
    "## Output Requirements\n"
    "\n"
    "Provide your evaluation in JSON format:\n"
    "\n"
    "Example Output:\n"
    "{\n"
    '    "{dimension_name}": {\n'
    '        "flaws": [ \n'
    "          {\n"
    '            "instance": <comment on the flaw instance>, \n'
    '            "type": <flaw type>, \n'
    '            "severity": <range from 1 (minor) to 5 (severe)>\n'
    "          },\n"
    "    },\n"
    "}\n"
    "===Dialogue Content===\n"
)


@dataclass(frozen=True)
class Dimension:
    """One critic dimension: its name, the one-line brief and the flaw criteria."""

    name: str
    brief: str
    criteria: str


# In CoSER's order (main.py:393): one critic call each.
DIMENSIONS: tuple[Dimension, ...] = (
    Dimension(
        name="Storyline Consistency",
        brief=(
            "Whether the storyline and characters' reactions in the simulated conversation "
            "align well with those in the reference conversation"
        ),
        criteria=(
            "### Storyline Consistency\n"
            "   - Type: Storyline Consistency\n"
            "     * Characters' reactions (emotions, attitudes, behaviors) in the simulated "
            "conversation deviate from those in the original conversation"
        ),
    ),
    Dimension(
        name="Anthropomorphism",
        brief=("How human-like and natural the characters behave"),
        criteria=(
            "### Anthropomorphism\n"
            "   - Type: Self-identity\n"
            "     * Lacks initiative and goals\n"
            "     * Does not make independent decisions\n"
            "     * Lacks clear preferences and dislikes\n"
            "     * Behaves like a 'helpful AI assistant' by being overly verbose, helpful, "
            "didactic, moralistic, submissive or easily persuaded if it is not the character's "
            "personality\n"
            "\n"
            "   - Type: Emotional Depth\n"
            "     * Lacks psychological complexity and exhibits rigid, superficial reactions\n"
            "     * Directly speaks out all thoughts and feelings, instead of using subtext\n"
            "\n"
            "   - Type: Persona Coherence\n"
            "     * Shows inconsistent or rapidly changing personality traits and emotional "
            "patterns\n"
            "\n"
            "   - Type: Social Interaction\n"
            "     * Shows a lack of understanding of others' thoughts and feelings\n"
            "     * Reacts rigidly to others without considering the context.\n"
            "     * Demonstrate a lack of appropriate social skills."
        ),
    ),
    Dimension(
        name="Character Fidelity",
        brief=("How well the characters match their established profiles from the book"),
        criteria=(
            "### Character Fidelity\n"
            "   (Only apply to the main characters: {major_characters})\n"
            "   - Type: Character Language\n"
            "     * Uses vocabulary, expressions, and tone that are not appropriate for the "
            "characters' traits or  social/educational background\n"
            "\n"
            "   - Type: Knowledge & Background\n"
            "     * Fails to demonstrate character-specific knowledge, background or "
            "experiences\n"
            "     * Includes future information beyond the character's current stage\n"
            "\n"
            "   - Type: Personality & Behavior\n"
            "     * Shows emotions, thoughts, behaviors, values, beliefs, and decisions that "
            "conflict with their personality and background\n"
            "     * Shows interest in topics that are uninteresting and unrelated to the "
            "character\n"
            "     * Character's thoughts, emotions, and behaviors demonstrate contrasting "
            "personality traits compared to the reference conversation\n"
            "     * Exhibits contrasting reactions compared to those in the reference "
            "conversation if situated in similar contexts. (Such flaws should be counted both "
            'in the "Storyline Consistency" dimension and the "Character Fidelity" dimension.) '
            "\n"
            "\n"
            "   - Type: Relationship & Social Status\n"
            "     * Interacts inappropriately with other characters regarding their "
            "background, relationship and social status"
        ),
    ),
    Dimension(
        name="Storyline Quality",
        brief=("How well the conversation maintains logical consistency and narrative quality"),
        criteria=(
            "### Storyline Quality\n"
            "   - Type: Flow & Progression\n"
            "     * Shows unnatural progression or lacks meaningful developments\n"
            "     * Dialogue is verbose and redundant\n"
            "     * Repeats others' viewpoints or previously mentioned information\n"
            "     * Mechanically repeats one's own words or phrases. More repetitions lead to "
            "higher severity (up to 10). \n"
            "\n"
            "   - Type: Logical Consistency\n"
            "     * Contains factual contradictions between statements or perspectives"
        ),
    ),
)


def continue_from_instruction(k: int) -> str:
    """`{additional_instructions}` when the first k messages were seeded from the book."""
    return (
        f"Please note that the first {k} messages in the simulated conversation are the same as "
        "the reference. Focus your evaluation only on the content after these messages."
    )


def critic_prompt(
    dimension: Dimension,
    *,
    book: str,
    plot_summary: str,
    scenario: str,
    character_profiles: str,
    original_conversation: str,
    major_characters: Sequence[str],
    additional_instructions: str,
) -> str:
    """The critic's system prompt, filled by `str.replace` in CoSER's order (main.py:462).

    The criteria go in last, so the `{major_characters}` inside the Character Fidelity criteria
    stays literal, as in the original (docs/gca.md, ambiguity 10).
    """
    prompt = CRITIC_TEMPLATE
    for key, value in (
        ("{book}", book),
        ("{plot_summary}", plot_summary),
        ("{scenario}", scenario),
        ("{character_profiles}", character_profiles),
        ("{original_conversation}", original_conversation),
        ("{major_characters}", ", ".join(major_characters)),
        ("{additional_instructions}", additional_instructions),
        ("{dimension_name}", dimension.name),
        ("{dimension_brief}", dimension.brief),
        ("{dimension_criteria}", dimension.criteria),
    ):
        prompt = prompt.replace(key, value)
    return prompt


JSON_REPAIR_PROMPT = (
    "I will provide you with a JSON string that contains errors, making it unparseable by "
    "`json.loads`. The most common issue is the presence of unescaped double quotes inside "
    "strings. Your task is to output the corrected JSON string. The JSON string to be "
    "corrected is:\n"
    "{json_response}"
)


def json_repair_prompt(text: str) -> str:
    return JSON_REPAIR_PROMPT.replace("{json_response}", text)
