"""The score keys and score-metadata records the scorers write and the analysis and report read.

Every name a log carries for a score is declared here once; the scorers write through these
constants and the readers (analysis, report) read through them (`tests/test_score_keys.py` fails
on a key spelled as a literal anywhere else). What a log holds is fixed by the eval's version
(`eval.yaml`): old logs must keep loading, so these strings do not change.

Scene score keys (the `value` of an AgentSense score):

- goal completion (`GOAL_KEYS`): `self`, `other` (the characters' own and the other side's
  verdicts), one key per judge (`judge_key`: `judge_1..judge_N`, in binding order) and the judge
  aggregations `JUDGE_AGGREGATIONS` (`judge_mean`, `judge_majority`, the paper's headline);
- MCQ accuracy (`MCQ_ACCURACY`), the blind test's (`BLIND_MCQ_ACCURACY`), script prediction's
  (`SCRIPT_ACCURACY`) and role labelling's agreements (`LABEL_AGREEMENTS`).

Adding a judge aggregation touches two places: its key and report header in
`JUDGE_AGGREGATIONS` below, and its computation in `scorers.goal.JUDGE_AGGREGATORS` (a test
checks the two agree). The scorers' metrics, the per-goal and per-character rows, the report's
frames, Table 1's columns and headers and the uncertainty tables all derive from the declaration.

"others" and "other": the official dataset names the other side's goal questions `others`
(`eval_questions.others`, kept verbatim as the interview's question kind `OTHERS_QUESTION`); the
score key is `other` (the paper's Table 1 column "Other"), and so is the answer frame's `kind`.
`score_of_kind` maps a question kind to its score key; nothing else converts between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, TypedDict

# --- scene score keys ----------------------------------------------------------------------------

SELF = "self"
OTHER = "other"
JUDGE_MEAN = "judge_mean"
JUDGE_MAJORITY = "judge_majority"
# The judge panel's aggregations over its votes, in Table 1's order, with the report's headers.
JUDGE_AGGREGATIONS: dict[str, str] = {JUDGE_MEAN: "Judge mean", JUDGE_MAJORITY: "Judge majority"}
# The goal scores of one goal, character and scene (besides the per-judge keys).
GOAL_KEYS: tuple[str, ...] = (SELF, OTHER, *JUDGE_AGGREGATIONS)
HEADLINE = JUDGE_MAJORITY  # the paper's primary metric
# The goal keys as summaries list them: the headline, the other aggregations, then self and other.
HEADLINE_FIRST: tuple[str, ...] = (
    HEADLINE,
    *(key for key in JUDGE_AGGREGATIONS if key != HEADLINE),
    SELF,
    OTHER,
)

MCQ_ACCURACY = "mcq_accuracy"
BLIND_MCQ_ACCURACY = "blind_mcq_accuracy"
SCRIPT_ACCURACY = "script_accuracy"
# The agreement of a labelling run with the dataset's own labels.
TYPE_AGREEMENT = "type_agreement"
CATEGORY_AGREEMENT = "category_agreement"
ROLE_AGREEMENT = "role_agreement"
LABEL_AGREEMENTS: dict[str, str] = {
    TYPE_AGREEMENT: "Scenario type",
    CATEGORY_AGREEMENT: "Goal category",
    ROLE_AGREEMENT: "Role",
}

# Every scene score key a report reads, in the report's column order (per-judge keys aside).
SCENE_KEYS: tuple[str, ...] = (*GOAL_KEYS, MCQ_ACCURACY, BLIND_MCQ_ACCURACY, SCRIPT_ACCURACY)
SCORE_KEYS: tuple[str, ...] = (*SCENE_KEYS, *LABEL_AGREEMENTS)


def scene_columns(judge_columns: Sequence[str] = ()) -> tuple[str, ...]:
    """The scene score columns in Table 1's order, the per-judge columns (as the report labels
    them) between the characters' verdicts and the panel's aggregations."""
    return (SELF, OTHER, *judge_columns, *SCENE_KEYS[2:])


# The report's column header of every declared score key.
HEADERS: dict[str, str] = {
    SELF: "Self",
    OTHER: "Other",
    **JUDGE_AGGREGATIONS,
    MCQ_ACCURACY: "MCQ acc.",
    BLIND_MCQ_ACCURACY: "Blind acc.",
    SCRIPT_ACCURACY: "Script acc.",
    **LABEL_AGREEMENTS,
}

# --- per-judge keys ------------------------------------------------------------------------------

JUDGE_PREFIX = "judge_"
JUDGE_KEY_GLOB = f"{JUDGE_PREFIX}*"  # Inspect's metric glob over the per-judge keys


def judge_key(index: int) -> str:
    """The score key of the panel's judge number `index` (from 1, in binding order)."""
    return f"{JUDGE_PREFIX}{index}"


