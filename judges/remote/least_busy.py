"""Several replicas of one judge behind one `Judge`: each call goes to the replica with the
fewest calls in flight, so a slow or busy server receives less work (issue 12: several
judge URLs are interchangeable, picked least busy)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from arena.least_busy import LeastBusy
from arena.protocols.dialect import Dialect
from arena.protocols.judge import GenerateRequest, Judge, JudgeInfo, ScoreRequest, TokenScores

T = TypeVar("T")


class LeastBusyJudge:
    """Replicas serving the same model; `info` is the first replica's."""

    def __init__(self, replicas: Sequence[Judge]) -> None:
        if not replicas:
            raise ValueError("LeastBusyJudge needs at least one replica")
        self.replicas = list(replicas)
        self.selector = LeastBusy(len(self.replicas))

    @property
    def info(self) -> JudgeInfo:
        return self.replicas[0].info

    async def _call(self, run: Callable[[Judge], Awaitable[T]]) -> T:
        with self.selector.pick() as index:
            return await run(self.replicas[index])

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        return await self._call(lambda judge: judge.score(requests))

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        return await self._call(lambda judge: judge.tokenize(texts, dialect))

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        return await self._call(lambda judge: judge.generate(requests))

    async def aclose(self) -> None:
        await asyncio.gather(*(judge.aclose() for judge in self.replicas))
