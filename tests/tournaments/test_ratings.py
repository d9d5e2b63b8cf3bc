"""Bradley–Terry, bootstrap, rank ranges, Elo and the SCORING.md forfeit/tie rules."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.stats import spearmanr

from arena.errors import UnknownNameError
from arena.tournaments.ratings import (
    LeaderboardConfig,
    MatchRecord,
    RatingInputError,
    SeatRecord,
    compare_seats,
    comparisons_from_records,
    compute_leaderboard,
    elo_update,
    fit,
    leaderboard,
    online_elo,
    pairwise_outcomes,
    rank_ranges,
)
from arena.tournaments.ratings.bootstrap import MatchSampler, expected_match_counts
from arena.tournaments.ratings.bradley_terry import ELO_PER_NATURAL
from arena.tournaments.ratings.synthetic import synthetic_matches


def strengths(n: int, spread: float = 2.0) -> dict[str, float]:
    return {f"p{i:02d}": v for i, v in enumerate(np.linspace(-spread, spread, n))}


def seat(role: str, who: str, score: float | None, forfeit: bool = False) -> SeatRecord:
    return SeatRecord(role, who, score, forfeit)


def h2h(mid: str, *seats: SeatRecord, game: str = "g", order: float = 0.0) -> MatchRecord:
    return MatchRecord(mid, game, "map0", tuple(seats), order=order)


def evalm(
    mid: str,
    who: str,
    score: float | None,
    map_id: str = "m1",
    npc: str = "npc",
    forfeit: bool = False,
) -> MatchRecord:
    seats = (seat("alice", who, score, forfeit), SeatRecord("bob", npc, 0.0, npc=True))
    return MatchRecord(mid, "g", map_id, seats, mode="eval")


# --- synthetic strengths ---------------------------------------------------------------------


def test_recovers_ranking_of_known_strengths() -> None:
    truth = strengths(16)
    data = comparisons_from_records(synthetic_matches(truth, 6000, games=("a", "b", "c"), seed=1))
    est = fit(data)
    names = list(data.participants)
    rho = spearmanr([truth[n] for n in names], est.strengths).statistic
    assert rho > 0.97
    assert est.converged
    # Strengths are on the natural-log scale: the spread matches the truth's.
    assert abs((est.strengths.max() - est.strengths.min()) - 4.0) < 0.6


def test_interval_coverage_of_true_strengths() -> None:
    truth = strengths(8, spread=1.5)
    centred = {k: v - np.mean(list(truth.values())) for k, v in truth.items()}
    covered = total = 0
    for seed in range(5):
        recs = synthetic_matches(truth, 800, seed=100 + seed)
        board = compute_leaderboard(
            recs, LeaderboardConfig(n_resamples=300, seed=seed, scale="natural")
        )
        for row in board.rows:
            total += 1
            covered += row.ci_low <= centred[row.participant] <= row.ci_high
    assert total == 40
    assert 0.8 <= covered / total <= 1.0


def test_disconnected_graph_and_undefeated_participant_still_fit() -> None:
    truth = {"a": 1.0, "b": 0.0, "c": -1.0, "x": 0.5, "y": -0.5, "z": -1.5}
    recs = synthetic_matches(truth, 900, groups=[["a", "b", "c"], ["x", "y", "z"]], seed=3)
    recs.append(h2h("zz-undefeated", seat("first", "u", 1.0), seat("second", "c", 0.0)))
    data = comparisons_from_records(recs)
    est = fit(data)
    assert est.converged and np.all(np.isfinite(est.strengths))
    s = dict(zip(data.participants, est.strengths, strict=True))
    assert s["a"] > s["b"] > s["c"]
    assert s["x"] > s["y"] > s["z"]
    assert s["u"] > s["c"] and s["u"] < 20  # finite thanks to the prior


def test_role_effect_recovered_and_removed_from_strengths() -> None:
    truth = strengths(10, spread=1.0)
    adv = {"g:first": 0.4, "g:second": -0.4}  # first seat +0.8 natural-log units
    recs = synthetic_matches(
        truth, 8000, games=("g",), role_advantage=adv, seat_of={"p00": "first"}, seed=5
    )
    data = comparisons_from_records(recs)
    with_roles = fit(data, role_effects=True)
    without = fit(data)
    eff = dict(zip(with_roles.roles, with_roles.role_effects, strict=True))
    assert abs((eff["g:first"] - eff["g:second"]) - 0.8) < 0.15
    true_centred = truth["p00"] - np.mean(list(truth.values()))
    i = data.participants.index("p00")
    err_with = abs(with_roles.strengths[i] - true_centred)
    err_without = abs(without.strengths[i] - true_centred)
    assert err_without > 0.5  # p00 always has the first-seat advantage
    assert err_with < 0.25


def test_leaderboard_is_deterministic_given_records_and_seed() -> None:
    recs = synthetic_matches(strengths(6), 400, games=("a", "b"), seed=7)
    cfg = LeaderboardConfig(n_resamples=200, seed=11)
    first = leaderboard(recs, cfg)
    shuffled = list(recs)
    random.Random(0).shuffle(shuffled)
    assert leaderboard(shuffled, cfg) == first
    other = leaderboard(recs, LeaderboardConfig(n_resamples=200, seed=12))
    assert [r["ci_low"] for r in other] != [r["ci_low"] for r in first]
    assert set(first[0]) == {
        "participant",
        "rating",
        "ci_low",
        "ci_high",
        "rank_low",
        "rank_high",
        "n_comparisons",
        "provisional",
    }


def test_elo_scale_anchor_and_provisional() -> None:
    recs = synthetic_matches(strengths(5), 300, seed=2)
    recs.append(h2h("zz-new", seat("first", "newcomer", 1.0), seat("second", "p00", 0.0)))
    board = compute_leaderboard(
        recs,
        LeaderboardConfig(n_resamples=100, anchor="p02", anchor_value=1500.0, min_comparisons=10),
    )
    rows = {r.participant: r for r in board.rows}
    assert rows["p02"].rating == pytest.approx(1500.0)
    assert rows["p02"].ci_low == pytest.approx(1500.0) == rows["p02"].ci_high
    assert rows["newcomer"].provisional and rows["newcomer"].n_comparisons == 1
    assert not rows["p04"].provisional
    mean_board = compute_leaderboard(recs, LeaderboardConfig(n_resamples=50))
    assert np.mean([r.rating for r in mean_board.rows]) == pytest.approx(1000.0)
    assert board.fit is not None
    # One natural-log unit is 400 / ln 10 Elo points.
    th = dict(zip(board.fit.participants, board.fit.strengths, strict=True))
    assert rows["p04"].rating - rows["p02"].rating == pytest.approx(
        ELO_PER_NATURAL * (th["p04"] - th["p02"])
    )
    with pytest.raises(UnknownNameError, match="Did you mean 'p02'"):
        compute_leaderboard(recs, LeaderboardConfig(n_resamples=10, anchor="p2"))


def test_rank_ranges_follow_interval_overlaps() -> None:
    lo = np.array([10.0, 8.0, 7.0, 0.0])
    hi = np.array([12.0, 11.0, 8.0, 1.0])
    best, worst = rank_ranges(lo, hi)
    # 0 overlaps 1; 1 overlaps 0 and touches 2; 2 touches 1; 3 is alone at the bottom.
    assert best.tolist() == [1, 1, 2, 4]
    assert worst.tolist() == [2, 3, 3, 4]


# --- bootstrap over matches --------------------------------------------------------------------


def test_game_weighted_sampling_draws_each_game_equally() -> None:
    games = np.array([0] + [1] * 9)  # one match in game 0, nine in game 1
    sampler = MatchSampler(games, weight_games=True)
    rng = np.random.default_rng(0)
    counts = np.mean([sampler.counts(rng) for _ in range(4000)], axis=0)
    assert counts[0] == pytest.approx(5.0, rel=0.05)  # half of the 10 draws
    assert counts[1:].mean() == pytest.approx(5.0 / 9.0, rel=0.05)
    assert expected_match_counts(games, True).tolist() == pytest.approx([5.0] + [5 / 9] * 9)


def test_eval_comparisons_resample_with_both_matches() -> None:
    recs = [evalm("e1", "A", 3.0), evalm("e2", "B", 2.0), evalm("e3", "C", 1.0)]
    data = comparisons_from_records(recs)
    wins, total = data.aggregate(np.array([2.0, 3.0, 0.0]))
    # keys: A-B (e1,e2), A-C (e1,e3), B-C (e2,e3); a comparison counts c_a * c_b times
    assert total.tolist() == [6.0, 0.0, 0.0] and wins.tolist() == [6.0, 0.0, 0.0]


# --- SCORING.md section 1 and 4 rules -----------------------------------------------------------


def test_forfeit_ranks_below_every_result() -> None:
    worst = seat("a", "x", -1e6)
    gone = seat("b", "y", None, forfeit=True)
    assert compare_seats(worst, gone) == 1.0
    assert compare_seats(gone, worst) == 0.0
    # A forfeit with a partial score still ranks below a lower non-forfeited score.
    partial = seat("c", "z", 50.0, forfeit=True)
    assert compare_seats(partial, worst) == 0.0
    assert compare_seats(gone, partial) == 0.5  # two forfeits tie


def test_scores_within_a_micro_bit_tie_half_a_win_each_way() -> None:
    assert compare_seats(seat("a", "x", 1.0), seat("b", "y", 1.0 + 1e-6)) == 0.5
    assert compare_seats(seat("a", "x", 1.0), seat("b", "y", 1.0 + 3e-6)) == 0.0
    recs = [h2h(f"t{i}", seat("w", "x", 2.0), seat("b", "y", 2.0 + 1e-7)) for i in range(4)]
    data = comparisons_from_records(recs)
    wins, total = data.aggregate()
    assert wins.sum() == pytest.approx(2.0) and total.sum() == pytest.approx(4.0)
    est = fit(data)
    assert est.strengths[0] == pytest.approx(est.strengths[1], abs=1e-9)


def test_head_to_head_gives_one_comparison_per_pair_of_seats() -> None:
    m = h2h(
        "m",
        seat("alice", "A", 5.0),
        seat("bob", "B", 3.0),
        seat("carol", "C", None, forfeit=True),
        SeatRecord("dave", "npc", 9.0, npc=True),
    )
    outs = pairwise_outcomes([m])
    got = {(o.a, o.b): o.score_a for o in outs}
    assert got == {("A", "B"): 1.0, ("A", "C"): 1.0, ("B", "C"): 1.0}
    assert {(o.role_a, o.role_b) for o in outs} == {
        ("alice", "bob"),
        ("alice", "carol"),
        ("bob", "carol"),
    }


def test_eval_mode_compares_only_comparable_matches() -> None:
    recs = [
        evalm("1", "A", 4.0),
        evalm("2", "A", 2.0),  # A replayed map m1: each A match weighs 1/2
        evalm("3", "B", 3.0),
        evalm("4", "C", 9.0, map_id="m2"),  # other map: no comparison
        evalm("5", "D", 9.0, npc="other-npc"),  # other NPC set: no comparison
        evalm("6", "E", None, forfeit=True),
    ]
    outs = pairwise_outcomes(recs)
    pairs = sorted((o.a, o.b, o.score_a, o.weight) for o in outs)
    assert pairs == [
        ("A", "B", 0.0, 0.5),
        ("A", "B", 1.0, 0.5),
        ("A", "E", 1.0, 0.5),
        ("A", "E", 1.0, 0.5),
        ("B", "E", 1.0, 1.0),
    ]
    board = compute_leaderboard(recs, LeaderboardConfig(n_resamples=20))
    names = [r.participant for r in board.rows]
    assert names[-1] == "E"  # the forfeiting participant is rated last
    assert {r.participant: r.n_comparisons for r in board.rows}["C"] == 0


def test_records_reject_ambiguous_input() -> None:
    with pytest.raises(RatingInputError, match="not marked as a forfeit"):
        SeatRecord("a", "x", None)
    with pytest.raises(RatingInputError, match="exactly one main character"):
        MatchRecord("m", "g", "m1", (seat("a", "x", 1.0), seat("b", "y", 1.0)), mode="eval")
    with pytest.raises(RatingInputError, match="occurs twice"):
        comparisons_from_records([h2h("m", seat("a", "x", 1.0), seat("b", "y", 0.0))] * 2)


# --- online Elo -----------------------------------------------------------------------------


def test_online_elo_k16_in_match_order() -> None:
    one = online_elo([h2h("m1", seat("a", "x", 1.0), seat("b", "y", 0.0))])
    assert one == {"x": pytest.approx(1008.0), "y": pytest.approx(992.0)}
    # x wins first, then y: order matters, and it is the records' `order`, not list order.
    recs = [
        h2h("late", seat("a", "y", 1.0), seat("b", "x", 0.0), order=2),
        h2h("early", seat("a", "x", 1.0), seat("b", "y", 0.0), order=1),
    ]
    after = online_elo(recs)
    e = 1 / (1 + math.pow(10, (992 - 1008) / 400))
    assert after["y"] == pytest.approx(992 + 16 * (1 - (1 - e)))
    assert after["x"] + after["y"] == pytest.approx(2000.0)
    step = elo_update({"x": 1000.0}, pairwise_outcomes(recs[:1]), k=32)
    assert step["y"] == pytest.approx(1016.0)
