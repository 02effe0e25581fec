"""Asking the builder model, reading its JSON, and repairing what cannot be read.

Every construction call goes through `ask`: the reply is parsed by the stage's parser; when that
fails, the model is asked again in the same conversation (the official `fix_prompt` with the
stage's JSON example and what was wrong), at most `max_repairs` times. An item that still fails
is dropped: the `Ledger` records the stage and the reason, the transcript shows it as an info
event, and the export summary lists it. Nothing is dropped silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Model,
)
from inspect_ai.util import span
from pydantic import BaseModel, Field

from agentsense.construction.prompts import FIX_JSON_PROMPT, FIX_REASON, FIX_YES_NO_PROMPT
from agentsense.engine.reply_json import NoJSON, reply_json

T = TypeVar("T")


class ParseError(ValueError):
    """A reply that does not hold what the stage needs; the message says what is wrong."""


class Drop(BaseModel):
    """An item the pipeline gave up on, and why."""

    stage: str
    item: str
    reason: str


class Ledger(BaseModel):
    """What the build cost and lost: calls and repairs per stage, and every dropped item."""

    calls: dict[str, int] = Field(default_factory=dict)
    repairs: dict[str, int] = Field(default_factory=dict)
    drops: list[Drop] = Field(default_factory=list)

    def drop(self, stage: str, item: str, reason: str) -> None:
        self.drops.append(Drop(stage=stage, item=item, reason=reason))
        transcript().info({"dropped": {"stage": stage, "item": item, "reason": reason}})

    def count(self, table: dict[str, int], stage: str) -> None:
        table[stage] = table.get(stage, 0) + 1


def extract_json(text: str) -> Any:
    """The first JSON value in a reply: whole, in a code fence, or embedded in prose.

    Trailing commas (as in the paper's own Prompt-11 example) are tolerated.
    """
    try:
        return reply_json(text, lenient=True)
    except NoJSON as error:
        raise ParseError(str(error)) from None


def parse_yes_no(text: str) -> bool:
    """Prompt 7: the first standalone Yes or No decides (not the code's substring "no")."""
    match = re.search(r"\b(yes|no)\b", text, re.I)
    if match is None:
        raise ParseError("the reply says neither Yes nor No")
    return match.group(1).lower() == "yes"


@dataclass(frozen=True)
class Stage(Generic[T]):
    """How one kind of call is read: its name, parser, and the example shown when repairing."""

    name: str
    parse: Callable[[str], T]
    example: str | None  # None: a Yes/No stage


class Asker:
    """The builder model with the build's sampling settings and repair budget."""

    def __init__(self, model: Model, config: GenerateConfig, max_repairs: int, ledger: Ledger):
        self.model = model
        self.config = config
        self.max_repairs = max_repairs
        self.ledger = ledger

    async def ask(self, stage: Stage[T], prompt: str, item: str) -> T | None:
        """The parsed reply, or None (the item is dropped and recorded).

        One span per item, named by its stage and prompt: the call and its repairs sit together.
        """
        async with span(stage.name, type="call"):
            return await self._ask(stage, prompt, item)

    async def _ask(self, stage: Stage[T], prompt: str, item: str) -> T | None:
        messages: list[ChatMessage] = [ChatMessageUser(content=prompt)]
        reason = ""
        for attempt in range(self.max_repairs + 1):
            self.ledger.count(self.ledger.calls, stage.name)
            if attempt:
                self.ledger.count(self.ledger.repairs, stage.name)
            output = await self.model.generate(messages, config=self.config)
            reply = output.completion or ""
            try:
                return stage.parse(reply)
            except ParseError as error:
                reason = str(error)
            messages = [*messages, ChatMessageAssistant(content=reply), _fix(stage, reason)]
        tries = "1 reply" if self.max_repairs == 0 else f"{self.max_repairs + 1} replies"
        self.ledger.drop(stage.name, item, f"{reason} ({tries})")
        return None


def _fix(stage: Stage[Any], reason: str) -> ChatMessageUser:
    if stage.example is None:
        return ChatMessageUser(content=FIX_YES_NO_PROMPT)
    text = FIX_JSON_PROMPT.format(example=stage.example) + " " + FIX_REASON.format(reason=reason)
    return ChatMessageUser(content=text)


# --- small readers shared by the stages --------------------------------------------------------


def as_object(value: Any, what: str) -> dict[str, Any]:
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        value = value[0]  # Prompts 1, 2 and 9 ask for a one-element list holding the object
    if not isinstance(value, dict):
        raise ParseError(f"expected a JSON object with {what}, found a {type(value).__name__}")
    return value


def text_field(data: dict[str, Any], key: str, *, empty_ok: bool = False) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        found = "nothing" if value is None else f"a {type(value).__name__}"
        raise ParseError(f'the key "{key}" must hold a string, found {found}')
    if not value.strip() and not empty_ok:
        raise ParseError(f'the key "{key}" is empty')
    return value.strip()


def text_list(data: dict[str, Any], key: str) -> list[str]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ParseError(f'the key "{key}" must hold a list of strings')
    return [v.strip() for v in value if v.strip()]
