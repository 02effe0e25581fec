"""`standin/<rule>/<name>`: a deterministic Inspect model provider that ships with the project.

It needs no network, no API key and no tokenizer download, so the README's smoke run and the test
suite work on a fresh, offline machine. It is a stand-in, not a language model: scores from it
say that the plumbing works, nothing about social intelligence.

    inspect eval agentsense/full -T dataset=demo --model standin/persona/agent \
        --model-role judge=standin/persona/judge-a,standin/persona/judge-b
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from agentsense.standin.rules import Request, Rule, standin_rule


def estimated_tokens(text: str) -> int:
    """Rough token counts, so Inspect never reaches for a tokenizer (offline)."""
    return len(text) // 4 + 1


class StandInAPI(ModelAPI):
    # Inspect passes base_url, api_key and -M model args by keyword; a stand-in needs none of them.
    def __init__(self, model_name: str, config: GenerateConfig | None = None, **_: Any) -> None:
        super().__init__(model_name, config=config or GenerateConfig())
        self.rule, self.name = self.rule_and_name(model_name)

    def rule_and_name(self, model_name: str) -> tuple[Rule, str]:
        return standin_rule(model_name)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput, ModelCall]:
        messages = [(message.role, message.text) for message in input]
        reply = self.rule(Request(self.name, messages, config.seed))
        output = ModelOutput.from_content(model=self.model_name, content=reply)
        prompt_tokens = estimated_tokens("".join(text for _, text in messages))
        output.usage = ModelUsage(
            input_tokens=prompt_tokens,
            output_tokens=estimated_tokens(reply),
            total_tokens=prompt_tokens + estimated_tokens(reply),
        )
        request = {
            "model": self.name,
            "messages": [{"role": r, "content": c} for r, c in messages],
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
        }
        return output, ModelCall.create(request, {"content": reply})

    async def count_text_tokens(self, text: str) -> int:
        return estimated_tokens(text)

    def max_connections(self) -> int:
        return 64
