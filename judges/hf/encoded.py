"""Requests already turned into token ids, and the judges that accept them.

A judge that can tokenise without running its model (the HF judge) exposes
`encode_requests` and `score_encoded`; the `JudgePool` then deduplicates and caches by
token ids and budgets batches by exact sequence lengths. Other judges are pooled at
whole-request granularity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from arena.protocols.judge import Judge, JudgeInfo, ScoreRequest, TokenScores


@dataclass(frozen=True, eq=False)
class EncodedRequest:
    """One `ScoreRequest` as the model sees it: prefix + context + target token ids.

    `prefix_ids` is `(BOS,)` in dialect `xgl` and empty in `xent`; `target_pieces[i]` is the
    text of `target_ids[i]`. In dialect `xent` the first target token is not scored.
    """

    request: ScoreRequest
    prefix_ids: tuple[int, ...]
    context_ids: tuple[int, ...]
    target_ids: tuple[int, ...]
    target_pieces: tuple[str, ...]
    target_shown: tuple[str, ...] | None = None  # each token decoded alone, where it differs

    @property
    def scored_shown(self) -> tuple[str, ...] | None:
        return None if self.target_shown is None else self.target_shown[self.skip :]

    @property
    def skip(self) -> int:
        """How many leading target tokens are not scored."""
        return 1 if self.request.dialect == "xent" else 0

    @property
    def input_ids(self) -> tuple[int, ...]:
        return self.prefix_ids + self.context_ids + self.target_ids

    @property
    def length(self) -> int:
        return len(self.prefix_ids) + len(self.context_ids) + len(self.target_ids)

    @property
    def first_scored(self) -> int:
        """Index in `input_ids` of the first scored token (>= 1 whenever any is scored)."""
        return len(self.prefix_ids) + len(self.context_ids) + self.skip

    @property
    def n_scored(self) -> int:
        return max(0, len(self.target_ids) - self.skip)

    @property
    def scored_pieces(self) -> tuple[str, ...]:
        return self.target_pieces[self.skip :]

    def cache_key(self, info: JudgeInfo) -> tuple[object, ...]:
        """Identity of the result: same weights, numerics, dialect and token ids."""
        return (
            info.name,
            info.model,
            info.revision,
            info.dtype,
            self.request.dialect,
            self.prefix_ids + self.context_ids,
            self.target_ids,
        )


@runtime_checkable
class EncodingJudge(Judge, Protocol):
    """A judge that tokenises on the caller's thread and scores pre-tokenised batches."""

    def encode_requests(self, requests: Sequence[ScoreRequest]) -> list[EncodedRequest]:
        """Token ids of each request; raises `JudgeError` for a request it cannot score."""
        ...

    async def score_encoded(self, encoded: Sequence[EncodedRequest]) -> list[TokenScores]:
        """Like `Judge.score`, for requests from this judge's `encode_requests`."""
        ...
