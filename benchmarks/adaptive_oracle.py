"""Benchmark context: the most any pairing could save under the `settled` rule, knowing the truth.

For head-to-head populations drawn as in `adaptive_bench.py` (evenly spaced strengths,
gaps jittered by +-30 %), the Fisher information of a design (how many comparisons each
pair gets) gives each participant's centred standard deviation ``s``; the ranking is
settled about when every adjacent pair has ``gap >= z (s_i + s_j)`` (the board's rank
ranges come from marginal 95 % intervals). This script finds the fewest comparisons that
satisfy it with equal counts per pair (the round robin) and with the best allocation over
pairs (SLSQP on the log counts), *knowing the true strengths*: an upper bound on what
adaptive pairing can save under this rule, before any luck. The last line is the median
bound over the populations: ``oracle_savings=X``.

    PYTHONPATH=. python benchmarks/adaptive_oracle.py [--sizes 8,16] [--seeds 3]
"""

from __future__ import annotations

import argparse
import itertools
import statistics

import numpy as np
from scipy.optimize import minimize

from benchmarks.adaptive_bench import GAPS

Z = 1.96
PRIOR = 0.01


def worst_ratio(counts: np.ndarray, pairs: list[tuple[int, int]], info: np.ndarray,
                gaps: np.ndarray) -> float:
    """max over adjacent pairs of z (s_i + s_j) / gap (<= 1: settled)."""
    n = len(gaps) + 1
    hessian = PRIOR * np.eye(n)
    for (a, b), c, w in zip(pairs, counts, info, strict=True):
        hessian[a, a] += c * w
        hessian[b, b] += c * w
        hessian[a, b] -= c * w
        hessian[b, a] -= c * w
    centre = np.eye(n) - 1.0 / n
    sd = np.sqrt(np.maximum(np.diag(centre @ np.linalg.pinv(hessian) @ centre), 1e-12))
    return float(max(Z * (sd[i] + sd[i + 1]) / gaps[i] for i in range(n - 1)))


def bound(size: int, gap: float, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    gaps = gap * rng.uniform(0.7, 1.3, size - 1)
    theta = np.concatenate([[0.0], -np.cumsum(gaps)])
    pairs = list(itertools.combinations(range(size), 2))
    p = np.array([1.0 / (1.0 + np.exp(-(theta[a] - theta[b]))) for a, b in pairs])
    info = p * (1.0 - p)
    low, high = 1.0, 1e7  # the round robin: equal counts, bisected on the total
    for _ in range(60):
        mid = (low * high) ** 0.5
        if worst_ratio(np.full(len(pairs), mid / len(pairs)), pairs, info, gaps) > 1.0:
            low = mid
        else:
            high = mid
    robin = high
    start = np.log(np.full(len(pairs), robin / len(pairs)))
    found = minimize(
        lambda y: float(np.exp(np.clip(y, -30, 30)).sum()), start, method="SLSQP",
        constraints=[{"type": "ineq", "fun": lambda y: 1.0 - worst_ratio(
            np.exp(np.clip(y, -30, 30)), pairs, info, gaps)}],
        options={"maxiter": 300},
    )
    best = float(np.exp(np.clip(found.x, -30, 30)).sum())
    if worst_ratio(np.exp(np.clip(found.x, -30, 30)), pairs, info, gaps) > 1.001:
        best = robin  # the optimiser did not reach a feasible design: no saving claimed
    return robin, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8,16")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    print("population | round robin | best allocation | bound")
    bounds = []
    for size in (int(s) for s in args.sizes.split(",")):
        for spread, gap in GAPS.items():
            for seed in range(args.seeds):
                robin, best = bound(size, gap, seed)
                bounds.append(robin / best)
                print(f"h2h n={size} {spread} seed {seed} | {robin:.0f} | {best:.0f} | "
                      f"{robin / best:.2f}x", flush=True)
    print(f"oracle_savings={statistics.median(bounds):.2f}")


if __name__ == "__main__":
    main()
