"""The transfer cover Δ_Γ(Σ) = min over G in Σ of max over G' in Γ of V_G'(G) (Def. 45):
how much Σ is guaranteed to be covered by Γ.

Only measured values count (a scope's archive measures the pairs Algorithm 1 needed, not
every pair); V_G(G) is 1 (Def. 37 divides by G's own gain), so a game of Γ covers itself.
A game of Σ with no measured defined value from Γ is `uncovered`; with any such game the
cover is -inf (nothing is guaranteed for it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Values = Mapping[tuple[str, str], float | None]  # (source, target) -> V_source(target)


@dataclass(frozen=True)
class Cover:
    """Δ_Γ(Σ), the games of Σ with no measured value from Γ, and the pairs measured."""

    value: float
    uncovered: tuple[str, ...]
    measured: int
    pairs: int


def transfer_cover(sigma: Sequence[str], gamma: Sequence[str], values: Values) -> Cover:
    """Δ_Γ(Σ) over the `values` known (games are keys such as the sha256 of their text)."""
    members = set(gamma)
    best: list[float] = []
    uncovered: list[str] = []
    measured = 0
    for game in sigma:
        found = [1.0] if game in members else []
        for source in gamma:
            if source == game or (source, game) not in values:
                continue
            measured += 1
            value = values[(source, game)]
            if value is not None and math.isfinite(value):
                found.append(value)
        if found:
            best.append(max(found))
        else:
            uncovered.append(game)
    value = -math.inf if uncovered or not best else min(best)
    pairs = sum(1 for g in sigma for s in gamma if s != g)
    return Cover(value, tuple(uncovered), measured, pairs)


__all__ = ["Cover", "transfer_cover"]
