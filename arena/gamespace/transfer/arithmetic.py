"""The arithmetic of Def. 35 and Def. 37 on per-map scores, with bootstrap intervals.

Every score list holds S_G per evaluation map, paired across players and games: index i is
the same evaluation seed everywhere (`arena.gamespace.transfer.evaluate`). Intervals are percentile
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
    reason = _undefined_reason(source, target_playable)
    if reason:
        return TransferEstimate(None, before, after, target, reason)
    value = _interval(data, _ratio, seed, resamples, level)
    if not (np.isfinite(value.low) and np.isfinite(value.high)):
        reason = "undefined: some resamples of the source gain are 0"
        return TransferEstimate(None, before, after, target, reason)
    return TransferEstimate(value, before, after, target)


__all__ = [
    "LEVEL", "RESAMPLES", "Gain", "Interval", "TransferEstimate", "gain", "transfer_value",
]


# --- R fine-tuning runs x K maps: the two-level bootstrap ---------------------------------


def _runs_arrays(before: Sequence[float], after: Sequence[Sequence[float]]) -> tuple[Array, Array]:
    b = np.asarray(before, dtype=np.float64)
    a = np.asarray([list(run) for run in after], dtype=np.float64)
    if a.ndim != 2 or a.shape[0] < 1 or a.shape[1] != b.shape[0]:
        raise ConfigError(
            f"Scores of R fine-tuning runs need one list of {b.shape[0]} map scores per run, "
            f"got shape {a.shape}. Evaluate every run on the same maps."
        )
    if b.shape[0] < 2:
        raise ConfigError(
            "A bootstrap interval over maps needs at least 2 evaluation maps. Give maps >= 2."
        )
    return b, a


Indices = NDArray[np.int64]


def _draws(runs: int, maps: int, seed: int, resamples: int) -> tuple[Indices, Indices]:
    """Two-level resampling indices: runs with replacement, then, for each drawn run, maps
    with replacement (the same map draw is applied to every game's scores: paired)."""
    rng = np.random.default_rng(seed)
    run_idx = rng.integers(0, runs, size=(resamples, runs))
    map_idx = rng.integers(0, maps, size=(resamples, runs, maps))
    return run_idx, map_idx


def _run_gains(
    before: Array, after: Array, run_idx: Indices, map_idx: Indices
) -> Array:
    """Per resample: the mean over drawn runs and their drawn maps of after - before."""
    diff = after - before[None, :]
    picked = diff[run_idx[:, :, None], map_idx]
    return np.asarray(picked.mean(axis=(1, 2)))


def _percentiles(values: Array, level: float) -> tuple[float, float]:
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class RunsGain:
    """Def. 35 over R fine-tuning runs x K maps: the gain's two-level interval and how many
    runs, judged alone (their own map bootstrap), reach the same verdict."""

    gain: Gain
    run_gains: tuple[Interval, ...]

    @property
    def playable(self) -> bool:
        return self.gain.playable

    @property
    def agreeing(self) -> int:
        """Runs whose own verdict equals the combined one."""
        return sum(run.above_zero() == self.playable for run in self.run_gains)


def runs_gain(
    before: Sequence[float], after: Sequence[Sequence[float]], *, seed: int = 0,
    resamples: int = RESAMPLES, level: float = LEVEL,
) -> RunsGain:
    """The gain over R runs: point value the mean over runs and maps, interval from the
    two-level bootstrap (runs, then maps), so the fine-tuning's own randomness widens it."""
    b, a = _runs_arrays(before, after)
    run_idx, map_idx = _draws(a.shape[0], b.shape[0], seed, resamples)
    low, high = _percentiles(_run_gains(b, a, run_idx, map_idx), level)
    point = float((a - b[None, :]).mean())
    combined = Gain(float(b.mean()), float(a.mean()), Interval(point, low, high))
    runs = tuple(
        gain(before, list(run), seed=seed, resamples=resamples, level=level).gain
        for run in a
    )
    return RunsGain(combined, runs)


def runs_transfer_value(
    source_before: Sequence[float], source_after: Sequence[Sequence[float]],
    target_before: Sequence[float], target_after: Sequence[Sequence[float]], *,
    seed: int = 0, resamples: int = RESAMPLES, level: float = LEVEL,
    target_playable: bool = True,
) -> TransferEstimate:
    """V_G1(G2) over R runs x K maps: the ratio of the two mean gains (run r's tuned model
    at G1 and at G2 share run r's draw, map i is map i in both), with the two-level interval;
    undefined as `transfer_value` says (source or target not playable)."""
    sb, sa = _runs_arrays(source_before, source_after)
    tb, ta = _runs_arrays(target_before, target_after)
    if sa.shape != ta.shape:
        raise ConfigError(
            f"Source and target scores come from different runs or maps ({sa.shape} vs "
            f"{ta.shape}). Evaluate every run of the source at the target on the same maps."
        )
    run_idx, map_idx = _draws(sa.shape[0], sb.shape[0], seed, resamples)
    source_draws = _run_gains(sb, sa, run_idx, map_idx)
    target_draws = _run_gains(tb, ta, run_idx, map_idx)
    source_point = float((sa - sb[None, :]).mean())
    target_point = float((ta - tb[None, :]).mean())
    source = Interval(source_point, *_percentiles(source_draws, level))
    target = Interval(target_point, *_percentiles(target_draws, level))
    before, after = float(tb.mean()), float(ta.mean())
    reason = _undefined_reason(source, target_playable, " over runs and maps")
    if reason:
        return TransferEstimate(None, before, after, target, reason)
    # A resample that draws only runs which kept M's weights (reinforce's keep=best, when a
    # run found nothing better) has a source gain of exactly 0 and no ratio: it is left out.
    # The source is playable, so such resamples are under (1 - level) / 2 of them.
    defined = source_draws != 0.0
    ratios = target_draws[defined] / source_draws[defined]
    value = Interval(target_point / source_point, *_percentiles(ratios, level))
    return TransferEstimate(value, before, after, target)


__all__ += ["RunsGain", "runs_gain", "runs_transfer_value"]


def _undefined_reason(source: Interval, target_playable: bool, over: str = "") -> str:
    """Why V is undefined under Def. 37 (source gain not above 0, or an unplayable target),
    or "" when it is defined."""
    if not source.above_zero():
        where = "contains 0" if source.high >= 0.0 else "lies below 0"
        return (
            f"undefined: the fine-tuning gain on the source game ({source.value:+.3g}, "
            f"interval [{source.low:.3g}, {source.high:.3g}]{over}) {where}"
        )
    if not target_playable:
        return (
            "undefined: the target game is not playable (its own fine-tuning gain interval "
            "is not above 0; Def. 37 is stated for two playable games)"
        )
    return ""
