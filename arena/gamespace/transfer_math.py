"""The arithmetic of Def. 35 and Def. 37 on per-map scores, with bootstrap intervals.

Every score list holds S_G per evaluation map, paired across players and games: index i is
the same evaluation seed everywhere (`arena.gamespace.evaluate`). Intervals are percentile
bootstrap intervals over maps (`scipy.stats.bootstrap`, paired: one resample of map indices
is applied to every list at once, so the numerator and the denominator of V_G1(G2) move
together), seeded so the same scores always give the same interval.

Choices where the paper is silent:

- Def. 35's "strictly better in expectation" is decided at the interval: G is playable in
  fine-tuning mode by M when the whole interval of the gain S_G(F_G[M]) - S_G(M) lies above 0.
- Def. 37 is stated for a playable G1. V_G1(G2) is therefore *undefined* (None, with the
  reason) unless G1's gain interval lies above 0: a denominator whose interval contains 0
  would make the ratio and its interval arbitrarily large, and a negative one (tuning made
  G1 worse) would flip its sign. It is never reported as a huge number.
- Def. 37 is stated for a playable G2 as well ("of a playable Xent Game G1 for another
  playable game G2"): V_G1(G2) is undefined when G2 is not playable (its own Def. 35
  verdict, `target_playable`), even when the ratio could be computed. A game whose score
  no move can change is therefore never given a transfer value, in either direction.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.stats import bootstrap

from arena.errors import ConfigError

RESAMPLES = 2000
LEVEL = 0.95

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Interval:
    """A point value and its bootstrap interval (low <= high)."""

    value: float
    low: float
    high: float

    def above_zero(self) -> bool:
        return self.low > 0.0


@dataclass(frozen=True)
class Gain:
    """S_G(M) and S_G(F_G[M]) (means over maps) and the gain's interval: Def. 35's verdict."""

    before: float
    after: float
    gain: Interval

    @property
    def playable(self) -> bool:
        """Def. 35: fine-tuning made M strictly better at G (the interval lies above 0)."""
        return self.gain.above_zero()


@dataclass(frozen=True)
class TransferEstimate:
    """V_G1(G2) with its interval, or undefined (`value` None) with the reason."""

    value: Interval | None
    target_before: float
    target_after: float
    target_gain: Interval
    reason: str = ""

    @property
    def defined(self) -> bool:
        return self.value is not None


def _arrays(*lists: Sequence[float]) -> list[Array]:
    sizes = {len(values) for values in lists}
    if len(sizes) != 1:
        raise ConfigError(
            f"Paired scores need one value per evaluation map in every list, got lengths "
            f"{sorted(sizes)}. Evaluate every player on the same maps."
        )
    if sizes.pop() < 2:
        raise ConfigError(
            "A bootstrap interval over maps needs at least 2 evaluation maps. Give maps >= 2."
        )
    return [np.asarray(values, dtype=np.float64) for values in lists]


def _interval(
    data: list[Array], statistic: Callable[..., Array], seed: int, resamples: int, level: float
) -> Interval:
    """The statistic on `data` and its paired percentile bootstrap interval."""
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        point = float(statistic(*data, axis=-1))
        result = bootstrap(
            tuple(data), statistic, paired=True, vectorized=True, method="percentile",
            n_resamples=resamples, confidence_level=level, rng=np.random.default_rng(seed),
        )
    ci = result.confidence_interval
    return Interval(point, float(ci.low), float(ci.high))


def _mean_difference(before: Array, after: Array, axis: int = -1) -> Array:
    return np.asarray(np.mean(after - before, axis=axis))


def _ratio(
    source_before: Array, source_after: Array, target_before: Array, target_after: Array,
    axis: int = -1,
) -> Array:
    numerator = np.mean(target_after - target_before, axis=axis)
    return np.asarray(numerator / np.mean(source_after - source_before, axis=axis))


def gain(
    before: Sequence[float], after: Sequence[float], *, seed: int = 0,
    resamples: int = RESAMPLES, level: float = LEVEL,
) -> Gain:
    """Def. 35 on paired per-map scores of M (`before`) and F_G[M] (`after`) at G."""
    b, a = _arrays(before, after)
    interval = _interval([b, a], _mean_difference, seed, resamples, level)
    return Gain(float(b.mean()), float(a.mean()), interval)


def transfer_value(
    source_before: Sequence[float], source_after: Sequence[float],
    target_before: Sequence[float], target_after: Sequence[float], *, seed: int = 0,
    resamples: int = RESAMPLES, level: float = LEVEL, target_playable: bool = True,
) -> TransferEstimate:
    """V_G1(G2) = (S_G2(F_G1[M]) - S_G2(M)) / (S_G1(F_G1[M]) - S_G1(M)), Def. 37, on paired
    per-map scores (G1 = source, G2 = target); undefined unless G1 is playable and G2 is
    (`target_playable`: G2's own Def. 35 verdict; see above)."""
    data = _arrays(source_before, source_after, target_before, target_after)
    source = _interval(data[:2], _mean_difference, seed, resamples, level)
    target = _interval(data[2:], _mean_difference, seed, resamples, level)
    before, after = float(data[2].mean()), float(data[3].mean())
    if not source.above_zero():
        where = "contains 0" if source.high >= 0.0 else "lies below 0"
        reason = (
            f"undefined: the fine-tuning gain on the source game ({source.value:+.3g}, "
            f"interval [{source.low:.3g}, {source.high:.3g}]) {where}"
        )
        return TransferEstimate(None, before, after, target, reason)
    if not target_playable:
        reason = (
            "undefined: the target game is not playable (its own fine-tuning gain interval "
            "is not above 0; Def. 37 is stated for two playable games)"
        )
        return TransferEstimate(None, before, after, target, reason)
    value = _interval(data, _ratio, seed, resamples, level)
    if not (np.isfinite(value.low) and np.isfinite(value.high)):
        reason = "undefined: some resamples of the source gain are 0"
        return TransferEstimate(None, before, after, target, reason)
    return TransferEstimate(value, before, after, target)


__all__ = [
    "LEVEL", "RESAMPLES", "Gain", "Interval", "TransferEstimate", "gain", "transfer_value",
]
