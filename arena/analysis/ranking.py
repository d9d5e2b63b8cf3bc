"""Comparing two valuations of the same candidate moves (plain and epsilon-clipped judge):
rank correlation, near-optimal sets, regret and resolution. Pure functions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy.stats import spearmanr

from arena.analysis.candidates import Candidate
from arena.scoring import TIE_TOLERANCE_BITS


@dataclass(frozen=True)
class CandidateScore:
    """A candidate strategy and its value (bits; -inf if infeasible) under both judges."""

    origin: str
    moves: Candidate
    plain: float
    clipped: float


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties share their average rank); None if undefined
    (fewer than three pairs, or either side constant)."""
    if len(a) != len(b) or len(a) < 3 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    rho = float(spearmanr(a, b).statistic)
    return None if math.isnan(rho) else rho


def near_best(values: Sequence[float], tolerance: float) -> set[int]:
    """Indices whose value is within `tolerance` × spread of the best finite value."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return set()
    best, spread = max(finite), max(finite) - min(finite)
    slack = max(1e-9, tolerance * spread)
    return {i for i, v in enumerate(values) if math.isfinite(v) and v >= best - slack}


def regret(
    values: Sequence[float], chosen: set[int], reference: set[int]
) -> float:
    """How much worse than the best the worst of `chosen` is, as a fraction of the spread of
    the finite values (inf if a chosen move is infeasible; 0 without data)."""
    finite = [v for v in values if math.isfinite(v)]
    if not chosen or not finite:
        return 0.0
    worst = min(values[i] for i in chosen)
    if not math.isfinite(worst):
        return math.inf
    loss, spread = max(finite) - worst, max(finite) - min(finite)
    return 0.0 if loss <= 1e-9 else (loss / spread if spread > 0 else math.inf)


def resolution(scores: Sequence[CandidateScore], top: int = 3) -> float | None:
    """How much of the plain game's preference among its `top` best moves survives
    clipping: the clipped gap between the plain-best move and the worst of the others,
    divided by the plain gap. Near 0: the plain game picks its optimum by probabilities
    below epsilon (the paradoxical game). None when undefined (fewer than two feasible
    moves, or no plain gap)."""
    usable = [s for s in scores if math.isfinite(s.plain) and math.isfinite(s.clipped)]
    ranked = sorted(usable, key=lambda s: s.plain, reverse=True)[:top]
    if len(ranked) < 2:
        return None
    plain_gap = ranked[0].plain - min(s.plain for s in ranked[1:])
    if plain_gap <= TIE_TOLERANCE_BITS:  # the best moves tie: no preference to keep
        return None
    return (ranked[0].clipped - min(s.clipped for s in ranked[1:])) / plain_gap
