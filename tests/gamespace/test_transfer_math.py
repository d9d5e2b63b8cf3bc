"""Def. 35 and Def. 37 on given per-map scores: the point values, the paired t and Fieller
intervals and the undefined cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import ttest_1samp

from arena.errors import ConfigError
from arena.gamespace.transfer.arithmetic import gain, runs_gain, runs_transfer_value, transfer_value
from arena.gamespace.transfer.oracle import UNDEFINED, Estimate

BEFORE = [-10.0, -12.0, -9.0, -11.0, -10.5, -8.0]
AFTER = [-6.0, -7.5, -5.0, -6.5, -7.0, -4.0]  # better on every map
GAIN = 24.5 / 6  # the mean of the differences


def test_the_gain_is_the_mean_paired_difference() -> None:
    measured = gain(BEFORE, AFTER)
    assert measured.before == pytest.approx(np.mean(BEFORE))
    assert measured.after == pytest.approx(np.mean(AFTER))
    assert measured.gain.value == pytest.approx(GAIN)
    assert measured.gain.low < GAIN < measured.gain.high
    assert measured.playable


def test_one_run_gets_the_paired_t_interval_over_maps() -> None:
    expected = ttest_1samp(np.subtract(AFTER, BEFORE), 0.0).confidence_interval(0.95)
    measured = gain(BEFORE, AFTER).gain
    assert (measured.low, measured.high) == pytest.approx((expected.low, expected.high))
    wider = gain(BEFORE, AFTER, level=0.99).gain
    assert wider.low < measured.low and wider.high > measured.high


def test_a_gain_whose_interval_reaches_zero_is_not_playable() -> None:
    noisy = [b + d for b, d in zip(BEFORE, [3.0, -2.0, 1.0, -1.5, 2.0, -0.5], strict=True)]
    measured = gain(BEFORE, noisy)
    assert measured.gain.low <= 0.0 <= measured.gain.high
    assert not measured.playable
    assert not gain(AFTER, BEFORE).playable  # worse after tuning


def test_def_37_is_the_ratio_of_the_mean_gains() -> None:
    # the target gains exactly half of the source's gain on every map
    target_before = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    target_after = [b + (a - s) / 2 for b, a, s in
                    zip(target_before, AFTER, BEFORE, strict=True)]
    v = transfer_value(BEFORE, AFTER, target_before, target_after)
    assert v.defined and v.value is not None
    # map by map proportional gains: no uncertainty about the ratio
    assert (v.value.value, v.value.low, v.value.high) == pytest.approx((0.5, 0.5, 0.5))
    assert v.target_before == pytest.approx(3.5)
    assert v.target_gain.value == pytest.approx(GAIN / 2)


def test_numerator_and_denominator_are_paired() -> None:
    # target gain equals the source gain map by map, though both vary a lot across maps:
    # paired, the ratio is exactly 1; treated as independent means, it would not be
    before = [0.0] * 8
    after = [1.0, 9.0, 2.0, 8.0, 3.0, 7.0, 4.0, 6.0]
    v = transfer_value(before, after, [5.0] * 8, [5.0 + a for a in after])
    assert v.value is not None and (v.value.low, v.value.high) == pytest.approx((1.0, 1.0))


def test_an_unrelated_target_gets_zero_within_its_interval() -> None:
    flat = [-3.0, -4.0, -5.0, -3.5, -4.5, -2.0]
    v = transfer_value(BEFORE, AFTER, flat, flat)
    assert v.value is not None
    assert v.value.value == 0.0 and v.value.low <= 0.0 <= v.value.high
    noise = [0.4, -0.3, 0.2, -0.5, 0.1, 0.0]
    w = transfer_value(BEFORE, AFTER, flat, [f + n for f, n in zip(flat, noise, strict=True)])
    assert w.value is not None and w.value.low < 0.0 < w.value.high
    assert abs(w.value.value) < 0.05


def test_a_source_gain_whose_interval_contains_zero_makes_the_value_undefined() -> None:
    source_after = [b + d for b, d in zip(BEFORE, [3.0, -2.0, 1.0, -1.5, 2.0, -0.1],
                                          strict=True)]
    v = transfer_value(BEFORE, source_after, BEFORE, AFTER)
    assert not v.defined and v.value is None
    assert "contains 0" in v.reason and "undefined" in v.reason
    assert v.target_gain.value == pytest.approx(GAIN)  # the target's own gain is still shown
    worse = transfer_value(AFTER, BEFORE, BEFORE, AFTER)
    assert worse.value is None and "lies below 0" in worse.reason
    nothing = transfer_value(BEFORE, BEFORE, BEFORE, AFTER)  # 0/0 is not a number
    assert nothing.value is None


def test_bad_score_lists_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="lengths"):
        transfer_value([1.0, 2.0], [1.0, 2.0, 3.0], [1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ConfigError, match="at least 2 evaluation maps"):
        gain([1.0], [2.0])


def test_undefined_estimates_are_nan_and_never_pass_a_threshold() -> None:
    assert not UNDEFINED.defined and math.isnan(UNDEFINED.low)
    assert not UNDEFINED.value >= 0.5
    assert Estimate(0.9, 0.8, 1.0).defined


def test_def_37_needs_a_playable_target_too() -> None:
    """Issue 19 item 6: a ratio that could be computed is still undefined when the target
    game is not playable (its own Def. 35 verdict)."""
    after = [a + 0.5 for a in AFTER]
    defined = transfer_value(BEFORE, AFTER, BEFORE, after)
    assert defined.defined
    v = transfer_value(BEFORE, AFTER, BEFORE, after, target_playable=False)
    assert not v.defined and "target game is not playable" in v.reason
    assert v.target_after > v.target_before  # the measurement is kept


def test_the_interval_over_runs_sees_a_run_that_did_not_learn() -> None:
    """Issue 19 item 2: an interval over maps only (of the runs' mean) is overconfident when
    the fine-tuning runs disagree; one over runs and maps is not."""
    before = [0.0, 0.1, -0.1, 0.2, -0.2, 0.0, 0.1, -0.1]
    learned = [b + 5.0 for b in before]
    runs = [learned, learned, [b - 5.0 for b in before]]
    mean_after = [sum(col) / 3 for col in zip(*runs, strict=True)]
    assert gain(before, mean_after).playable  # maps only: falsely sure
    measured = runs_gain(before, runs)
    assert not measured.playable and measured.gain.gain.low < 0 < measured.gain.gain.high
    assert measured.agreeing == 1  # two runs alone say playable, one says not
    agreed = runs_gain(before, [learned, learned, learned])
    assert agreed.playable and agreed.agreeing == 3


def test_the_transfer_value_over_runs_of_a_copy_is_one() -> None:
    rng = np.random.default_rng(5)
    before = rng.normal(0, 1, 8)
    source = [before + 2 + rng.normal(0, 0.5, 8) for _ in range(3)]
    target = [s.copy() for s in source]  # a copy with name-free evaluation: the same scores
    v = runs_transfer_value(before, source, before, target)
    assert v.value is not None and (v.value.value, v.value.low, v.value.high) == (1.0, 1.0, 1.0)
    undefined = runs_transfer_value(before, source, before, target, target_playable=False)
    assert undefined.value is None and "not playable" in undefined.reason
    with pytest.raises(ConfigError, match="different runs or maps"):
        runs_transfer_value(before, source, before, target[:2])
