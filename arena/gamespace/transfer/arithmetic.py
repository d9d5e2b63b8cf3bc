"""The arithmetic of Def. 35 and Def. 37 on per-map scores of R fine-tuning runs, with
intervals.

The scores form a table: run r (of R, each with its own fine-tuning seed) by evaluation map
i (of K). Runs and maps are *crossed*, not nested: every run is scored on the same K maps,
and the untuned model's scores (one per map) are shared by all runs. The same map index is
the same evaluation seed at every game (`arena.gamespace.transfer.evaluate`), so the tables
of two games are paired cell by cell.

Intervals (issue 36). The variance of a grand mean over a crossed R x K table is estimated as
var(the R run means) / R + var(the K map means) / K. In the two-way random-effects model
(a run effect, a map effect, a residual) its expectation is the true variance plus the
residual's share once more, so it errs on the wide side. The interval is Student's t on
that variance, with the Welch-Satterthwaite degrees of freedom of its two parts: about R - 1
when the runs disagree and K - 1 when the maps do. Why not a bootstrap: the previous
two-level bootstrap drew the maps anew for each drawn run, as if every run had been scored
on maps of its own. Since the maps are shared, that divided the maps' variance by about R,
and its percentile intervals over 4 runs and 8 maps were narrower still. An unrecognised
copy of a learnable game got an interval that held the value those same runs and maps
converge to about 2 times in 3 (`benchmarks/gamespace_calibration.py`,
`docs/gamespace-calibration.md`).

- Def. 35's gain S_G(F_G[M]) - S_G(M): the mean over the table, with the t interval above.
  "Strictly better in expectation" is decided at the interval: G is playable in fine-tuning
  mode by M when the whole interval lies above 0.
- Def. 37's V_G1(G2) is a ratio of two such means, and its interval is Fieller's: the values
  v for which the mean of (target gain - v x source gain) is within q standard errors of 0,
  with q Student's for the degrees of freedom of that difference at the point value. It is
  bounded exactly when the source gain is itself clearly non-zero at that q. When it is not,
  V is *undefined* ("the source gain is too uncertain to divide by: more runs or maps"),
  not a huge number.
- Def. 37 is stated for a playable G1 and a playable G2. V_G1(G2) is therefore undefined
  (None, with the reason) unless G1's gain interval lies above 0 (a ratio over a gain that
  may be 0 or negative means nothing) and G2 is playable too (its own Def. 35 verdict,
  `target_playable`). A game whose score no move can change never gets a transfer value,
  in either direction.

Two copies of one game that are the same measurement (the same table) get V = 1 with the
interval [1, 1]: the difference is 0 in every cell. That holds by construction, not by
measurement.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.stats import t as student_t

from arena.errors import ConfigError

LEVEL = 0.95

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Interval:
    """A point value and its interval (low <= high)."""

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


# --- the crossed runs x maps variance ------------------------------------------------------


def _covariance(x: Array, y: Array) -> tuple[float, float]:
    """The two parts (runs, maps) of the estimated covariance of the grand means of two
    R x K tables: cov(run means) / R and cov(map means) / K (runs part 0 when R = 1)."""
    runs, maps = x.shape
    by_run = float(np.cov(x.mean(axis=1), y.mean(axis=1))[0, 1]) / runs if runs > 1 else 0.0
    by_map = float(np.cov(x.mean(axis=0), y.mean(axis=0))[0, 1]) / maps
    return by_run, by_map


def _degrees_of_freedom(table: Array) -> float:
    """Welch-Satterthwaite degrees of freedom of the variance estimate of `table`'s mean
    (inf when that estimate is 0: the quantile is then never used for a width)."""
    runs, maps = table.shape
    by_run, by_map = _covariance(table, table)
    spread = by_run**2 / (runs - 1) if runs > 1 else 0.0
    spread += by_map**2 / (maps - 1)
    return (by_run + by_map) ** 2 / spread if spread > 0.0 else math.inf


def _quantile(df: float, level: float) -> float:
    """Student's two-sided quantile (the normal one at df = inf)."""
    return float(student_t.ppf((1.0 + level) / 2.0, df))


def _mean_interval(table: Array, level: float) -> Interval:
    """The mean of a crossed runs x maps table and its t interval (module docstring)."""
    mean = float(table.mean())
    by_run, by_map = _covariance(table, table)
    half = _quantile(_degrees_of_freedom(table), level) * math.sqrt(max(by_run + by_map, 0.0))
    return Interval(mean, mean - half, mean + half)


