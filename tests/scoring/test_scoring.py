"""arena.scoring: the one copy of SCORING.md's math, used by analysis and ratings alike."""

from __future__ import annotations

import pytest

from arena.errors import ConfigError
from arena.scoring import (
    arms_curve,
    forfeit_floor,
    level_crossings,
    playability_levels,
    running_max,
)
from arena.tournaments.ratings import MatchRecord, SeatRecord
from arena.tournaments.ratings.normalisation import arms_curves

PER_MAP: list[list[float | None]] = [[None, 2.0, None, 4.0], [1.0, None, 3.0, 3.5], [5.0, 1.0, 0.5, 6.0]]


def records(who: str, per_map: list[list[float | None]]) -> list[MatchRecord]:
    out = []
    for index, rounds in enumerate(per_map):
        numbers = [r for r in rounds if r is not None]
        seat = SeatRecord("black", who, max(numbers) if numbers else None, not numbers, tuple(rounds))
        out.append(MatchRecord(f"{who}-{index}", "g", f"m{index}", (seat,), mode="eval",
                               rounds=len(rounds)))
    return out


def test_forfeit_floor_is_the_worst_score_minus_one_bit() -> None:
    assert forfeit_floor([3.0, None, -2.5]) == -3.5
    assert forfeit_floor([None, None]) is None
    assert list(running_max([None, 2.0, 1.0], floor=0.0, horizon=4)) == [0.0, 2.0, 2.0, 2.0]


def test_analysis_and_ratings_compute_the_same_arms_curve() -> None:
    analysis, dropped = arms_curve(PER_MAP)
    ratings = arms_curves(records("P", PER_MAP))[("g", "black")]["P"]
    assert dropped == 0
    assert analysis == pytest.approx(list(ratings))
    # worked by hand: floors 1.0, 0.0, -0.5
    assert analysis[0] == pytest.approx((1.0 + 1.0 + 5.0) / 3)
    assert analysis[3] == pytest.approx((4.0 + 3.5 + 6.0) / 3)


def test_with_several_participants_the_floor_is_the_worst_of_anyone_on_the_map() -> None:
    mine: list[list[float | None]] = [[None, 2.0]]
    theirs: list[list[float | None]] = [[-4.0, 1.0]]
    floors = [forfeit_floor([*mine[0], *theirs[0]])]
    analysis, _ = arms_curve(mine, floors)
    other = MatchRecord("Q-0", "g", "m0", (SeatRecord("black", "Q", 1.0, False, (-4.0, 1.0)),),
                        mode="eval", rounds=2)
    ratings = arms_curves([*records("P", mine), other])[("g", "black")]["P"]
    assert analysis == pytest.approx([-5.0, 2.0])
    assert list(ratings) == pytest.approx(analysis)


def test_level_crossings_need_distinct_rounds() -> None:
    assert level_crossings([0.0, 1.5, 2.5, 2.6], theta=1.0, m=2) == (2, 3)
    assert level_crossings([0.0, 2.5, 3.0], theta=1.0, m=2) is None  # both levels at k=2
    assert level_crossings([0.0, 0.5], theta=1.0, m=1) is None
    with pytest.raises(ConfigError, match="theta > 0"):
        level_crossings([0.0], theta=0.0, m=2)


def test_paper_playability_levels_on_steady_and_flat_play() -> None:
    steady: list[list[float | None]] = [[float(k) + map_ for k in range(5)] for map_ in range(6)]
    verdict = playability_levels(steady, steps=3, theta=0.9, levels=3, epsilon=0.1)
    assert verdict.p_increasing == 1.0 and verdict.playable
    assert verdict.crossings == (2, 3, 4) and verdict.playable_levels
    flat: list[list[float | None]] = [[2.0, 2.0, 2.0]] * 4
    verdict = playability_levels(flat, steps=1, theta=0.5, levels=2)
    assert verdict.p_increasing == 0.0 and not verdict.playable and not verdict.playable_levels
    # one lucky map out of four: rarely increasing over resampled map sets
    lucky: list[list[float | None]] = [[0.0, 0.0, 0.0]] * 3 + [[0.0, 4.0, 8.0]]
    verdict = playability_levels(lucky, steps=2, theta=0.5, levels=2, epsilon=0.1, seed=3)
    assert 0.5 < verdict.p_increasing < 0.9 and not verdict.playable
