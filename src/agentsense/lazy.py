"""What the package registers with Inspect besides its tasks: the model providers, and the
scorers and metrics a log names (`inspect score LOG`, `--scorer agentsense/critics`, a metric
recomputed from a log header). A provider imports its code when its model is first asked for,
as Inspect's own providers do, so a `vllm/` run loads neither the stand-in nor SmolLM.
"""

from __future__ import annotations

from inspect_ai.model import ModelAPI, modelapi

# Each benchmark's package registers its scorers and metrics (light: no benchmark code).
from agentsense import construction, coser, sense


@modelapi(name="standin")
def standin() -> type[ModelAPI]:
    from agentsense.standin.provider import StandInAPI

    return StandInAPI


@modelapi(name="smollm")
def smollm() -> type[ModelAPI]:
    from agentsense.smollm.provider import SmolLMAPI

    return SmolLMAPI


REGISTERED = (standin, smollm, sense, coser, construction)
