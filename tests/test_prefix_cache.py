"""The prefix-cache simulator of `benchmarks/prefix_cache_sim.py` on hand-made token streams whose
hit rates are known, and once on a stub request log of a real `inspect eval` run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from agentsense.standin.stub.harness import InspectCLI
from agentsense.standin.stub.pytest_plugin import StubFactory

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"


def load_sim() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "prefix_cache_sim", BENCHMARKS / "prefix_cache_sim.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


sim = load_sim()


def tokens(seed: int, n: int) -> list[int]:
    """n distinct tokens of their own range, so streams of different seeds share none."""
    return [seed * 10_000 + i for i in range(n)]


def req(toks: list[int], model: str = "m") -> object:
    return sim.Request(model, toks)


def cached(stream: list[object], blocks: int) -> int:
    return int(sim.replay(stream, blocks).cached_tokens)


def test_identical_requests_hit_all_full_blocks_but_the_last_token() -> None:
    a = tokens(1, 40)  # 2 full blocks and 8 tokens
    done = sim.replay([req(a), req(a), req(a)], 100)
    assert done.prompt_tokens == 120
    assert done.cached_tokens == 0 + 32 + 32
    assert done.hit_rate == pytest.approx(64 / 120)


def test_a_prompt_of_whole_blocks_recomputes_its_last_block() -> None:
    a = tokens(1, 32)  # vLLM computes the last prompt token: only the first block can hit
    assert cached([req(a), req(a)], 100) == 16


def test_a_shared_prefix_shorter_than_a_block_is_a_miss() -> None:
    shared = tokens(1, 10)
    assert cached([req(shared + tokens(2, 30)), req(shared + tokens(3, 30))], 100) == 0
    # One full block shared: that block hits, the rest does not.
    shared = tokens(1, 16)
    assert cached([req(shared + tokens(2, 30)), req(shared + tokens(3, 30))], 100) == 16


def test_chain_hashing_the_same_block_after_another_prefix_is_a_miss() -> None:
    block = tokens(9, 16)
    first = tokens(1, 16) + block + [7]
    second = tokens(2, 16) + block + [7]
    assert cached([req(first), req(second)], 100) == 0
    assert sim.block_hashes("m", first)[1] != sim.block_hashes("m", second)[1]
    # Another model's identical prompt shares nothing either.
    assert cached([req(first, "judge-a"), req(first, "judge-b")], 100) == 0


def test_eviction_is_least_recently_used() -> None:
    a, b, c = (tokens(seed, 33) for seed in (1, 2, 3))  # 2 full blocks each
    # 4 blocks: A B fill it; A is touched again, so C evicts B, not A (FIFO would evict A).
    stream = [req(a), req(b), req(a), req(c), req(a), req(b)]
    done = sim.replay(stream, 4)
    assert done.cached_tokens == 32 + 32  # the 2nd and 3rd A; the last B missed
    assert done.evictions == 2 + 2  # C evicts B; B evicts C
    # Too small to hold A across B: every request misses.
    assert cached([req(a), req(b), req(a)], 2) == 0
    # Big enough: the repeat hits.
    assert cached([req(a), req(b), req(a)], 4) == 32


def test_a_requests_tail_is_evicted_before_its_head() -> None:
    a, b, c = tokens(1, 33), tokens(2, 17), tokens(3, 17)
    # 3 blocks: A's 2 and B's 1; C evicts one block, A's last (freed first), so A's head hits.
    assert cached([req(a), req(b), req(c), req(a)], 3) == 16


def test_bad_cache_size_is_refused() -> None:
    with pytest.raises(ValueError, match="blocks=0"):
        sim.replay([req(tokens(1, 20))], 0)


def unbounded_cached_tokens(stream: list[object]) -> int:
    """An independent reading of an unbounded cache: each request hits the full blocks of its
    longest common prefix with an earlier request of the same model (less the last token)."""
    total = 0
    for i, request in enumerate(stream):
        best = 0
        for earlier in stream[:i]:
            if earlier.model != request.model:  # type: ignore[attr-defined]
                continue
            n = 0
            for x, y in zip(earlier.tokens, request.tokens, strict=False):  # type: ignore[attr-defined]
                if x != y:
                    break
                n += 1
            best = max(best, n)
        usable = (len(request.tokens) - 1) // 16 * 16  # type: ignore[attr-defined]
        total += min(best // 16 * 16, usable)
    return total


@pytest.mark.slow
def test_a_stub_request_log_of_two_demo_scenes(
    stub_server: StubFactory, inspect_cli: InspectCLI, tmp_path: Path
) -> None:
    log = tmp_path / "requests.jsonl"
    stub = stub_server(log_path=log)
    judges = "judge=vllm/judge-a,vllm/judge-b,vllm/judge-c"
    args = ["eval", "agentsense/full", "-T", "dataset=demo", "--sample-id", "101,301"]
    args += ["--model", "vllm/agent", "--model-role", judges, "--display", "none"]
    result = inspect_cli.run(args, env={"VLLM_BASE_URL": stub.base_url})
    assert result.returncode == 0, result.output[-3000:]

    requests = sim.requests_from_log(log, sim.smollm2_tokenizer())
    chats = stub.chat_records()
    assert len(requests) == len(chats) > 50
    assert [r.model for r in requests] == [r.model for r in sorted(chats, key=lambda r: r.index)]
    # Every prompt renders to more tokens than its text has words (the template adds markers).
    assert all(len(r.tokens) > 20 for r in requests)
    small, large, unbounded = (sim.replay(requests, b) for b in (50, 2000, 10**9))
    assert 0 < small.hit_rate <= large.hit_rate <= unbounded.hit_rate < 1
    assert unbounded.evictions == 0
    assert unbounded.cached_tokens == unbounded_cached_tokens(requests)
