"""Eval-mode comparisons as groups give the sums, ratings and intervals one row per pair of
matches gave (the earlier implementation, kept as `build_comparisons` over outcomes)."""

from __future__ import annotations

import numpy as np
import pytest

from arena.tournaments.ratings import (
    LeaderboardConfig,
    MatchRecord,
    SeatRecord,
    build_comparisons,
    comparisons_from_records,
    pairwise_outcomes,
)
from arena.tournaments.ratings.bootstrap import MatchSampler
from arena.tournaments.ratings.comparisons import ComparisonData
from arena.tournaments.ratings.leaderboard import leaderboard_from_comparisons


def tournament(seed: int, n: int = 160) -> list[MatchRecord]:
    """Eval matches over a few games, maps, roles and NPC sets, with exact and near ties,
    forfeits (some with a partial score), lone-participant groups, plus head-to-head ones."""
    rng = np.random.default_rng(seed)
    people = [f"p{i}" for i in range(7)]
    out = []
    for i in range(n):
        game = f"g{rng.integers(3)}"
        who = people[int(rng.integers(len(people) if i % 9 else 1))]
        score = float(np.round(rng.normal(), 1)) + (1e-7 if rng.random() < 0.1 else 0.0)
        forfeit = bool(rng.random() < 0.08)
        main = SeatRecord("alice" if game != "g2" else "bob", who,
                          None if forfeit and rng.random() < 0.5 else score, forfeit)
        npc = SeatRecord("npc", f"n{rng.integers(2)}", 0.0, npc=True)
        out.append(MatchRecord(f"e{i:03d}", game, f"m{rng.integers(4)}", (main, npc),
                               mode="eval", rounds=int(rng.integers(1, 3))))
    for i in range(n // 4):
        a, b = rng.choice(people, 2, replace=False)
        out.append(MatchRecord(f"h{i:03d}", "duel", "m0", (
            SeatRecord("x", str(a), float(rng.integers(3))),
            SeatRecord("y", str(b), float(rng.integers(3))))))
    return out


def as_rows(recs: list[MatchRecord]) -> ComparisonData:
    """The earlier implementation: one row per pairwise outcome."""
    return build_comparisons(pairwise_outcomes(recs), [(r.match_id, r.game) for r in recs],
                             participants=[s.participant for r in recs for s in r.players])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_group_sums_equal_the_per_pair_rows(seed: int) -> None:
    recs = tournament(seed)
    old, new = as_rows(recs), comparisons_from_records(recs)
    assert new.eval_groups is not None and new.key.size < old.key.size
    assert new.participants == old.participants and new.roles == old.roles
    assert new.match_ids == old.match_ids and new.n_keys == old.n_keys
    for field in ("key_a", "key_b", "key_ra", "key_rb"):
        assert getattr(new, field).tolist() == getattr(old, field).tolist()
    assert new.n_comparisons == old.n_comparisons
    assert new.comparisons_per_participant().tolist() == old.comparisons_per_participant().tolist()
    rng = np.random.default_rng(seed)
    sampler = MatchSampler(new.match_game, True)
    for counts in [None, rng.random(len(new.match_ids)) * 3,
                   *(sampler.counts(rng) for _ in range(5))]:
        got, want = new.aggregate(counts), old.aggregate(counts)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-12)


def test_leaderboard_equals_the_per_pair_rows() -> None:
    recs = tournament(3, n=240)
    cfg = LeaderboardConfig(n_resamples=200, seed=4, role_effects=True)
    old = leaderboard_from_comparisons(as_rows(recs), cfg)
    new = leaderboard_from_comparisons(comparisons_from_records(recs), cfg)
    assert [r.participant for r in new.rows] == [r.participant for r in old.rows]
    for a, b in zip(new.rows, old.rows, strict=True):
        assert (a.rank_low, a.rank_high, a.n_comparisons) == (b.rank_low, b.rank_high,
                                                               b.n_comparisons)
        assert (a.rating, a.ci_low, a.ci_high) == pytest.approx((b.rating, b.ci_low, b.ci_high),
                                                                abs=1e-8)
    assert new.role_effects == pytest.approx(old.role_effects, abs=1e-8)


def test_forfeits_and_near_ties_follow_the_pair_rule() -> None:
    def ev(mid: str, who: str, score: float | None, forfeit: bool = False) -> MatchRecord:
        return MatchRecord(mid, "g", "m", (SeatRecord("alice", who, score, forfeit),),
                           mode="eval")

    recs = [ev("1", "a", 1.0), ev("2", "b", 1.0 + 1e-6), ev("3", "c", 1.0 + 3e-6),
            ev("4", "d", None, True), ev("5", "e", 99.0, True)]
    wins, total = comparisons_from_records(recs).aggregate()
    want_w, want_t = as_rows(recs).aggregate()
    assert wins.tolist() == pytest.approx(want_w.tolist())
    assert total.tolist() == pytest.approx(want_t.tolist())
    assert wins.sum() == pytest.approx(1.0 * 0.5 + 0 + 1 + 1 + 0 + 1 + 1 + 1 + 1 + 0.5)