def is_judge_key(key: str) -> bool:
    """`judge_1`, `judge_2`, ... (not the aggregations)."""
    return key.startswith(JUDGE_PREFIX) and key.removeprefix(JUDGE_PREFIX).isdigit()


# --- question kinds and askers -------------------------------------------------------------------

SELF_QUESTION: Final = "self"
OTHERS_QUESTION: Final = "others"  # the dataset's name (`eval_questions.others`), see the docstring
JUDGE_QUESTION: Final = "judge"
MCQ_QUESTION: Final = "mcq"
QuestionKind = Literal["self", "others", "judge", "mcq"]
_KIND_SCORES: dict[str, str] = {SELF_QUESTION: SELF, OTHERS_QUESTION: OTHER}

# Who answered a goal question, as a goal-answer row names it: `self`, `other:<name>`, a judge key.
SELF_ASKER = "self"
OTHER_ASKER_PREFIX = "other:"
# The answer frame's `kind` of an answer: the goal score key it counts towards, or `judge`.
AnswerKind = Literal["self", "other", "judge"]


def score_of_kind(kind: str) -> str:
    """The goal score key a question kind counts towards (`others` -> `other`)."""
    return _KIND_SCORES[kind]


def other_asker(name: str) -> str:
    return f"{OTHER_ASKER_PREFIX}{name}"


def asker_of(kind: str, interviewee: str) -> str:
    """How a goal-answer row names who answered (MCQs: `self`, the character asked)."""
    if kind == OTHERS_QUESTION:
        return other_asker(interviewee)
    return interviewee if kind == JUDGE_QUESTION else SELF_ASKER


def answer_kind(asker: str, character: str) -> tuple[AnswerKind, str]:
    """A logged asker as the answer frame's kind and the name of who answered."""
    if asker == SELF_ASKER:
        return "self", character
    if asker.startswith(OTHER_ASKER_PREFIX):
        return "other", asker.removeprefix(OTHER_ASKER_PREFIX)
    return "judge", asker


def asker_name(asker: str) -> str:
    """A logged asker without its `other:` prefix."""
    return asker.removeprefix(OTHER_ASKER_PREFIX)


# --- score metadata ------------------------------------------------------------------------------

# Keys of an AgentSense score's `metadata`.
PROTOCOL = "protocol"  # the protocol mode it was scored with
CAST = "cast"  # character -> the model that played it
ROLES = "roles"  # character -> its model role (sender / receiver) or None
JUDGES = "judges"  # judge key -> judge model
JUDGE_ROLE_BOUND = "judge_role_bound"  # whether the role `judge` was bound (else self-judging)
JUDGE_REPEAT = "judge_repeat"  # which judge repeat a scoring is (`scorers.repeats`)
GOAL_ANSWERS = "goal_answers"  # GoalAnswerRow per goal answer
GOAL_SCORES = "goal_scores"  # GoalScoreRow per goal
CHARACTER_SCORES = "character_scores"  # CharacterScoreRow per character
UNREADABLE_GOAL_ANSWERS = "unreadable_goal_answers"
MCQ_ANSWERS = "mcq_answers"  # McqAnswerRow per MCQ answer
MCQ_PER_CHARACTER = "mcq_per_character"  # character -> its accuracy
UNREADABLE_MCQ_ANSWERS = "unreadable_mcq_answers"
MCQ_SCORED = "mcq_scored"  # whether the scene's MCQ accuracy is a number (not NaN)

# Metadata keys that are distinctive enough to be checked everywhere (`tests/test_score_keys.py`);
# `protocol`, `cast`, `roles` and `judges` are common words, checked as metadata subscripts only.
METADATA_KEYS: tuple[str, ...] = (
    JUDGE_ROLE_BOUND,
    JUDGE_REPEAT,
    GOAL_ANSWERS,
    GOAL_SCORES,
    CHARACTER_SCORES,
    UNREADABLE_GOAL_ANSWERS,
    MCQ_ANSWERS,
    MCQ_PER_CHARACTER,
    UNREADABLE_MCQ_ANSWERS,
    MCQ_SCORED,
)
COMMON_METADATA_KEYS: tuple[str, ...] = (PROTOCOL, CAST, ROLES, JUDGES)


class GoalAnswerRow(TypedDict):
    """One answer to a goal question (`goal_answers`); goals and items are numbered from 1."""

    character: str  # whose goal
    goal: int
    asker: str  # `self`, `other:<name>` or a judge key (`asker_of`)
    item: int  # which of the goal's questions to this kind of asker
    model: str  # who answered ("" when unknown)
    question: str
    answer: str
    reading: int | None  # 1 yes, 0 no, None unreadable (corrected mode)


class McqAnswerRow(TypedDict):
    """One answer to an MCQ (`mcq_answers`); MCQs are numbered from 1 per character."""

    character: str  # who was asked
    mcq: int
    asker: str  # always `self`
    model: str
    question: str
    answer: str
    reading: str | None  # the option mark read, None when unreadable
    correct: str | None  # the right option's mark
    right: bool
