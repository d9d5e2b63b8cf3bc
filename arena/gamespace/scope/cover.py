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


# --- optimal eta-covers (Def. 45): the smallest Γ ⊂ Σ with Δ_Γ(Σ) >= η ----------------

EXACT_LIMIT = 16  # scopes up to this size are searched exhaustively (2^16 subsets)


@dataclass(frozen=True)
class EtaCover:
    """An η-cover Γ of Σ and how it was found.

    `exact`: Γ is optimal (minimal size, then maximal Δ_Γ(Σ), Def. 45). Otherwise Γ is the
    greedy set cover, at most H(|Σ|) = 1 + 1/2 + ... + 1/|Σ| times the optimal size
    (`bound`: the optimum has at least ceil(len(games) / bound) games). `games` is empty and
    `cover.value` -inf when no subset is an η-cover (a game of Σ no measured value covers)."""

    eta: float
    games: tuple[str, ...]
    cover: Cover
    exact: bool
    bound: float


def _covers(sigma: Sequence[str], values: Values, eta: float) -> dict[str, frozenset[str]]:
    """For each G' in Σ, the games G of Σ with V_G'(G) >= η (G' itself included)."""
    found: dict[str, frozenset[str]] = {}
    for source in sigma:
        reached = {source}
        for game in sigma:
            value = values.get((source, game))
            if game != source and value is not None and math.isfinite(value) and value >= eta:
                reached.add(game)
        found[source] = frozenset(reached)
    return found


def eta_cover(sigma: Sequence[str], values: Values, eta: float) -> EtaCover:
    """The optimal η-cover for |Σ| <= EXACT_LIMIT, else the greedy one with its bound."""
    from itertools import combinations

    games = list(dict.fromkeys(sigma))
    reach = _covers(games, values, eta)
    everything = frozenset(games)
    harmonic = sum(1.0 / k for k in range(1, len(games) + 1)) or 1.0
    if len(games) <= EXACT_LIMIT:
        for size in range(1, len(games) + 1):
            found = [
                subset for subset in combinations(games, size)
                if frozenset().union(*(reach[g] for g in subset)) == everything
            ]
            if found:
                best = max(found, key=lambda s: transfer_cover(games, s, values).value)
                return EtaCover(eta, best, transfer_cover(games, best, values), True, 1.0)
        return EtaCover(eta, (), transfer_cover(games, (), values), True, 1.0)
    chosen: list[str] = []
    left = set(everything)
    while left:
        pick = max(games, key=lambda g: (len(reach[g] & left), -games.index(g)))
        chosen.append(pick)
        left -= reach[pick]
    return EtaCover(eta, tuple(chosen), transfer_cover(games, chosen, values), False, harmonic)


__all__ += ["EXACT_LIMIT", "EtaCover", "eta_cover"]
