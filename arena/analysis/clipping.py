"""ε-clipping of a judge's probabilities (paper Definition 30).

Clipping replaces -log p by -max(log p, log ε) for every token, i.e. a token's cross-entropy
in bits becomes min(bits, log2(1/ε)). The paper's default ε is 1/|V| (Remark 31): no token
may count as less likely than a uniform guess over the vocabulary.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from arena.errors import ConfigError
from arena.protocols.dialect import Dialect
from arena.protocols.judge import (
    GenerateRequest,
    Judge,
    JudgeInfo,
    ScoreRequest,
    TokenScores,
)


def default_epsilon(info: JudgeInfo) -> float:
    """1/|V| for a judge with a known vocabulary size, else ConfigError."""
    if info.vocab_size <= 1:
        raise ConfigError(
            f"Judge '{info.name}' does not report its vocabulary size, so the default "
            "epsilon 1/|V| is unknown. Pass an explicit epsilon, e.g. --epsilon 2e-5."
        )
    return 1.0 / info.vocab_size


def cap_for(epsilon: float) -> float:
    """The largest per-token cross-entropy, in bits, that clipping at `epsilon` allows."""
    if not 0.0 < epsilon < 1.0:
        raise ConfigError(f"epsilon must lie strictly between 0 and 1, got {epsilon!r}.")
    return math.log2(1.0 / epsilon)


def clip_bits(bits: Sequence[float], cap: float) -> tuple[float, ...]:
    """Per-token bits clipped at `cap` (values at or below it are unchanged)."""
    return tuple(min(b, cap) for b in bits)


class ClippedJudge:
    """A judge whose per-token cross-entropies are clipped at log2(1/ε) bits.

    Tokenisation and generation are the wrapped judge's. The wrapper does not own the
    wrapped judge: `aclose` is a no-op, the caller closes the judge it created.
    """

    def __init__(self, judge: Judge, epsilon: float | None = None) -> None:
        self.inner = judge
        self.epsilon = default_epsilon(judge.info) if epsilon is None else epsilon
        self.cap_bits = cap_for(self.epsilon)
        self._info = replace(judge.info, name=f"{judge.info.name}+clip({self.epsilon:.3g})")

    @property
    def info(self) -> JudgeInfo:
        return self._info

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        scored = await self.inner.score(requests)
        return [TokenScores(s.tokens, clip_bits(s.bits, self.cap_bits), s.shown) for s in scored]

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        return await self.inner.tokenize(texts, dialect)

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        return await self.inner.generate(requests)

    async def aclose(self) -> None:
        return None
