"""JudgePool: dynamic batching, deduplication and caching in front of any judge.

The pool is itself a `Judge`, so the runtime uses it transparently. `score()` splits a call
into one future per request. Each request is keyed by the judge's identity (name, model,
revision, dtype), its dialect and its token ids (when the backend can encode, see
`arena.judges.hf.encoded`; its texts otherwise). A key found in the LRU cache is answered at once; a
key already queued or running shares that computation; the rest queue up. A background task
forms batches of similar length under a padded-token budget (a packed-token budget for a
backend whose `packs_sequences` is true: it puts several requests in each row), waiting for
a batch to fill until the budget is reached, `max_wait_ms` have passed, or an event-loop
iteration brings no new request (every caller that was ready has submitted: waiting longer
would only idle the device), and runs up to `backend.parallelism` batches at once.

Failures stay local: a batch that fails is split in halves and retried, so a poisonous
request fails alone with a `JudgeError` naming it, and an out-of-memory batch is retried in
smaller pieces. Only the callers whose requests failed see an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache

from arena.errors import JudgeError
from arena.events import JudgeStats
from arena.judges.hf.batching import packed_cost, padded_cost, plan_batches, plan_packed_batches
from arena.judges.hf.encoded import EncodedRequest
from arena.judges.pool.metrics import PoolMetrics
from arena.protocols.dialect import Dialect
from arena.protocols.judge import (
    GenerateRequest,
    Judge,
    JudgeInfo,
    ScoreRequest,
    TokenScores,
)

log = logging.getLogger(__name__)


def is_out_of_memory(exc: BaseException) -> bool:
    """CUDA/MPS out-of-memory, recognised without importing torch."""
    return type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower()


@dataclass(eq=False)
class _Item:
    key: Hashable
    request: ScoreRequest
    encoded: EncodedRequest | None
    length: int
    future: asyncio.Future[TokenScores]
    enqueued: float = field(default_factory=time.perf_counter)


def _consume(fut: asyncio.Future[TokenScores]) -> None:
    # A shared future may fail after every caller gave up; mark its error as retrieved.
    if not fut.cancelled():
        fut.exception()


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class JudgePool:
    """A batching, caching `Judge` in front of `backend` (see the module docstring)."""

    def __init__(
        self,
        backend: Judge,
        *,
        max_batch_tokens: int = 8192,
        max_wait_ms: float = 5.0,
        cache_size: int = 100_000,
        max_batch_size: int = 1024,
        generate_cache_size: int = 1024,
        close_backend: bool = True,
    ) -> None:
        if max_batch_tokens < 1 or max_batch_size < 1 or max_wait_ms < 0:
            raise ValueError("max_batch_tokens, max_batch_size >= 1 and max_wait_ms >= 0")
        self.backend = backend
        self.max_batch_tokens = max_batch_tokens
        self.max_batch_size = max_batch_size
        self.max_wait_s = max_wait_ms / 1000.0
        self.close_backend = close_backend
        self._cache: LRUCache[Hashable, TokenScores] = LRUCache(maxsize=cache_size)
        self._gen_cache: LRUCache[Hashable, str] = LRUCache(maxsize=generate_cache_size)
        self._metrics = PoolMetrics()
        self._inflight: dict[Hashable, _Item] = {}
        self._pending: list[_Item] = []
        self._pending_tokens = 0
        self._arrivals = 0  # requests enqueued so far (tells a quiet event loop)
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._worker: asyncio.Task[None] | None = None
        self._wakeup: asyncio.Event | None = None
        self._slots: asyncio.Semaphore | None = None
        self._closed = False
        self._connected = False

    # ------------------------------------------------------------------ Judge protocol

    @property
    def info(self) -> JudgeInfo:
        return self.backend.info

    @property
    def parallelism(self) -> int:
        return int(getattr(self.backend, "parallelism", 1))

    @property
    def bos_text(self) -> str | None:
        value = getattr(self.backend, "bos_text", None)
        return value if isinstance(value, str) else None

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        await self._start()
        self._metrics.requests += len(requests)
        encoded = self._encode(requests)
        info = self.backend.info
        results: list[TokenScores | asyncio.Future[TokenScores]] = []
        for i, req in enumerate(requests):
            enc = encoded[i] if encoded is not None else None
            key = enc.cache_key(info) if enc is not None else _text_key(info, req)
            hit = self._cache.get(key)
            if hit is not None:
                self._metrics.cache_hits += 1
                results.append(hit)
                continue
            running = self._inflight.get(key)
            if running is not None:
                self._metrics.inflight_dedup += 1
                results.append(running.future)
                continue
            self._metrics.cache_misses += 1
            results.append(self._enqueue(key, req, enc))
        assert self._wakeup is not None
        self._wakeup.set()
        # Shield: a caller that is cancelled must not cancel work other callers share.
        return [r if isinstance(r, TokenScores) else await asyncio.shield(r) for r in results]

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        return await self.backend.tokenize(texts, dialect)

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        """Pass-through with a cache: samples are a pure function of the request."""
        info = self.backend.info
        keys = [
            (
                info.name,
                info.model,
                info.revision,
                info.dtype,
                r.prompt,
                r.max_tokens,
                r.seed,
                r.temperature,
            )
            for r in requests
        ]
        out: list[str | None] = [self._gen_cache.get(k) for k in keys]
        todo = [i for i, v in enumerate(out) if v is None]
        self._metrics.generate_cache_hits += len(requests) - len(todo)
        if todo:
            fresh = await self.backend.generate([requests[i] for i in todo])
            for i, text in zip(todo, fresh, strict=True):
                out[i] = text
                if self._gen_cache.maxsize:  # maxsize 0 turns the cache off
                    self._gen_cache[keys[i]] = text
        return [v if v is not None else "" for v in out]

    async def aclose(self) -> None:
        """Stop the worker, fail what is still queued, wait for running batches."""
        if self._closed:
            return
        self._closed = True
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
        self._fail_pending(JudgeError("The judge pool was closed before this request ran."))
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.close_backend:
            await self.backend.aclose()

    # ------------------------------------------------------------------ metrics

    def metrics(self) -> dict[str, float]:
        """Counters since creation (see `PoolMetrics.snapshot` for the keys), plus
        `queue_depth`: requests waiting for a batch now."""
        return {**self._metrics.snapshot(), "queue_depth": float(len(self._pending))}

    def batch_shapes(self) -> list[tuple[int, int]]:
        """(rows, longest row in tokens) of recent batches, oldest first."""
        return list(self._metrics.shapes)

    def stats_event(self, round: int, line: int) -> JudgeStats:
        return JudgeStats(round=round, line=line, stats=self.metrics())

    # ------------------------------------------------------------------ submission

    async def _start(self) -> None:
        if self._closed:
            raise JudgeError("The judge pool is closed; create a new JudgePool.")
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # first use, or a new event loop (e.g. a new asyncio.run)
            self._fail_pending(JudgeError("The judge pool's event loop changed."))
            self._loop = loop
            self._wakeup = asyncio.Event()
            self._slots = asyncio.Semaphore(max(1, self.parallelism))
            self._tasks = set()
            self._worker = loop.create_task(self._run(), name="judge-pool")
        if not self._connected:
            connect = getattr(self.backend, "connect", None)
            if connect is not None:
                await connect()
            self._connected = True

    def _encode(self, requests: Sequence[ScoreRequest]) -> list[EncodedRequest] | None:
        encode = getattr(self.backend, "encode_requests", None)
        if encode is None or not hasattr(self.backend, "score_encoded"):
            return None
        encoded: list[EncodedRequest] = encode(requests)
        return encoded

    def _enqueue(
        self, key: Hashable, req: ScoreRequest, enc: EncodedRequest | None
    ) -> asyncio.Future[TokenScores]:
        assert self._loop is not None
        fut: asyncio.Future[TokenScores] = self._loop.create_future()
        fut.add_done_callback(_consume)
        length = enc.length if enc is not None else (len(req.context) + len(req.target)) // 4 + 2
        item = _Item(key, req, enc, length, fut)
        if enc is not None and enc.n_scored == 0:  # nothing to score: no forward pass
            self._finish(item, TokenScores(tokens=(), bits=()))
            return fut
        self._inflight[key] = item
        self._pending.append(item)
        self._pending_tokens += length
        self._arrivals += 1
        return fut

    # ------------------------------------------------------------------ worker

    async def _run(self) -> None:
        try:
            await self._loop_forever()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug here must not leave callers waiting forever
            log.exception("judge pool worker stopped")
            self._fail_pending(JudgeError(f"The judge pool's worker stopped: {exc!r}"))
            self._loop = None  # the next call starts a new worker

    async def _loop_forever(self) -> None:
        assert self._wakeup is not None and self._slots is not None
        loop = asyncio.get_running_loop()
        while True:
            if not self._pending:
                self._wakeup.clear()
                await self._wakeup.wait()
                continue
            deadline = self._pending[0].enqueued + self.max_wait_s
            delay = deadline - time.perf_counter()
            filling = self._pending_tokens < self.max_batch_tokens and delay > 0
            if filling and not await self._quiet():
                continue
            await self._slots.acquire()
            batch = self._take_batch()
            if not batch:
                self._slots.release()
                continue
            task = loop.create_task(self._dispatch(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _quiet(self) -> bool:
        """Let the event loop run one iteration: True if it brought no new request."""
        seen = self._arrivals
        await asyncio.sleep(0)
        return self._arrivals == seen

    def _take_batch(self) -> list[_Item]:
        """The length-sorted batch under the budget that holds the oldest pending request."""
        lengths = [it.length for it in self._pending]
        plan = plan_packed_batches if self._packs() else plan_batches
        groups = plan(lengths, self.max_batch_tokens, self.max_batch_size)
        chosen = next(g for g in groups if 0 in g)
        picked = set(chosen)
        batch = [self._pending[i] for i in chosen]
        self._pending = [it for i, it in enumerate(self._pending) if i not in picked]
        self._pending_tokens -= sum(it.length for it in batch)
        return batch

    async def _dispatch(self, batch: list[_Item]) -> None:
        assert self._slots is not None
        now = time.perf_counter()
        for it in batch:
            self._metrics.waited(now - it.enqueued)
        try:
            await self._execute(batch)
        except Exception as exc:  # a bug must not leave this batch's callers waiting
            log.exception("judge pool batch failed unexpectedly")
            for it in batch:
                self._fail(it, exc)
        finally:
            self._slots.release()

    async def _execute(self, batch: list[_Item]) -> None:
        """Run one batch; on failure split it in halves and retry each, down to one request."""
        lengths = [it.length for it in batch]
        cost = packed_cost(lengths) if self._packs() else padded_cost(lengths)
        self._metrics.batch_started(len(batch), max(lengths), sum(lengths), cost)
        try:
            results = await self._call_backend(batch)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._metrics.batch_finished()
            if len(batch) > 1:
                oom = is_out_of_memory(exc)
                if oom:
                    self._metrics.oom_splits += 1
                else:
                    self._metrics.error_splits += 1
                log.debug("judge batch of %d failed (%s); splitting", len(batch), exc)
                half = len(batch) // 2
                await self._execute(batch[:half])
                await self._execute(batch[half:])
            else:
                self._fail(batch[0], exc)
            return
        self._metrics.batch_finished()
        for it, res in zip(batch, results, strict=True):
            self._metrics.tokens_scored += len(res.bits)
            if self._cache.maxsize:  # maxsize 0 turns the cache off
                self._cache[it.key] = res
            self._finish(it, res)

    def _packs(self) -> bool:
        return getattr(self.backend, "packs_sequences", False) is True

    async def _call_backend(self, batch: list[_Item]) -> list[TokenScores]:
        backend: Any = self.backend
        if all(it.encoded is not None for it in batch) and hasattr(backend, "score_encoded"):
            results: list[TokenScores] = await backend.score_encoded([it.encoded for it in batch])
        else:
            results = await backend.score([it.request for it in batch])
        if len(results) != len(batch):
            raise JudgeError(
                f"Judge '{self.backend.info.name}' returned {len(results)} results for "
                f"{len(batch)} requests; a judge must return one result per request."
            )
        return results

    def _finish(self, item: _Item, result: TokenScores) -> None:
        self._inflight.pop(item.key, None)
        if not item.future.done():
            item.future.set_result(result)

    def _fail(self, item: _Item, exc: Exception) -> None:
        self._metrics.failures += 1
        info = self.backend.info
        req = item.request
        if is_out_of_memory(exc):
            reason = (
                f"out of memory for a single sequence of {item.length} tokens. Lower "
                "max_batch_tokens, use dtype=bfloat16, or a device with more memory"
            )
        else:
            reason = f"{type(exc).__name__}: {exc}"
        error = JudgeError(
            f"Judge '{info.name}' ({info.model}) could not score target {_short(req.target)!r} "
            f"after context {_short(req.context)!r} (dialect {req.dialect}): {reason}"
        )
        error.__cause__ = exc
        self._inflight.pop(item.key, None)
        if not item.future.done():
            item.future.set_exception(error)

    def _fail_pending(self, error: JudgeError) -> None:
        for it in self._pending:
            self._inflight.pop(it.key, None)
            if not it.future.done():
                it.future.set_exception(error)
        self._pending = []
        self._pending_tokens = 0

    def __repr__(self) -> str:
        return (
            f"JudgePool({self.backend!r}, max_batch_tokens={self.max_batch_tokens}, "
            f"max_wait_ms={self.max_wait_s * 1000:g})"
        )


def _text_key(info: JudgeInfo, req: ScoreRequest) -> tuple[object, ...]:
    """Cache key for backends that cannot encode: the texts stand in for the token ids."""
    return (info.name, info.model, info.revision, info.dtype, req.dialect, req.context, req.target)
