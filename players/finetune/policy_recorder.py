"""The hf player as a policy being trained: it moves exactly as `hf:<model>` does at play time
(same prompt, truncation, sampling and parsing, `arena.players.local.hf_player`) and records,
for each move, the token ids of every prompt the model read and of every continuation it
sampled. REINFORCE (`arena.players.finetune.reinforce`) computes log p(continuation | prompt)
from them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.players.local.hf_player import HFPlayer, HFSettings, _Loaded
from arena.protocols.player import MoveRequest


@dataclass(frozen=True)
class Segment:
    """One generation: the prompt ids (1-d, as the model saw them) and the sampled ids."""

    prompt: Any
    continuation: Any

    @property
    def tokens(self) -> int:
        """Tokens the model processed for it: the prompt read and the tokens generated."""
        return int(self.prompt.shape[0]) + int(self.continuation.shape[0])


@dataclass
class RecordedMove:
    """One answered elicit: its generations (one per register without a chat template)."""

    segments: list[Segment] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.segments)


class RecordingHFPlayer(HFPlayer):
    """An `HFPlayer` on a given (trainable) model that records what it generated."""

    def __init__(
        self, settings: HFSettings, loaded: _Loaded, *, name: str, seed: int = 0
    ) -> None:
        super().__init__(settings, name=name, seed=seed)
        self._loaded = loaded
        self._current = RecordedMove()
        self.moves: list[RecordedMove] = []

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        return await asyncio.to_thread(self._recorded, request)

    def _recorded(self, request: MoveRequest) -> dict[str, str]:
        self._current = RecordedMove()
        moves = self._moves(self._loaded, request)
        self.moves.append(self._current)  # only answered moves: one per elicit_response
        return moves

    def _generate_ids(self, loaded: _Loaded, prompt: str) -> tuple[Any, Any]:
        ids, new = super()._generate_ids(loaded, prompt)
        self._current.segments.append(Segment(ids[0].detach().cpu(), new.detach().cpu()))
        return ids, new
