"""A CPU-time stack sampler, and which component of the stack a sample's work belongs to.

Used by `throughput.py`'s in-process profile (b) and, for the component names,
`profile_calls.py`.
"""

from __future__ import annotations

import signal
from collections import Counter
from types import FrameType

# Innermost first, the first library found on a stack names the component doing the work.
COMPONENTS = (
    ("agentsense", ("/agentsense/",)),
    ("openai SDK", ("/openai/",)),
    ("HTTP client (httpx, httpcore)", ("/httpx", "/httpcore", "/h11/")),
    ("Inspect event logging", ("/inspect_ai/log/", "/inspect_ai/event/", "/_eval/task/log.py")),
    ("Inspect model layer", ("/inspect_ai/model/",)),
    ("Inspect (other)", ("/inspect_ai/",)),
)


def is_generate(frame: FrameType) -> bool:
    code = frame.f_code
    return code.co_name == "generate" and code.co_filename.endswith("inspect_ai/model/_model.py")


def classify(frame: FrameType | None) -> tuple[str, bool]:
    """(component, charged to agentsense) of one stack sample; component 'idle' when waiting."""
    if frame is None or frame.f_code.co_name == "select":
        return "idle", False
    component, charged, decided = "", False, False
    while frame is not None:
        path = frame.f_code.co_filename
        if not component:
            component = next(
                (name for name, marks in COMPONENTS if any(m in path for m in marks)), ""
            )
        if not decided and "/agentsense/" in path:
            charged, decided = True, True
        elif not decided and is_generate(frame):
            decided = True
        frame = frame.f_back
    return component or "event loop, other", charged


class StackSampler:
    """Samples the main thread's stack every `interval` CPU seconds of the process (SIGPROF).

    A timer on CPU time, not a sampling thread: a thread only gets the GIL when the main thread
    lets go of it, so it would over-sample system calls (socket and SQLite I/O).
    """

    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.components: Counter[str] = Counter()
        self.charged = 0

    def _sample(self, signum: int, frame: FrameType | None) -> None:
        component, charged = classify(frame)
        self.components[component] += 1
        self.charged += charged

    def __enter__(self) -> StackSampler:
        signal.signal(signal.SIGPROF, self._sample)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        # Ignored, not default: a tick already pending would otherwise kill the process.
        signal.signal(signal.SIGPROF, signal.SIG_IGN)

    @property
    def busy(self) -> int:
        return sum(n for name, n in self.components.items() if name != "idle")
