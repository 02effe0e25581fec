"""The LLM scanners, for what a pattern misses (paraphrases): on the model role `scanner`.

    scout scan src/agentsense/scanners/llm.py -T LOGS --model-role scanner=MODEL

Each asks one yes/no question over the whole conversation (Scout's `llm_scanner`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from inspect_scout import Scanner, Transcript, llm_scanner, scanner

from agentsense.scanners.turns import characters

ROLE = "scanner"
NO_SECRET = "(no secret)"

CHARACTER_BREAK_QUESTION = (
    "This is a role-play: each assistant message is a character's turn, written by a language "
    "model playing that character. In any turn, does a character step out of the role and speak "
    "as an AI, a language model or an assistant (for example mention being an AI, its training, "
    "the role-play or simulation itself), including in paraphrase?"
)


async def secret_leak_question(transcript: Transcript) -> str:
    # Every character, so that each turn's speaker is known (and its name is not a clue).
    secrets = "\n".join(
        f"- {name}: {secret or NO_SECRET}"
        for name, secret in characters(transcript.metadata).items()
    )
    return (
        "This is a role-play: each assistant message is a character's turn. The characters hold "
        f"these secrets, which they are meant to keep:\n{secrets or '- (none)'}\n\nIn any turn, "
        "does a character state or clearly reveal its own secret, in any wording?"
    )


def yes_no_scanner(
    question: str | Callable[[Transcript], Awaitable[str]], model: str | None
) -> Scanner[Transcript]:
    """Scout's `llm_scanner` asking `question` of `model`, else of the model role `scanner`."""
    return llm_scanner(
        question=question, answer="boolean", model=model, model_role=None if model else ROLE
    )


@scanner(messages="all", metadata=True)
def character_break_llm(model: str | None = None) -> Scanner[Transcript]:
    """A character speaks as an AI or assistant, also in paraphrase (model role `scanner`)."""
    return yes_no_scanner(CHARACTER_BREAK_QUESTION, model)


@scanner(messages="all", metadata=True)
def secret_leak_llm(model: str | None = None) -> Scanner[Transcript]:
    """A character states its own secret, also in paraphrase (model role `scanner`)."""
    return yes_no_scanner(secret_leak_question, model)
