"""The map bootstrap (issue 30 item 2).

Matches on one map share its stories, so their outcomes move together; the map bootstrap
draws maps (then their matches) and must widen the intervals exactly when they do."""

from __future__ import annotations

import numpy as np
import pytest

from arena.errors import ConfigError
from arena.tournaments.ratings import (
    LeaderboardConfig,
    MatchRecord,
    RatingInputError,
    SeatRecord,
    comparisons_from_records,
    compute_leaderboard,
)
from arena.tournaments.ratings.bootstrap import MapSampler, bootstrap
from arena.tournaments.ratings.service import RatingOptions


def test_map_draws_keep_each_match_expected_once_and_move_a_map_together() -> None:
    games = np.array([0] * 6 + [1] * 4)
    maps = np.array([0, 0, 0, 1, 1, 2, 3, 3, 4, 4])
    sampler = MapSampler(games, maps, weight_games=False)
    rng = np.random.default_rng(0)
    draws = np.stack([sampler.counts(rng) for _ in range(6000)])
    assert draws.mean(axis=0) == pytest.approx(np.ones(10), abs=0.05)
    # a map's matches are drawn together: their counts correlate, across maps they do not
    corr = np.corrcoef(draws.T)
    assert corr[0, 1] > 0.15 and corr[0, 5] < 0.0 and abs(corr[0, 6]) < 0.05
    # each game keeps as many maps as it has: game 1 (two maps of two matches) draws 4
    assert set(draws[:, 6:].sum(axis=1)) == {4.0}
    weighted = MapSampler(games, maps, weight_games=True)
    mean = np.mean([weighted.counts(rng) for _ in range(6000)], axis=0)
    assert mean[:6] == pytest.approx(np.full(6, 10 / 12), rel=0.06)
    assert mean[6:] == pytest.approx(np.full(4, 10 / 8), rel=0.06)


def _board_of_shared_maps(seed: int) -> list[MatchRecord]:
    """Eight maps, three players who play each map four times: a map that favours one
    player favours it in all four matches (a participant x map effect), a known strength
    gap besides."""
    rng = np.random.default_rng(seed)
    strength = {"a": 0.3, "b": 0.0, "c": -0.3}
    records = []
    for m in range(8):
        bias = {p: rng.normal(0.0, 1.5) for p in strength}
        for k in range(4):
            seats = tuple(
                SeatRecord(("first", "second", "third")[i], p,
                           float(strength[p] + bias[p] + rng.normal(0.0, 0.3)))
                for i, p in enumerate(("a", "b", "c") if k % 2 else ("c", "b", "a"))
            )
            records.append(MatchRecord(f"m{m}-{k}", "g", f"map{m}", seats))
    return records


def test_map_bootstrap_widens_intervals_when_maps_make_matches_dependent() -> None:
    records = _board_of_shared_maps(1)
    widths = {}
    for unit in ("match", "map"):
        board = compute_leaderboard(records, LeaderboardConfig(n_resamples=400, resample=unit))
        widths[unit] = np.mean([r.ci_high - r.ci_low for r in board.rows])
    assert widths["map"] > 1.4 * widths["match"]
    # with every match on its own map the two units are the same bootstrap
    alone = [MatchRecord(r.match_id, r.game, r.match_id, r.seats) for r in records]
    same = [compute_leaderboard(alone, LeaderboardConfig(n_resamples=400, resample=unit))
            for unit in ("match", "map")]
    w = [np.mean([r.ci_high - r.ci_low for r in b.rows]) for b in same]
    assert w[1] == pytest.approx(w[0], rel=0.15)


def test_an_unknown_resampling_unit_is_named_with_the_valid_ones() -> None:
    data = comparisons_from_records(_board_of_shared_maps(0))
    with pytest.raises(RatingInputError, match=r"Unknown resampling unit 'games'.*match, map"):
        bootstrap(data, n_resamples=2, resample="games")
    with pytest.raises(ConfigError, match="resampling unit 'mapp'"):
        RatingOptions(resample="mapp")
