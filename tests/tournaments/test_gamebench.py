"""GameBench import and reproduction of its Table 1 "Overall" Bradley–Terry ratings."""

from __future__ import annotations

from itertools import combinations

import pytest

from arena.tournaments.ratings import (
    LeaderboardConfig,
    RatingInputError,
    leaderboard_from_comparisons,
)
from arena.tournaments.ratings.gamebench import (
    gamebench_comparisons,
    gamebench_records,
    load_gamebench,
    parse_gamebench,
)
from arena.tournaments.ratings.outcomes import pairwise_outcomes
from tests.tournaments.gamebench_reference import DATA, PUBLISHED, needs_data


@needs_data
def test_import_counts_games_agents_and_exact_draws() -> None:
    matches = load_gamebench(DATA)
    assert len(matches) == 277
    assert len({m.game for m in matches}) == 9
    assert {a for m in matches for a in m.agents} == set(PUBLISHED)
    draws = sum(m.exact_draw for m in matches)
    data = gamebench_comparisons(matches)
    assert data.n_comparisons == 277 - draws > 0
    assert len(data.match_ids) == 277  # draws stay in the bootstrap pool


@needs_data
def test_reproduces_table1_overall() -> None:
    data = gamebench_comparisons(load_gamebench(DATA))
    cfg = LeaderboardConfig(n_resamples=1000, seed=0, scale="natural", point="bootstrap_mean")
    ours = {r.participant: r.rating for r in leaderboard_from_comparisons(data, cfg).rows}
    for agent, published in PUBLISHED.items():
        assert ours[agent] == pytest.approx(published, abs=0.15), agent
    for x, y in combinations(PUBLISHED, 2):
        if abs(PUBLISHED[x] - PUBLISHED[y]) > 0.1:
            assert (ours[x] > ours[y]) == (PUBLISHED[x] > PUBLISHED[y]), (x, y)
    assert sum(ours.values()) == pytest.approx(0.0, abs=1e-9)


def test_fractional_scores_are_fractional_wins_and_draws_are_dropped() -> None:
    rows = [
        {"game": "g", "a": 0.75, "b": 0.25},
        {"game": "g", "b": 0.5, "a": 0.5},
        {"game": "h", "b": 1.0, "a": 0.0},
    ]
    data = gamebench_comparisons(parse_gamebench(rows))
    wins, total = data.aggregate()  # a < b after orientation: wins are a's
    assert wins.sum() == pytest.approx(0.75) and total.sum() == pytest.approx(2.0)
    kept = gamebench_comparisons(parse_gamebench(rows), drop_exact_draws=False)
    assert kept.aggregate()[1].sum() == pytest.approx(3.0)
    # As arena records, the higher score wins outright (SCORING.md section 4).
    outs = pairwise_outcomes(gamebench_records(parse_gamebench(rows)))
    assert [(o.a, o.b, o.score_a) for o in outs] == [
        ("a", "b", 1.0),
        ("b", "a", 0.5),
        ("b", "a", 1.0),
    ]


def test_rejects_malformed_rows() -> None:
    with pytest.raises(RatingInputError, match="exactly two agent keys"):
        parse_gamebench([{"game": "g", "a": 1.0}])
    with pytest.raises(RatingInputError, match="!= 1"):
        parse_gamebench([{"game": "g", "a": 0.7, "b": 0.7}])
