"""The few-shot playability filter (Def. 33) as a test a non-learning player fails.

Why not Def. 33's curve alone: arms_k, the mean running max, rises for *any* player whose
scores vary, learning or not: the best of k independent draws grows with k. A random
player passed the old filter (N = 2 maps, m = 2) with probability 5/12, and 37 times in
80 on the paper's games (issue 19).

The test: under "the player does not learn in context", the rounds of a map are
exchangeable (same map, same game, nothing carried over that helps), so every order of a
map's scores is as likely as the one played. The statistic is the summed trend
T = sum over maps and rounds of (k - mean k) * S_k (scores rising with the round make it
large); its p-value is the share of within-map shuffles (`resamples`, seeded) whose T is
at least the observed one. A game passes when p <= eps, so a non-learning player passes
with probability at most eps whatever N and m (an exact permutation test), and a learner
passes when its scores rise over the rounds of most maps (the power, measured in
benchmarks/gamespace_calibration.py --part filter). Forfeited rounds count as the map's
forfeit floor (SCORING.md section 1).

Defaults (N = 4 maps, m = 6 rounds, eps = 0.01, base `search`, which seeds each move with
its earlier best: a player that learns in context). Why eps = 0.01 and not 0.05: a
non-learner's scores are continuous, so its p-value is uniform and it passes at rate eps
itself; at 0.05 `random` passed 14 times in 276 on single_text (5.1 %, an interval that
cannot show <= 5 %), at 0.01 it passed 0 times in 276. The learner loses nothing: with
4 x 6 scores the smallest p-value is 1 / (resamples + 1), and `search` reached it in 29
trials of 29 on single_text. The pass rates at these defaults, with their Wilson intervals
(the power), are what benchmarks/gamespace_calibration.py --part filter prints; the
pipeline (`arena.gamespace.sampling.pipeline`) uses this test by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.scoring import forfeit_floor

MAPS = 4  # N
ROUNDS = 6  # m: rounds per map, the player remembering its earlier rounds
EPSILON = 0.01  # the bound on a non-learner's pass rate (see the module docstring)
BASE = "search"
RESAMPLES = 2000


@dataclass(frozen=True)
class TrendTest:
    """The observed trend statistic, its permutation p-value and the verdict at eps."""

    statistic: float
    p_value: float
    epsilon: float
    maps: int

    @property
    def passed(self) -> bool:
        return self.p_value <= self.epsilon


def trend_test(
    per_map: Sequence[Sequence[float | None]], *, epsilon: float = EPSILON,
    resamples: int = RESAMPLES, seed: int = 0,
) -> TrendTest:
    """The exact-under-exchangeability trend test of the module docstring."""
    rows = []
    for rounds in per_map:
        floor = forfeit_floor(rounds)
        if floor is None or len(rounds) < 2:
            continue  # nobody scored: nothing to order
        rows.append([floor if s is None else s for s in rounds])
    if not rows:
        return TrendTest(0.0, 1.0, epsilon, 0)
    horizon = min(len(r) for r in rows)
    scores = np.asarray([r[:horizon] for r in rows], dtype=np.float64)
    weights = np.arange(horizon, dtype=np.float64) - (horizon - 1) / 2
    observed = float((scores * weights).sum())
    rng = np.random.default_rng(seed)
    keys = rng.random((resamples, *scores.shape))
    order = np.argsort(keys, axis=2)
    shuffled = np.take_along_axis(np.broadcast_to(scores, keys.shape), order, axis=2)
    null = (shuffled * weights).sum(axis=(1, 2))
    p_value = float((1 + np.sum(null >= observed - 1e-9)) / (1 + resamples))
    return TrendTest(observed, p_value, epsilon, len(rows))


def false_pass_bound(epsilon: float, trials: int) -> float:
    """P(a non-learning player passes at least once in `trials` independent games) <=
    1 - (1 - eps)^trials: what a run of the filter over many candidates can let through."""
    return 1 - (1 - epsilon) ** trials


__all__ = ["BASE", "EPSILON", "MAPS", "ROUNDS", "TrendTest", "false_pass_bound", "trend_test"]
