"""The judge protocol: batched cross-entropy scoring, tokenisation and seeded generation.

The runtime only ever talks to a judge through this protocol, so a batching pool, a remote
judge or a test judge can stand behind it without the runtime knowing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from arena.protocols.dialect import Dialect


@dataclass(frozen=True)
class ScoreRequest:
    """Score `target` given `context` (what precedes it), per XGL.md section 7.

    The context and the target are tokenised separately and concatenated, so the target's
    tokens never depend on the context. Dialect `xgl` prepends BOS (or EOS) and scores every
    target token; dialect `xent` prepends nothing and never scores the first target token.
    """

    target: str
    context: str = ""
    dialect: Dialect = "xgl"


@dataclass(frozen=True)
class TokenScores:
    """Per-token cross-entropy of the scored target tokens, in bits.

    `tokens[i]` is the text of the token scored by `bits[i]`. An empty target gives empty
    tuples (value 0). `shown`, where it differs from `tokens`, is each token as the judge's
    tokenizer decodes it alone: a character whose bytes span several tokens is U+FFFD in
    each part (the reference implementation shows tokens so); None when they agree.
    """

    tokens: tuple[str, ...]
    bits: tuple[float, ...]
    shown: tuple[str, ...] | None = None

    @property
    def total(self) -> float:
        return float(sum(self.bits))


@dataclass(frozen=True)
class GenerateRequest:
    """Sample a continuation of `prompt` of about `max_tokens` tokens, seeded by `seed`."""

    prompt: str
    max_tokens: int
    seed: int
    temperature: float = 1.0


@dataclass(frozen=True)
class JudgeInfo:
    """Provenance recorded with every score: which model, which weights, which numerics."""

    name: str
    model: str
    revision: str = ""
    dtype: str = "float32"
    vocab_size: int = 0


@runtime_checkable
class Judge(Protocol):
    """A language model that scores text. All methods are batched and keep input order."""

    @property
    def info(self) -> JudgeInfo: ...

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        """Per-token cross-entropies (bits) for each request, in order."""
        ...

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        """Split each text into the judge's tokens as it splits a target of `dialect`
        (`xgl`: with its whitespace convention; `xent`: the text as written); the pieces
        concatenate to the text."""
        ...

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        """Seeded samples, reproducible across processes for the same judge and seed."""
        ...

    async def aclose(self) -> None:
        """Release models, threads and connections."""
        ...
