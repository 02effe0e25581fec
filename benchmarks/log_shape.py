"""Events per model call in AgentSense logs: how much Inspect writes beside each call.

    python benchmarks/log_shape.py LOG [LOG ...]      # logs of any agentsense task
    python benchmarks/log_shape.py --run 4    # a fresh `agentsense/full` run on 4 demo scenes

Prints, per log, the events of every sample per model call, by event type (span begin and end
counted apart), and the number of spans per model call. The stand-in provider plays every model
in `--run` (no server, no network): the shape of the log does not depend on the provider.
"""

from __future__ import annotations

import argparse
import collections
import tempfile
from collections.abc import Iterable
from pathlib import Path


def event_counts(log_path: str) -> tuple[int, collections.Counter[str]]:
    """(model calls, events by type) over every sample of one log."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(log_path)
    counts: collections.Counter[str] = collections.Counter()
    for sample in log.samples or []:
        counts.update(event.event for event in sample.events)
    return counts["model"], counts


def shape_lines(log_path: str) -> list[str]:
    calls, counts = event_counts(log_path)
    if not calls:
        return [f"{log_path}: no model calls"]
    total = sum(counts.values())
    by_type = ", ".join(f"{kind} {n / calls:.2f}" for kind, n in counts.most_common())
    return [
        f"{Path(log_path).name}: {calls} model calls, {total} events = "
        f"{total / calls:.2f} per call ({(total - calls) / calls:.2f} beside each call)",
        f"  per call: {by_type}",
    ]


def fresh_log(scenes: int, log_dir: str) -> str:
    from inspect_ai import eval

    from agentsense.tasks import full

    (log,) = eval(
        full(dataset="demo"),
        model="standin/persona/agent",
        model_roles={"judge": [f"standin/persona/judge-{k}" for k in "abc"]},
        limit=scenes,
        log_dir=log_dir,
        display="none",
    )
    if log.status != "success":
        raise SystemExit(f"the run did not succeed: {log.status} {log.error}")
    return log.location


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="*", help="logs to read")
    parser.add_argument("--run", type=int, metavar="N", help="run agentsense/full on N demo scenes")
    args = parser.parse_args(list(argv) if argv is not None else None)
    logs = list(args.logs)
    with tempfile.TemporaryDirectory() as tmp:
        if args.run:
            logs.append(fresh_log(args.run, tmp))
        for log in logs:
            print("\n".join(shape_lines(log)))


if __name__ == "__main__":
    main()
