"""The transfer oracle that scope growth (Algorithm 1) asks: V_G1(G2) of Def. 37 and the
fine-tuning playability of Def. 35, with intervals.

The real oracle (`arena.gamespace.transfer.measure`) fine-tunes and plays; tests of the algorithm's
logic use a deterministic stand-in with a known transfer matrix.

An undefined transfer value (Def. 37 needs a playable source: when the source's fine-tuning
gain interval is not above 0) is `UNDEFINED`, NaN in all three fields: NaN compares False
with every threshold, so it never satisfies ☽_α; `Estimate.defined` tells it apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from arena.protocols.sampler import ParentGame

GameText = ParentGame  # a game as text: name, version, file name, source


@dataclass(frozen=True)
class Estimate:
    """A measured value with its bootstrap interval (low <= value <= high, usually)."""

    value: float
    low: float
    high: float

    @property
    def defined(self) -> bool:
        """False for `UNDEFINED` (a transfer value whose source is not playable)."""
        return not math.isnan(self.value)


UNDEFINED = Estimate(math.nan, math.nan, math.nan)


@runtime_checkable
class TransferOracle(Protocol):
    """Answers Algorithm 1's questions about games."""

    async def transfer(self, source: GameText, target: GameText) -> Estimate:
        """V_source(target): how much fine-tuning on `source` helps at `target` (Def. 37)."""
        ...

    async def playable(self, game: GameText) -> Estimate:
        """S_G(F_G[M]) - S_G(M) (Def. 35: playable when the interval lies above zero)."""
        ...
