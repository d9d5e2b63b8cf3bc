"""Counters of a `JudgePool`: what the runtime reports as `JudgeStats` events and what a
benchmark needs to compute achieved FLOPs (token positions run and batch shapes)."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field


@dataclass
class PoolMetrics:
    requests: int = 0  # score requests received
    cache_hits: int = 0
    cache_misses: int = 0  # requests that needed a forward pass
    inflight_dedup: int = 0  # requests answered by an identical request already queued
    batches: int = 0
    batch_requests: int = 0  # requests over all batches (retries of split batches included)
    tokens_scored: int = 0  # target tokens that received a score
    tokens_processed: int = 0  # real token positions run through the model
    padded_tokens: int = 0  # positions incl. padding (rows × longest row unless packed)
    queue_wait_s: float = 0.0
    max_queue_wait_s: float = 0.0
    dispatched: int = 0
    failures: int = 0  # requests failed with an error
    oom_splits: int = 0
    error_splits: int = 0
    generate_cache_hits: int = 0
    active_s: float = 0.0  # wall time with at least one batch running
    shapes: deque[tuple[int, int]] = field(default_factory=lambda: deque(maxlen=10_000))
    _running: int = 0
    _active_since: float = 0.0

    def batch_started(
        self, rows: int, width: int, positions: int, padded: int | None = None
    ) -> None:
        if self._running == 0:
            self._active_since = time.perf_counter()
        self._running += 1
        self.batches += 1
        self.batch_requests += rows
        self.tokens_processed += positions
        self.padded_tokens += rows * width if padded is None else padded
        self.shapes.append((rows, width))

    def batch_finished(self) -> None:
        self._running -= 1
        if self._running == 0:
            self.active_s += time.perf_counter() - self._active_since

    def waited(self, seconds: float) -> None:
        self.dispatched += 1
        self.queue_wait_s += seconds
        self.max_queue_wait_s = max(self.max_queue_wait_s, seconds)

    def snapshot(self) -> dict[str, float]:
        active = self.active_s
        if self._running:
            active += time.perf_counter() - self._active_since
        return {
            "requests": float(self.requests),
            "cache_hits": float(self.cache_hits),
            "cache_misses": float(self.cache_misses),
            "inflight_dedup": float(self.inflight_dedup),
            "batches": float(self.batches),
            "mean_batch_size": self.batch_requests / self.batches if self.batches else 0.0,
            "tokens_scored": float(self.tokens_scored),
            "tokens_processed": float(self.tokens_processed),
            "padded_tokens": float(self.padded_tokens),
            "padding_ratio": (
                1.0 - self.tokens_processed / self.padded_tokens if self.padded_tokens else 0.0
            ),
            "tokens_per_s": self.tokens_processed / active if active > 0 else 0.0,
            "active_s": active,
            "mean_queue_wait_ms": (
                1000.0 * self.queue_wait_s / self.dispatched if self.dispatched else 0.0
            ),
            "max_queue_wait_ms": 1000.0 * self.max_queue_wait_s,
            "failures": float(self.failures),
            "oom_splits": float(self.oom_splits),
            "error_splits": float(self.error_splits),
            "generate_cache_hits": float(self.generate_cache_hits),
        }
