"""A wrapper around a real judge that records what reaches it and can fail on purpose."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.judges.hf.encoded import EncodedRequest
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores


class Instrumented:
    """Delegates to `inner` (a real judge); records every batch; optional failures:
    `poison` (a target that makes its batch fail), `oom_above` (batches with more rows
    raise a CUDA-style out-of-memory error)."""

    def __init__(self, inner: Any, *, poison: str | None = None, oom_above: int | None = None):
        self.inner = inner
        self.poison = poison
        self.oom_above = oom_above
        self.batches: list[list[str]] = []  # targets of each batch that reached the model
        self.lengths: list[list[int]] = []  # token lengths of each such batch
        self.generated: list[GenerateRequest] = []

    @property
    def info(self) -> JudgeInfo:
        info: JudgeInfo = self.inner.info
        return info

    def encode_requests(self, requests: Sequence[ScoreRequest]) -> list[EncodedRequest]:
        encoded: list[EncodedRequest] = self.inner.encode_requests(requests)
        return encoded

    async def score_encoded(self, encoded: Sequence[EncodedRequest]) -> list[TokenScores]:
        targets = [e.request.target for e in encoded]
        if self.oom_above is not None and len(encoded) > self.oom_above:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        if self.poison is not None and self.poison in targets:
            raise ValueError(f"cannot score {self.poison!r}")
        self.batches.append(targets)
        self.lengths.append([e.length for e in encoded])
        result: list[TokenScores] = await self.inner.score_encoded(encoded)
        return result

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        return await self.score_encoded(self.encode_requests(requests))

    async def tokenize(self, texts: Sequence[str], dialect: str = "xgl") -> list[list[str]]:
        result: list[list[str]] = await self.inner.tokenize(texts, dialect)
        return result

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        self.generated.extend(requests)
        result: list[str] = await self.inner.generate(requests)
        return result

    async def aclose(self) -> None:
        await self.inner.aclose()


class TextOnly:
    """A judge without `encode_requests`: the pool must fall back to text keys."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seen: list[str] = []

    @property
    def info(self) -> JudgeInfo:
        info: JudgeInfo = self.inner.info
        return info

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        self.seen.extend(r.target for r in requests)
        result: list[TokenScores] = await self.inner.score(requests)
        return result

    async def tokenize(self, texts: Sequence[str], dialect: str = "xgl") -> list[list[str]]:
        result: list[list[str]] = await self.inner.tokenize(texts, dialect)
        return result

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        result: list[str] = await self.inner.generate(requests)
        return result

    async def aclose(self) -> None:
        await self.inner.aclose()
