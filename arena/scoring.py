"""The score math of SCORING.md, in one place: forfeit floor, running max, arms curve,
the playability verdicts (paper Definition 33) and the normalisations (SCORING.md section 3,
paper Definition 42).

Pure functions of numbers: the analysis tools (`arena games playability`) call them on the
rounds they just played, the ratings (`arena.tournaments.ratings.normalisation`) on stored match
records, so both read a forfeit, a running max or a normalised score the same way.

Forfeit floor (SCORING.md section 1): in numeric averages a forfeited round counts as the
worst non-forfeited score any participant got on that (game, role, map), minus one bit. A map
where nobody has a numeric score cannot be valued and is dropped.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from arena.errors import ConfigError

FORFEIT_PENALTY_BITS = 1.0  # a forfeit: this far below the worst non-forfeited score
TIE_TOLERANCE_BITS = 1e-6  # two scores this close are equal: a tie (SCORING.md section 4)
MAX_NORMALISED = 10.0  # a normalised score is clipped at this many times the base
FloatArray = NDArray[np.float64]
Curve = Sequence[float] | FloatArray  # arms_1 .. arms_K
Rounds = Sequence[float | None]  # one participant's round scores on one map; None = forfeited


def forfeit_floor(scores: Iterable[float | None]) -> float | None:
    """The value of a forfeit among `scores` (every non-forfeited score anyone got on one
    map): the worst of them minus one bit; None when there is none."""
    numeric = [s for s in scores if s is not None]
    return min(numeric) - FORFEIT_PENALTY_BITS if numeric else None


def running_max(rounds: Rounds, floor: float, horizon: int | None = None) -> FloatArray:
    """The best score among the first k rounds, k = 1..horizon (default: len(rounds)).

    Forfeited and missing rounds count as `floor`."""
    k_max = len(rounds) if horizon is None else horizon
    values = [floor if v is None else v for v in rounds[:k_max]]
    values += [floor] * (k_max - len(values))
    return np.maximum.accumulate(np.asarray(values, dtype=np.float64))


def arms_curve(
    per_map: Sequence[Rounds], floors: Sequence[float | None] | None = None
) -> tuple[list[float], int]:
    """(arms_1..arms_K, number of maps dropped): the mean over maps of the running max.

    `floors[i]` is map i's forfeit floor; by default each map's own scores set it (right
    when one participant played the map). Maps without a floor are dropped. K is the
    fewest rounds played on a kept map."""
    if floors is None:
        floors = [forfeit_floor(rounds) for rounds in per_map]
    kept = [(r, f) for r, f in zip(per_map, floors, strict=True) if f is not None]
    dropped = len(per_map) - len(kept)
    if not kept:
        return [], dropped
    horizon = min(len(r) for r, _ in kept)
    curves = [running_max(r, f, horizon) for r, f in kept]
    return [float(x) for x in np.mean(curves, axis=0)], dropped


def assess_curve(curve: Sequence[float], tolerance: float = 1e-9) -> tuple[int, int]:
    """(length of the initial strictly increasing run, number of strict increases).

    A step counts as an increase when arms_{k+1} > arms_k + tolerance."""
    rises = [b > a + tolerance for a, b in itertools.pairwise(curve)]
    leading = 0
    while leading < len(rises) and rises[leading]:
        leading += 1
    return leading, sum(rises)


def level_crossings(curve: Curve, theta: float, m: int) -> tuple[int, ...] | None:
    """The paper's thresholds k_1 < ... < k_m (1-based rounds): k_j is the first round whose
    arms exceeds b + j*theta, b = arms_1. None if some level is never exceeded or two levels
    are first exceeded at the same round (Definition 33 wants m distinct thresholds)."""
    _check_levels(theta, m)
    values = np.asarray(curve, dtype=np.float64)
    if values.size == 0:
        return None
    b = float(values[0])
    found: list[int] = []
    for j in range(1, m + 1):
        above = np.flatnonzero(values > b + j * theta)
        if above.size == 0:
            return None
        found.append(int(above[0]) + 1)
    if any(later <= earlier for earlier, later in itertools.pairwise(found)):
        return None
    return tuple(found)


@dataclass(frozen=True)
class PlayabilityLevels:
    """Paper Definition 33 measured on N maps, with probabilities from resampling the maps.

    Attributes:
        maps: N, the maps kept.
        epsilon: the tolerated failure probability.
        steps: m of the (N, eps, m) verdict; theta, levels: theta and m of (N, eps, theta, m).
        p_increasing: the share of resampled map sets whose arms curve increases strictly
            for at least `steps` steps.
        p_levels: the share whose curve exceeds b + j*theta first at distinct k_1 < .. < k_m.
        crossings: those k_j on the maps as played (None if not reached).
    """

    maps: int
    epsilon: float
    steps: int
    theta: float
    levels: int
    p_increasing: float
    p_levels: float
    crossings: tuple[int, ...] | None

    @property
    def playable(self) -> bool:
        """(N, eps, m)-playable: increasing for m steps with probability at least 1 - eps."""
        return self.p_increasing >= 1.0 - self.epsilon

    @property
    def playable_levels(self) -> bool:
        """(N, eps, theta, m)-playable: the m levels crossed with probability >= 1 - eps."""
        return self.p_levels >= 1.0 - self.epsilon


def playability_levels(
    per_map: Sequence[Rounds],
    *,
    steps: int,
    theta: float,
    levels: int = 2,
    epsilon: float = 0.1,
    resamples: int = 1000,
    seed: int = 0,
) -> PlayabilityLevels:
    """Estimate the (N, eps, m) and (N, eps, theta, m) verdicts of Definition 33.

    The probability over N-map samples is estimated by resampling the played maps with
    replacement (`resamples` draws, deterministic given `seed`)."""
    _check_levels(theta, levels)
    if not 0.0 <= epsilon < 1.0:
        raise ConfigError(f"epsilon must be in [0, 1), got {epsilon}.")
    floors = [forfeit_floor(rounds) for rounds in per_map]
    kept = [(r, f) for r, f in zip(per_map, floors, strict=True) if f is not None]
    if not kept:
        return PlayabilityLevels(0, epsilon, steps, theta, levels, 0.0, 0.0, None)
    horizon = min(len(r) for r, _ in kept)
    runs = np.stack([running_max(r, f, horizon) for r, f in kept])
    rng = np.random.default_rng(seed)
    increasing = crossed = 0
    for _ in range(resamples):
        curve = runs[rng.integers(0, len(kept), size=len(kept))].mean(axis=0)
        increasing += assess_curve(list(curve))[0] >= steps
        crossed += level_crossings(curve, theta, levels) is not None
    return PlayabilityLevels(
        maps=len(kept),
        epsilon=epsilon,
        steps=steps,
        theta=theta,
        levels=levels,
        p_increasing=increasing / resamples,
        p_levels=crossed / resamples,
        crossings=level_crossings(runs.mean(axis=0), theta, levels),
    )


def _check_levels(theta: float, m: int) -> None:
    if not (math.isfinite(theta) and theta > 0) or m < 1:  # nan compares false: ask for it
        raise ConfigError(f"Levels need theta > 0 and m >= 1, got theta={theta}, m={m}.")


# ---------------------------------------------------------------------------------------------
# Catch-up normalisation (SCORING.md section 3)


@dataclass(frozen=True)
class StepsFunction:
    """``steps_B``: fractional number of B's rounds needed to reach a value.

    Piecewise-linear inverse through (k, b_k) of the non-decreasing base curve; on a plateau it
    returns the first k reaching the value; beyond both ends it continues with the end segment's
    slope (the mean slope (b_K - b_1)/(K - 1) where that segment is flat); clipped at 0.
    """

    base: tuple[float, ...]
    slope_low: float
    slope_high: float

    @classmethod
    def from_curve(cls, curve: Curve) -> StepsFunction | None:
        """None when the base curve is flat (or has fewer than two rounds): not playable."""
        b = np.maximum.accumulate(np.asarray(curve, dtype=np.float64))
        if b.size < 2 or not b[-1] > b[0]:
            return None
        mean_slope = float(b[-1] - b[0]) / (b.size - 1)
        low = float(b[1] - b[0])
        high = float(b[-1] - b[-2])
        return cls(
            tuple(float(x) for x in b),
            low if low > 0 else mean_slope,
            high if high > 0 else mean_slope,
        )

    def __call__(self, value: float) -> float:
        b = self.base
        if value <= b[0]:
            steps = 1.0 - (b[0] - value) / self.slope_low
        else:
            j = int(np.searchsorted(b, value, side="left"))  # b[j-1] < value <= b[j]
            if j == len(b):
                steps = len(b) + (value - b[-1]) / self.slope_high
            else:
                steps = j + (value - b[j - 1]) / (b[j] - b[j - 1])
        return max(steps, 0.0)


def catch_up_scores(base_curve: Curve, curve: Curve) -> tuple[float, ...] | None:
    """``steps_B(arms_k(M)) / k`` for k = 1..len(curve), clipped to [0, 10]; None if the base
    curve is flat."""
    steps = StepsFunction.from_curve(base_curve)
    if steps is None:
        return None
    return tuple(
        min(max(steps(float(v)) / k, 0.0), MAX_NORMALISED) for k, v in enumerate(curve, start=1)
    )


# ---------------------------------------------------------------------------------------------
# The paper's threshold normalisation, narms (Definition 42)


@dataclass(frozen=True)
class ThresholdSpec:
    """The paper's threshold version (Definition 42): levels ``b + j * theta``, j = 1..m, where
    b is the base's first-round arms. Scores are in levels: reaching level j at the horizon
    scores j (affine in between, 0 at b, clipped at 0); passing level m first at fractional
    round tau* < l scores ``m * l / tau*`` (clipped at ``10 * m``). The base must reach level m
    within the horizon, otherwise the cell is flagged not playable."""

    theta: float
    m: int = 2


def threshold_scores(
    base_curve: Curve, curve: Curve, spec: ThresholdSpec
) -> tuple[float, ...] | None:
    """The paper's threshold narms for every horizon l = 1..len(curve) (see ThresholdSpec);
    None if the base never reaches level m."""
    _check_levels(spec.theta, spec.m)
    base = np.maximum.accumulate(np.asarray(base_curve, dtype=np.float64))
    b = float(base[0])
    top = b + spec.m * spec.theta
    if not np.any(base >= top):
        return None
    a = np.concatenate([[b], np.maximum.accumulate(np.asarray(curve, dtype=np.float64))])
    out = []
    for ell in range(1, a.size):
        if a[ell] <= top:
            out.append(max((a[ell] - b) / spec.theta, 0.0))
            continue
        tau = int(np.flatnonzero(a[: ell + 1] <= top)[-1])  # a[0] = b <= top always
        crossing = tau + (top - a[tau]) / (a[tau + 1] - a[tau])
        out.append(min(spec.m * ell / crossing, MAX_NORMALISED * spec.m))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Reference normalisation (SCORING.md section 3)


def reference_ratio(score: float, best: float) -> float:
    """One map's reference-normalised score: the score over |the best score on the map|."""
    return score / abs(best)
