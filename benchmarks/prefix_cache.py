"""The server's side of the bill: prompt tokens and prefix-cache hit rates, agentsense vs official.

    python benchmarks/prefix_cache.py --official GITDIR [--scenes 24] [--keep DIR]
    python benchmarks/prefix_cache.py --agentsense-log A.jsonl --official-log O.jsonl

Runs each side once against the project's stub server (`python -m agentsense.standin.stub
--log FILE`, latency `--latency`, default 0), on the same scenes (the demo set) with 3 judges, as
`side_by_side.py` runs them (`inspect eval agentsense/full --max-connections C`; the official
`SENSE/run_eval.py --task_workers C` at the git directory's HEAD, copied out unmodified), and
replays each request log through `prefix_cache_sim.py` (vLLM's prefix caching: 16-token
blocks, chained hashes, LRU) at `--blocks` (default 500 and 2,000). Or reads two logs written
before (`--agentsense-log`, `--official-log`). `--keep DIR` keeps the logs.

Prints: requests, prompt tokens (SmolLM2 chat template and tokenizer), hit rate at each cache
size, for both sides.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from prefix_cache_sim import Replay, replay, requests_from_log, smollm2_tokenizer
from processes import isolated_env, stub_server, timed_child
from side_by_side import (
    DEFAULT_OFFICIAL_PYTHON,
    Variant,
    agentsense_command,
    official_command,
    official_tree,
    scenes_file,
)


def logged_run(args: argparse.Namespace, who: str, data: Path, work: Path) -> Path:
    """One run of `who` against a fresh stub that logs every request; the log's path."""
    run = Path(tempfile.mkdtemp(dir=work, prefix=f"{who}-"))
    log = run / "requests.jsonl"
    with stub_server(args.latency, log) as (base_url, _):
        if who == "official":
            command = official_command(args, data, run, base_url)
            timed_child(command, {**isolated_env(run, base_url)}, run / "run.out", args.tree)
        else:
            command = agentsense_command(args, data, run, Variant("agentsense"))
            timed_child(command, isolated_env(run, base_url), run / "run.out")
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(log, args.keep / f"{who}-{data.stem}.jsonl")
    return log


def table(results: dict[str, list[Replay]], blocks: Sequence[int]) -> str:
    head = "| side | requests | prompt tokens | " + " | ".join(
        f"hit rate, {b:,} blocks" for b in blocks
    )
    lines = [head + " |", "|---" * (3 + len(blocks)) + "|"]
    for who, done in results.items():
        rates = " | ".join(f"{r.hit_rate:.1%}" for r in done)
        lines.append(f"| {who} | {done[0].requests:,} | {done[0].prompt_tokens:,} | {rates} |")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official", type=Path, help="git directory of ljcleo/agent_sense")
    parser.add_argument("--official-python", type=Path, default=DEFAULT_OFFICIAL_PYTHON)
    parser.add_argument("--agentsense-log", type=Path, help="read this stub log, run nothing")
    parser.add_argument("--official-log", type=Path, help="read this stub log, run nothing")
    parser.add_argument("--scenes", type=int, default=24)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--blocks", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--keep", type=Path, help="copy the request logs into this folder")
    args = parser.parse_args(argv)
    if not args.official_log and not args.official:
        parser.error("give --official GITDIR (to run the official code) or --official-log FILE")
    if args.official and not args.official_log and not args.official_python.exists():
        parser.error(
            f"--official-python {args.official_python} does not exist: make a venv with "
            "`pip install autogen-agentchat==0.2.40 numpy tqdm pyyaml` and pass its python"
        )
    for name in ("agentsense_log", "official_log"):
        path = getattr(args, name)
        if path and not path.is_file():
            parser.error(f"--{name.replace('_', '-')} {path}: no such file")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    tokenize = smollm2_tokenizer()
    results: dict[str, list[Replay]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        data = scenes_file(work, args.scenes)
        for who in ("agentsense", "official"):
            log = getattr(args, f"{who}_log")
            if log is None:
                if who == "official":
                    args.tree = official_tree(args.official, work)
                log = logged_run(args, who, data, work)
            requests = requests_from_log(log, tokenize)
            results[who] = [replay(requests, blocks) for blocks in args.blocks]
            print(f"{who}: {log}: {len(requests)} requests", file=sys.stderr, flush=True)
    print(table(results, args.blocks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
