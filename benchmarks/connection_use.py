"""How busy a run kept its connections, from the stub server's request log.

    python -m agentsense.standin.stub --latency 1.0 --log stub.jsonl &
    agentsense eval-parts agentsense/full --processes 2 ... --max-connections 64
    python benchmarks/connection_use.py stub.jsonl --connections 64

Prints the span from the first chat request to the last reply, the requests, the share of
`connections x span` the requests held (1.0: every connection busy all the time, the call-volume
bound of `schedule_bounds.py` met), and the connections in use second by second. A run is at
the call-volume bound only if this share is 1; what it loses is the span times (1 - share).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path


def chat_requests(log: Path) -> list[tuple[float, float]]:
    """(start, end) in seconds of each chat request the stub answered."""
    spans = []
    for line in log.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["method"] == "POST":
            spans.append((record["started"], record["started"] + record["duration"]))
    return spans


def busy_per_second(spans: list[tuple[float, float]]) -> list[float]:
    """Connection-seconds in use in each whole second from the first request on."""
    origin = min(start for start, _ in spans)
    busy = [0.0] * (int(max(end for _, end in spans) - origin) + 1)
    for start, end in spans:
        second = int(start - origin)
        while origin + second < end:
            low, high = origin + second, origin + second + 1
            busy[second] += min(end, high) - max(start, low)
            second += 1
    return busy


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path, help="the stub server's --log file")
    parser.add_argument("--connections", type=int, required=True)
    args = parser.parse_args(argv)
    spans = chat_requests(args.log)
    if not spans:
        parser.error(f"{args.log}: no chat requests")
    span = max(end for _, end in spans) - min(start for start, _ in spans)
    held = sum(end - start for start, end in spans)
    print(f"{len(spans)} requests over {span:.2f} s")
    print(f"connections held: {held / (args.connections * span):.3f} of {args.connections}")
    busy = busy_per_second(spans)
    print("in use, second by second:", " ".join(f"{b:.0f}" for b in busy))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