def _fieller(source: Array, target: Array, level: float) -> Interval | None:
    """Fieller's interval for mean(target) / mean(source) on paired crossed tables, or None
    when it is unbounded (the source mean is not clearly away from 0 at this level)."""
    s, t = float(source.mean()), float(target.mean())
    ratio = t / s
    q = _quantile(_degrees_of_freedom(target - ratio * source), level)
    var_t = sum(_covariance(target, target))
    cov_ts = sum(_covariance(target, source))
    var_s = sum(_covariance(source, source))
    # (t - v s)^2 <= q^2 var(t - v s): a v^2 - 2 b v + c <= 0
    a = s * s - q * q * var_s
    b = t * s - q * q * cov_ts
    c = t * t - q * q * var_t
    if a <= 0.0:
        return None
    half = math.sqrt(max(b * b - a * c, 0.0))  # >= 0: the point value satisfies it
    if half == 0.0:
        return Interval(ratio, ratio, ratio)
    return Interval(ratio, min(ratio, (b - half) / a), max(ratio, (b + half) / a))


# --- inputs ------------------------------------------------------------------------------


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
            "An interval over maps needs at least 2 evaluation maps. Give maps >= 2."
        )
    return b, a


def _check_lengths(*lists: Sequence[float]) -> None:
    sizes = {len(values) for values in lists}
    if len(sizes) != 1:
        raise ConfigError(
            f"Paired scores need one value per evaluation map in every list, got lengths "
            f"{sorted(sizes)}. Evaluate every player on the same maps."
        )


# --- Def. 35 and Def. 37 -------------------------------------------------------------------


@dataclass(frozen=True)
class RunsGain:
    """Def. 35 over R fine-tuning runs x K maps: the gain's interval and how many runs,
    judged alone (their own interval over maps), reach the same verdict."""

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
    before: Sequence[float], after: Sequence[Sequence[float]], *, level: float = LEVEL,
) -> RunsGain:
    """The gain over R runs: the mean over runs and maps of after - before, and its t
    interval over the crossed runs x maps table (module docstring)."""
    b, a = _runs_arrays(before, after)
    diff = a - b[None, :]
    combined = Gain(float(b.mean()), float(a.mean()), _mean_interval(diff, level))
    runs = tuple(_mean_interval(row[None, :], level) for row in diff)
    return RunsGain(combined, runs)


def gain(before: Sequence[float], after: Sequence[float], *, level: float = LEVEL) -> Gain:
    """Def. 35 on paired per-map scores of M (`before`) and F_G[M] (`after`) at G: one run,
    so the interval is the paired t interval over maps."""
    _check_lengths(before, after)
    return runs_gain(before, [after], level=level).gain


def runs_transfer_value(
    source_before: Sequence[float], source_after: Sequence[Sequence[float]],
    target_before: Sequence[float], target_after: Sequence[Sequence[float]], *,
    level: float = LEVEL, target_playable: bool = True,
) -> TransferEstimate:
    """V_G1(G2) over R runs x K maps: the ratio of the two mean gains (run r's tuned model
    at G1 and at G2 is one row, map i is map i in both), with Fieller's interval; undefined
    as the module docstring says."""
    sb, sa = _runs_arrays(source_before, source_after)
    tb, ta = _runs_arrays(target_before, target_after)
    if sa.shape != ta.shape:
        raise ConfigError(
            f"Source and target scores come from different runs or maps ({sa.shape} vs "
            f"{ta.shape}). Evaluate every run of the source at the target on the same maps."
        )
    source_diff, target_diff = sa - sb[None, :], ta - tb[None, :]
    source = _mean_interval(source_diff, level)
    target = _mean_interval(target_diff, level)
    before, after = float(tb.mean()), float(ta.mean())
    reason = _undefined_reason(source, target_playable, " over runs and maps")
    if reason:
        return TransferEstimate(None, before, after, target, reason)
    value = _fieller(source_diff, target_diff, level)
    if value is None:
        return TransferEstimate(None, before, after, target, (
            "undefined: the source gain is too uncertain to divide by (the interval of the "
            "ratio is unbounded at this level); give more runs or maps"
        ))
    return TransferEstimate(value, before, after, target)


def transfer_value(
    source_before: Sequence[float], source_after: Sequence[float],
    target_before: Sequence[float], target_after: Sequence[float], *,
    level: float = LEVEL, target_playable: bool = True,
) -> TransferEstimate:
    """V_G1(G2) = (S_G2(F_G1[M]) - S_G2(M)) / (S_G1(F_G1[M]) - S_G1(M)), Def. 37, on paired
    per-map scores of one run (G1 = source, G2 = target)."""
    _check_lengths(source_before, source_after, target_before, target_after)
    return runs_transfer_value(
        source_before, [source_after], target_before, [target_after], level=level,
        target_playable=target_playable,
    )


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


__all__ = [
    "LEVEL", "Gain", "Interval", "RunsGain", "TransferEstimate", "gain", "runs_gain",
    "runs_transfer_value", "transfer_value",
]
