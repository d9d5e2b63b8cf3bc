"""Issue 36: the intervals of Def. 35's gain and Def. 37's V over R runs x K maps cover what
they estimate. Runs and maps are crossed (every run is scored on the same maps, and the
untuned model's scores are shared by all runs); the earlier bootstrap drew maps anew for
each run, which divided the maps' variance by about R. Checked here on tables drawn from a
crossed random-effects model whose mean and ratio are known (no model, no judge)."""

from __future__ import annotations

import numpy as np
import pytest

from arena.gamespace.transfer.arithmetic import runs_gain, runs_transfer_value

RUNS, MAPS = 4, 8


def crossed(rng: np.random.Generator, mean: float, run_sd: float, map_sd: float,
            noise_sd: float) -> np.ndarray:
    """An R x K table: mean + run effect + map effect + residual."""
    return (mean + rng.normal(0, run_sd, (RUNS, 1)) + rng.normal(0, map_sd, (1, MAPS))
            + rng.normal(0, noise_sd, (RUNS, MAPS)))


def test_identical_runs_add_no_information() -> None:
    """Four copies of one run are one run: the interval must not narrow (it did by about
    half under the bootstrap that drew maps per run)."""
    rng = np.random.default_rng(3)
    before = rng.normal(-20, 8, MAPS)
    after = before + 10 + rng.normal(0, 6, MAPS)
    target = rng.normal(-20, 8, MAPS) + 6 + rng.normal(0, 6, MAPS)
    one = runs_gain(before, [after]).gain.gain
    four = runs_gain(before, [after] * RUNS).gain.gain
    assert (four.low, four.high) == pytest.approx((one.low, one.high))
    v_one = runs_transfer_value(before, [after], before * 0, [target]).value
    v_four = runs_transfer_value(before, [after] * RUNS, before * 0, [target] * RUNS).value
    assert v_one is not None and v_four is not None
    assert (v_four.low, v_four.high) == pytest.approx((v_one.low, v_one.high))


@pytest.mark.parametrize(("run_sd", "map_sd"), [(0.0, 10.0), (6.0, 2.0), (4.0, 6.0)])
def test_the_gain_interval_covers_the_mean_at_its_level(run_sd: float, map_sd: float) -> None:
    rng = np.random.default_rng(int(run_sd * 10 + map_sd))
    trials, covered = 400, 0
    for _ in range(trials):
        diff = crossed(rng, 5.0, run_sd, map_sd, 3.0)
        interval = runs_gain(np.zeros(MAPS), diff).gain.gain
        covered += interval.low <= 5.0 <= interval.high
    # 95 % intervals: 400 trials put a calibrated rate above 0.92 with probability > 0.99
    # (the variance estimate errs on the wide side, hence the upper bound); the bootstrap
    # that drew maps per run covered 0.65 here (maps dominating), 0.83 and 0.75
    assert 0.92 <= covered / trials <= 0.995, covered / trials


@pytest.mark.parametrize(("run_sd", "map_sd"), [(0.0, 10.0), (5.0, 3.0)])
def test_the_fieller_interval_covers_the_ratio(run_sd: float, map_sd: float) -> None:
    """Source gain 20, target gain 12: V = 0.6. The target shares the run and map effects
    in part (a tuned model good at one game is good at the other)."""
    rng = np.random.default_rng(7)
    trials, covered, undefined = 400, 0, 0
    for _ in range(trials):
        source = crossed(rng, 20.0, run_sd, map_sd, 3.0)
        shared = source - 20.0
        target = 12.0 + 0.5 * shared + crossed(rng, 0.0, run_sd, map_sd, 3.0)
        v = runs_transfer_value(np.zeros(MAPS), source, np.zeros(MAPS), target).value
        if v is None:
            undefined += 1
            continue
        covered += v.low <= 0.6 <= v.high
    assert undefined < trials * 0.05
    assert 0.92 <= covered / (trials - undefined) <= 0.995, covered / (trials - undefined)


def test_a_source_gain_too_uncertain_to_divide_by_gives_no_value() -> None:
    """The source is playable (its gain interval, over maps, is above 0) but the ratio's
    uncertainty comes from 4 runs that disagree at the target (3 degrees of freedom, not 7),
    so its quantile is larger and Fieller's interval is unbounded: V is undefined, and says why."""
    source = np.tile([-0.5, 8.5, 2.0, 9.5, 0.5, 7.5, 1.5, 6.0], (RUNS, 1))  # t = 3.1, 7 df
    assert runs_gain(np.zeros(MAPS), source).playable
    target = np.array([[30.0], [-25.0], [28.0], [-27.0]]) + np.zeros((RUNS, MAPS))
    v = runs_transfer_value(np.zeros(MAPS), source, np.zeros(MAPS), target)
    assert v.value is None and "too uncertain to divide by" in v.reason
