"""`scanner-standin/patterns` (registered by the package's entry point): a model for checking
the LLM scanners offline. It answers the scanners' yes/no questions with the pattern rules of
`detect` applied to the conversation in the prompt, so its figures test the LLM scanners'
plumbing (prompt, answer parsing, results), not a language model's judgement. Token counts
are estimated (no tokenizer download)."""

from __future__ import annotations

import re

from agentsense.scanners import detect
from agentsense.scanners.llm import CHARACTER_BREAK_QUESTION
from agentsense.standin.provider import StandInAPI
from agentsense.standin.rules import Request, Rule

_SECRETS = re.compile(
    r"The characters hold these secrets, which they are meant to keep:\n(?P<secrets>.*?)\n\n"
    r"In any turn, does a character state or clearly reveal its own secret, in any wording\?",
    re.DOTALL,
)


def answer(prompt: str) -> bool:
    found = _SECRETS.search(prompt)
    if found is None:
        return detect.character_break(prompt.replace(CHARACTER_BREAK_QUESTION, ""))
    rest = prompt[: found.start()] + prompt[found.end() :]
    secrets = [line[2:].partition(": ")[2] for line in found["secrets"].splitlines()]
    return any(detect.secret_leak(rest, secret) for secret in secrets if secret)


def patterns(request: Request) -> str:
    verdict = "yes" if answer("\n".join(text for _, text in request.messages)) else "no"
    return f"ANSWER: {verdict}"


class PatternModel(StandInAPI):
    """The stand-in that answers with `patterns`, whatever its name."""

    def rule_and_name(self, model_name: str) -> tuple[Rule, str]:
        return patterns, model_name
