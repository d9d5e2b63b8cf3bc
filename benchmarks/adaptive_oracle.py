"""Benchmark context: the most any pairing could save under the `settled` rule, knowing the truth.

For populations drawn as in `adaptive_bench.py` (evenly spaced strengths, gaps jittered by
+-30 %), the Fisher information of a design gives each participant's centred standard
deviation ``s``; the ranking is settled about when every adjacent pair has
``gap >= z (s_i + s_j)`` (the board's rank ranges come from marginal 95 % intervals). This
script finds the fewest matches that satisfy it the round robin's way and with the best
design (SLSQP on the log counts), *knowing the true strengths*: a guide to what adaptive
pairing can save under this rule, before any luck.

- **Head-to-head**: a design is a count of comparisons per pair; the round robin gives every
  pair the same count; a match is one comparison.
- **Eval**: a design is a count of maps per set of entrants, the sets being the full field
  and every window of neighbours in the true order (the sets an informed policy would open);
  a match is one entrant on one map, so a map of ``m`` entrants costs ``m``. Its ``m`` scores
  give the ``m (m - 1) / 2`` comparisons of the board, which share them: each counts
  ``map_share(m) = 3 / (m + 1)`` of an independent comparison (measured, see
  `arena.tournaments.ratings.adaptive.map_share`; the ``2 / m`` used before undervalued full
  maps). The round robin plays full maps. `eval_design_check.py` plays the best designs
  found here on the board itself: they do not settle it at the cost this count predicts,
  so for eval this bound is *optimistic*; the round robin's full maps do.

The last line is the median bound over the populations: ``oracle_savings=X``.

    PYTHONPATH=. python benchmarks/adaptive_oracle.py [--sizes 8,16] [--seeds 3]
        [--modes h2h,eval]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize

from arena.tournaments.ratings.adaptive import map_share
from benchmarks.adaptive_bench import GAPS

Z = 1.96
PRIOR = 0.01


class Design:
    """The units a design counts (pairs, or sets of entrants on one map), each as its
    information matrix per unit and its cost in matches."""

    def __init__(self, theta: np.ndarray, units: Sequence[tuple[int, ...]], shared: bool):
        n = len(theta)
        self.units = list(units)
        self.cost = np.array([len(u) if shared else 1.0 for u in self.units])
        self.info = np.zeros((len(self.units), n, n))
        for k, unit in enumerate(self.units):
            scale = map_share(len(unit)) if shared else 1.0
            for a, b in itertools.combinations(unit, 2):
                p = 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
                w = scale * p * (1.0 - p)
                self.info[k, a, a] += w
                self.info[k, b, b] += w
                self.info[k, a, b] -= w
                self.info[k, b, a] -= w
        self.gaps = theta[:-1] - theta[1:]
        self.centre = np.eye(n) - 1.0 / n

    def worst_ratio(self, counts: np.ndarray) -> float:
        """max over adjacent pairs of z (s_i + s_j) / gap (<= 1: settled)."""
        n = len(self.gaps) + 1
        hessian = PRIOR * np.eye(n) + np.tensordot(counts, self.info, axes=1)
        cov = self.centre @ np.linalg.pinv(hessian) @ self.centre
        sd = np.sqrt(np.maximum(np.diag(cov), 1e-12))
        return float(np.max(Z * (sd[:-1] + sd[1:]) / self.gaps))


def fewest(design: Design, start: np.ndarray) -> np.ndarray:
    """The cheapest counts that settle, SLSQP on log counts from `start` (a settled design):
    `start` itself when the optimiser does not reach a cheaper settled design."""
    cost = lambda y: float(design.cost @ np.exp(np.clip(y, -30, 30)))  # noqa: E731
    found = minimize(
        cost, np.log(np.maximum(start, 1e-6)), method="SLSQP",
        constraints=[{"type": "ineq", "fun": lambda y: 1.0 - design.worst_ratio(
            np.exp(np.clip(y, -30, 30)))}],
        options={"maxiter": 300},
    )
    counts = np.exp(np.clip(found.x, -30, 30))
    if design.worst_ratio(counts) > 1.001 or design.cost @ counts >= design.cost @ start:
        return start
    return counts


def round_robin(design: Design, even: np.ndarray) -> float:
    """The smallest multiple of `even` (the round robin's proportions) that settles."""
    low, high = 1e-3, 1e7
    for _ in range(60):
        mid = (low * high) ** 0.5
        low, high = (mid, high) if design.worst_ratio(mid * even) > 1.0 else (low, mid)
    return high


def population(size: int, gap: float, seed: int) -> np.ndarray:
    """True strengths, best first, drawn as `adaptive_bench.py` draws them."""
    rng = np.random.default_rng(seed)
    gaps = gap * rng.uniform(0.7, 1.3, size - 1)
    return np.concatenate([[0.0], -np.cumsum(gaps)])


def eval_designs(theta: np.ndarray) -> tuple[Design, np.ndarray, np.ndarray]:
    """The eval design space (every window of neighbours), the round robin's counts that
    just settle, and the best counts found (module docstring)."""
    size = len(theta)
    windows = [tuple(range(i, i + w)) for w in range(2, size + 1) for i in range(size - w + 1)]
    design = Design(theta, windows, shared=True)
    even = np.array([len(u) == size for u in windows], dtype=float)
    robin = round_robin(design, even) * even
    # SLSQP finds local optima here: start from the round robin and from every window
    # equally, and keep the cheaper design
    starts = [robin + 6e-3, round_robin(design, np.ones(len(even))) * np.ones(len(even))]
    best = min((fewest(design, s) for s in starts), key=lambda x: float(design.cost @ x))
    return design, robin, best


def bound(size: int, gap: float, seed: int, mode: str) -> tuple[float, float]:
    theta = population(size, gap, seed)
    if mode == "eval":
        design, robin, best = eval_designs(theta)
        return float(design.cost @ robin), float(design.cost @ best)
    design = Design(theta, list(itertools.combinations(range(size), 2)), shared=False)
    even = np.ones(len(design.units))
    scale = round_robin(design, even)
    return float(design.cost @ (scale * even)), float(design.cost @ fewest(design, scale * even))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8,16")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--modes", default="h2h,eval")
    args = parser.parse_args()
    print("population | round robin | best design | bound")
    bounds = []
    for mode in args.modes.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            for spread, gap in GAPS.items():
                for seed in range(args.seeds):
                    robin, best = bound(size, gap, seed, mode)
                    bounds.append(robin / best)
                    print(f"{mode} n={size} {spread} seed {seed} | {robin:.0f} | {best:.0f} | "
                          f"{robin / best:.2f}x", flush=True)
    print(f"oracle_savings={statistics.median(bounds):.2f}")


if __name__ == "__main__":
    main()
