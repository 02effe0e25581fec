"""`scanner-standin/patterns` (registered by the package's entry point): a model for checking
the LLM scanners offline. It answers the scanners' yes/no questions with the pattern rules of
`detect`, turn by turn, as the pattern scanners do: each assistant message of the transcript in
the prompt is a turn (`Name: text`), and a secret counts only in its own speaker's turn. Its
figures test the LLM scanners' plumbing (prompt, answer parsing, results), not a language model's
judgement. Token counts are estimated (no tokenizer download)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentsense.scanners import detect
from agentsense.scanners.llm import NO_SECRET
from agentsense.standin.provider import StandInAPI
from agentsense.standin.rules import Request, Rule

_SECRETS = re.compile(
    r"The characters hold these secrets, which they are meant to keep:\n(?P<secrets>.*?)\n\n"
    r"In any turn, does a character state or clearly reveal its own secret, in any wording\?",
    re.DOTALL,
)
# Scout's rendering of the transcript: `[M3] ASSISTANT:` headers (with a nonce in brackets, when
# Scout adds one) between the BEGIN and END TRANSCRIPT lines.
_TRANSCRIPT = re.compile(r"\[BEGIN TRANSCRIPT[^\]]*\]\n(?P<body>.*)\n\[END TRANSCRIPT", re.DOTALL)
_HEADER = re.compile(r"^\[M\d+\] (?P<role>[A-Z]+)(?: \([^)\n]*\))?:\n", re.MULTILINE)


@dataclass(frozen=True)
class PromptTurn:
    speaker: str | None  # None when the message has no `Name: ` prefix of a known character
    text: str


def assistant_messages(prompt: str) -> list[str]:
    """The text of each assistant message in the transcript Scout rendered into `prompt`."""
    found = _TRANSCRIPT.search(prompt)
    body = found["body"] if found else prompt
    body = body.rsplit("\n===", 1)[0] if found else body
    headers = list(_HEADER.finditer(body))
    ends = [h.start() for h in headers[1:]] + [len(body)]
    return [
        body[h.end() : end].strip()
        for h, end in zip(headers, ends, strict=True)
        if h["role"] == "ASSISTANT"
    ]


def turns(prompt: str, names: list[str]) -> list[PromptTurn]:
    """Each assistant message as a turn, its speaker read off its `Name: ` prefix."""
    found = []
    for message in assistant_messages(prompt):
        speaker = next((n for n in names if message.startswith(f"{n}: ")), None)
        text = message[len(speaker) + 2 :] if speaker else message
        found.append(PromptTurn(speaker, text))
    return found


def secrets(block: str) -> dict[str, str]:
    """`- Name: secret` lines of the secret-leak question -> {name: secret} (every character;
    the secret is empty for one that holds none)."""
    pairs = (line.removeprefix("- ").partition(": ") for line in block.splitlines())
    return {name: "" if secret == NO_SECRET else secret for name, _, secret in pairs if name}


def answer(prompt: str) -> bool:
    found = _SECRETS.search(prompt)
    if found is None:  # the character-break question
        return any(detect.character_break(message) for message in assistant_messages(prompt))
    held = secrets(found["secrets"])
    names = list(held)  # left out of the word count, as in the pattern scanner
    return any(
        detect.secret_leak(turn.text, held[turn.speaker], names)
        for turn in turns(prompt, names)
        if turn.speaker is not None and held[turn.speaker]
    )


def patterns(request: Request) -> str:
    verdict = "yes" if answer("\n".join(text for _, text in request.messages)) else "no"
    return f"ANSWER: {verdict}"


class PatternModel(StandInAPI):
    """The stand-in that answers with `patterns`, whatever its name."""

    def rule_and_name(self, model_name: str) -> tuple[Rule, str]:
        return patterns, model_name
