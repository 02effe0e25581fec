"""Run a function in a new interpreter, for builds that must reach their own stub server.

Inspect keeps process-wide state per model name: its vLLM provider remembers the first base URL
a `vllm/NAME` model was made with (and so does the model cache), so a later `vllm/agent` in the
same xdist worker goes to an earlier test's stub, which is gone by then. A spawned process starts
without that state whatever ran before it in the worker.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import TypeVar

R = TypeVar("R")


def in_fresh_process(function: Callable[..., R], *args: object) -> R:
    """`function(*args)` in a spawned interpreter; its result (or exception) pickled back."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(function, args)
