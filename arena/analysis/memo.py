"""A judge wrapper that remembers scores, so that analyses replaying many similar rounds
(plain and clipped, one candidate against several replies) score each text once."""

from __future__ import annotations

from collections.abc import Sequence

from arena.protocols.dialect import Dialect
from arena.protocols.judge import (
    GenerateRequest,
    Judge,
    JudgeInfo,
    ScoreRequest,
    TokenScores,
)


class MemoJudge:
    """Serves repeated score and tokenize requests from memory (unbounded: one analysis).

    The wrapped judge is not owned: `aclose` is a no-op.
    """

    def __init__(self, judge: Judge) -> None:
        self.inner = judge
        self._scores: dict[ScoreRequest, TokenScores] = {}
        self._tokens: dict[tuple[str, Dialect], list[str]] = {}

    @property
    def info(self) -> JudgeInfo:
        return self.inner.info

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        missing = list(dict.fromkeys(r for r in requests if r not in self._scores))
        if missing:
            scored = await self.inner.score(missing)
            self._scores.update(zip(missing, scored, strict=True))
        return [self._scores[r] for r in requests]

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        missing = list(dict.fromkeys(t for t in texts if (t, dialect) not in self._tokens))
        if missing:
            pieces = await self.inner.tokenize(missing, dialect)
            self._tokens.update(((t, dialect), p) for t, p in zip(missing, pieces, strict=True))
        return [list(self._tokens[t, dialect]) for t in texts]

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        return await self.inner.generate(requests)

    async def aclose(self) -> None:
        return None
