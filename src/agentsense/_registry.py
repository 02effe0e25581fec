"""Inspect's entry point: importing this module registers every task, scorer, metric and provider
of the package by name, loading none of the code behind them.

The tasks come from the task table (`agentsense.tasks`). Each benchmark package (`sense`,
`coser`, `construction`, `sotopia`) declares the scorers and metrics a log names (`inspect
score LOG`, `--scorer agentsense/critics`, a metric recomputed from a log header); a scorer's
body imports its implementation when it is made. A provider imports its class when its model
is first asked for, as Inspect's own providers do, so a `vllm/` run loads neither the stand-in
nor SmolLM. Not the hooks: Inspect lists every registered hook at the start of every run, so
AgentSense's are registered when one of its tasks is built.
"""

from __future__ import annotations

import importlib

from inspect_ai.model import ModelAPI, modelapi

from agentsense import construction, coser, sense
from agentsense.tasks import *  # every @task of the table  # noqa: F403

# By path: `from agentsense import sotopia` is the task of that name (agentsense.__init__).
sotopia = importlib.import_module("agentsense.sotopia")


@modelapi(name="standin")
def standin() -> type[ModelAPI]:
    from agentsense.standin.provider import StandInAPI

    return StandInAPI


@modelapi(name="smollm")
def smollm() -> type[ModelAPI]:
    from agentsense.smollm.provider import SmolLMAPI

    return SmolLMAPI


@modelapi(name="scanner-standin")
def scanner_standin() -> type[ModelAPI]:
    """Answers the LLM scanners' questions with the pattern rules (`agentsense.scanners`)."""
    from agentsense.standin.scanner import PatternModel

    return PatternModel


REGISTERED = (standin, smollm, scanner_standin, sense, coser, construction, sotopia)
