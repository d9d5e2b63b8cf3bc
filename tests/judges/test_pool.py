"""JudgePool over the tiny HF judge: batching, dedup, cache, failure isolation, metrics."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from arena.errors import JudgeError
from arena.events import JudgeStats, event_from_json
from arena.judges.pool.judge_pool import JudgePool
from arena.protocols.judge import GenerateRequest, Judge, JudgeInfo, ScoreRequest

from .instrumented import Instrumented, TextOnly
from .test_hf import RAGGED, load_raw

pytestmark = pytest.mark.torch

MANY = [
    ScoreRequest(f"{w} sat on the {v} mat", f"A {v} {w} was here", d)
    for w in ("cat", "dog", "bird", "tree")
    for v in ("red", "very big blue", "")
    for d in ("xgl", "xent")
]


def close(a: Any, b: Any) -> bool:
    return a.tokens == b.tokens and all(
        abs(x - y) < 1e-4 for x, y in zip(a.bits, b.bits, strict=True)
    )


async def test_pool_is_a_judge_with_the_same_results(hf_judge: Any) -> None:
    pool = JudgePool(hf_judge, close_backend=False)
    assert isinstance(pool, Judge) and pool.info == hf_judge.info
    direct = await hf_judge.score(RAGGED)
    calls = await asyncio.gather(*(pool.score([r]) for r in RAGGED), pool.score(RAGGED))
    for i, want in enumerate(direct):
        assert close(calls[i][0], want) and close(calls[-1][i], want)
    assert await pool.tokenize(["a cat"]) == await hf_judge.tokenize(["a cat"])
    await pool.aclose()


async def test_identical_concurrent_requests_run_once(hf_judge: Any) -> None:
    backend = Instrumented(hf_judge)
    pool = JudgePool(backend, max_wait_ms=50)
    req = ScoreRequest("the cat sat", "a dog")
    results = await asyncio.gather(*(pool.score([req]) for _ in range(5)))
    assert sum(b.count("the cat sat") for b in backend.batches) == 1
    assert all(r == results[0] for r in results)
    assert pool.metrics()["inflight_dedup"] == 4
    await pool.aclose()


async def test_repeat_is_a_cache_hit(hf_judge: Any) -> None:
    backend = Instrumented(hf_judge)
    pool = JudgePool(backend)
    first = await pool.score([ScoreRequest("the cat sat", "a dog")])
    # same token ids: " a dog" is what the xgl convention makes of "a dog"
    again = await pool.score([ScoreRequest(" the cat sat", " a dog")])
    assert again == first and len(backend.batches) == 1
    m = pool.metrics()
    assert m["cache_hits"] == 1 and m["cache_misses"] == 1
    await pool.aclose()


async def test_batches_respect_the_token_budget(hf_judge: Any) -> None:
    backend = Instrumented(hf_judge)
    pool = JudgePool(backend, max_batch_tokens=64, max_wait_ms=20)
    direct = await hf_judge.score(MANY)
    got = await asyncio.gather(*(pool.score([r]) for r in MANY))
    assert all(close(g[0], d) for g, d in zip(got, direct, strict=True))
    assert len(backend.batches) > 1 and max(len(b) for b in backend.batches) > 1
    for lengths in backend.lengths:
        assert len(lengths) == 1 or len(lengths) * max(lengths) <= 64
        assert lengths == sorted(lengths, reverse=True)
    assert pool.batch_shapes() == [(len(x), max(x)) for x in backend.lengths]
    await pool.aclose()


async def test_a_failing_request_fails_alone(hf_judge: Any) -> None:
    backend = Instrumented(hf_judge, poison="poison pill")
    pool = JudgePool(backend, max_wait_ms=50)
    ok1, bad, ok2 = (ScoreRequest(t, "ctx") for t in ("the cat", "poison pill", "a dog"))
    results = await asyncio.gather(
        pool.score([ok1]), pool.score([bad]), pool.score([ok2]), return_exceptions=True
    )
    assert not isinstance(results[0], BaseException) and results[0][0].bits
    assert not isinstance(results[2], BaseException) and results[2][0].bits
    err = results[1]
    assert isinstance(err, JudgeError)
    assert "poison pill" in str(err) and "ValueError" in str(err)
    assert pool.metrics()["failures"] == 1 and pool.metrics()["error_splits"] >= 1
    # the pool keeps working, and the good results were cached
    n = len(backend.batches)
    assert (await pool.score([ok1, ok2]))[0] == results[0][0]
    assert len(backend.batches) == n
    await pool.aclose()


async def test_out_of_memory_splits_and_retries(hf_judge: Any) -> None:
    backend = Instrumented(hf_judge, oom_above=2)
    pool = JudgePool(backend, max_wait_ms=50)
    reqs = MANY[:8]
    direct = await hf_judge.score(reqs)
    got = await asyncio.gather(*(pool.score([r]) for r in reqs))
    assert all(close(g[0], d) for g, d in zip(got, direct, strict=True))
    assert pool.metrics()["oom_splits"] >= 1
    assert all(len(b) <= 2 for b in backend.batches)
    await pool.aclose()
    lone = JudgePool(Instrumented(hf_judge, oom_above=0), close_backend=False)
    with pytest.raises(JudgeError, match="out of memory for a single sequence"):
        await lone.score([ScoreRequest("the cat")])
    await lone.aclose()


async def test_metrics_and_stats_event(hf_judge: Any) -> None:
    pool = JudgePool(hf_judge, close_backend=False)
    results = await pool.score(RAGGED)
    m = pool.metrics()
    assert m["requests"] == len(RAGGED) and m["batches"] >= 1
    assert m["tokens_scored"] == sum(len(r.bits) for r in results)
    assert m["tokens_processed"] >= m["tokens_scored"] and m["tokens_per_s"] > 0
    assert m["mean_batch_size"] > 1 and m["mean_queue_wait_ms"] >= 0
    event = pool.stats_event(round=2, line=7)
    assert isinstance(event, JudgeStats) and event.stats == m
    assert event_from_json(event.model_dump_json()) == event
    await pool.aclose()


async def test_forward_passes_do_not_block_the_loop(
    tiny_model_dir: Path, torch_device: str
) -> None:
    from arena.judges.hf.judge import HFJudge

    model, tok = load_raw(tiny_model_dir)
    released = threading.Event()
    # The forward pass waits until the event loop has ticked: on the loop it would deadlock.
    model.base_model.register_forward_pre_hook(
        lambda *_a: None if released.wait(10) else (_ for _ in ()).throw(RuntimeError("blocked"))
    )
    backend = HFJudge([(model.to(torch_device), torch_device)], tok, JudgeInfo(name="h", model="t"))
    pool = JudgePool(backend)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        for _ in range(3):
            await asyncio.sleep(0.01)
            ticks += 1
        released.set()

    [scores], _ = await asyncio.gather(pool.score([ScoreRequest("the cat sat")]), ticker())
    assert ticks == 3 and scores.bits
    await pool.aclose()


async def test_cancelled_caller_does_not_cancel_shared_work(hf_judge: Any) -> None:
    backend = Instrumented(hf_judge)
    pool = JudgePool(backend, max_wait_ms=30)
    req = ScoreRequest("the bird flew", "over the river")
    first = asyncio.create_task(pool.score([req]))
    second = asyncio.create_task(pool.score([req]))
    await asyncio.sleep(0)
    first.cancel()
    [res] = await second
    assert res.bits and first.cancelled()
    await pool.aclose()


async def test_backend_without_encoding_is_pooled_by_text(hf_judge: Any) -> None:
    backend = TextOnly(hf_judge)
    pool = JudgePool(backend, max_wait_ms=30)
    direct = await hf_judge.score(RAGGED)
    got = await asyncio.gather(*(pool.score([r]) for r in RAGGED + RAGGED))
    assert all(close(g[0], d) for g, d in zip(got, direct + direct, strict=True))
    assert sorted(backend.seen) == sorted(r.target for r in RAGGED)
    await pool.aclose()


async def test_generate_is_cached(hf_judge: Any) -> None:
    backend = Instrumented(hf_judge)
    pool = JudgePool(backend)
    req = GenerateRequest("the cat", 6, 3)
    a = await pool.generate([req])
    b = await pool.generate([req, GenerateRequest("the cat", 6, 4)])
    assert a[0] == b[0] and len(backend.generated) == 2
    assert pool.metrics()["generate_cache_hits"] == 1
    await pool.aclose()


async def test_closed_pool_fails_clearly(hf_judge: Any) -> None:
    pool = JudgePool(hf_judge, close_backend=False)
    await pool.score([ScoreRequest("the cat")])
    await pool.aclose()
    assert pool._worker is not None and pool._worker.done()
    with pytest.raises(JudgeError, match="closed"):
        await pool.score([ScoreRequest("the dog")])
