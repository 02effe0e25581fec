"""Run the stub server by hand:
`python -m agentsense.standin.stub --port 0 --latency 0.2 --fail-500 0.2`.

The first line on stdout is the base URL (for `VLLM_BASE_URL`); it serves until Ctrl-C or
SIGTERM, then prints how many chat requests ended in each outcome to stderr.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from agentsense.standin.rules import RULES
from agentsense.standin.stub.faults import Faults, Latency
from agentsense.standin.stub.server import USAGE_MODES, StubServer


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m agentsense.standin.stub",
        description="Local OpenAI-compatible stub server with deterministic replies and faults.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument(
        "--rule",
        default="auto",
        choices=["auto", *RULES],
        help="reply rule; auto: parity for models named parity/<name>, else persona",
    )
    parser.add_argument(
        "--latency",
        default="0",
        type=Latency.parse,
        help="SECONDS, uniform:LOW,HIGH, exp:MEAN or normal:MEAN,SD (default 0)",
    )
    parser.add_argument("--fail-500", type=float, default=0.0, help="rate of HTTP 500 replies")
    parser.add_argument("--fail-429", type=float, default=0.0, help="rate of HTTP 429 replies")
    parser.add_argument("--retry-after", type=float, default=1.0, help="429 Retry-After seconds")
    parser.add_argument("--hang", type=float, default=0.0, help="rate of requests never answered")
    parser.add_argument(
        "--hang-seconds",
        type=float,
        default=600.0,
        help="close a hung request after this long (default 600)",
    )
    parser.add_argument("--malformed", type=float, default=0.0, help="rate of broken-JSON replies")
    parser.add_argument("--drop", type=float, default=0.0, help="rate of dropped connections")
    parser.add_argument("--seed", type=int, default=0, help="seed of latency and fault draws")
    parser.add_argument(
        "--usage",
        default="counts",
        choices=USAGE_MODES,
        help="token counts in replies: counts (default), or as some servers do: zero (all 0), "
        "no-total (total_tokens 0), none (no usage field)",
    )
    parser.add_argument("--log", default=None, help="append every request to this JSONL file")
    parser.add_argument("--verbose", action="store_true", help="print each HTTP request")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    faults = Faults(
        error_500=args.fail_500,
        rate_limit_429=args.fail_429,
        hang=args.hang,
        malformed=args.malformed,
        drop=args.drop,
        retry_after=args.retry_after,
        hang_seconds=args.hang_seconds,
        seed=args.seed,
    )
    server = StubServer(
        rule=args.rule,
        latency=args.latency,
        faults=faults,
        host=args.host,
        port=args.port,
        log_path=args.log,
        verbose=args.verbose,
        usage=args.usage,
    )
    done = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server.start()
    print(server.base_url, flush=True)
    print(
        f"agentsense stub: rule={args.rule} latency={args.latency} usage={args.usage} "
        f"faults={faults}",
        file=sys.stderr,
        flush=True,
    )
    done.wait()
    counts = server.outcomes()
    server.stop()
    summary = ", ".join(f"{name}={n}" for name, n in sorted(counts.items())) or "no requests"
    print(f"agentsense stub: {sum(counts.values())} chat requests: {summary}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
