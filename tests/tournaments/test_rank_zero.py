"""Rank ranges compare participants with each other (`bootstrap.rank_draws`): they do not
depend on the scale's zero, a participant who played little does not hold everyone's ranks
open, a provisional row may rank anywhere, and they still hold the true ranks as often as
they say, on plays they did not see."""

from __future__ import annotations

import numpy as np

from arena.tournaments.ratings.bootstrap import percentile_intervals, rank_draws, rank_ranges
from arena.tournaments.ratings.leaderboard import LeaderboardConfig, compute_leaderboard
from arena.tournaments.ratings.records import MatchRecord, SeatRecord

STRENGTHS = {"a": 1.2, "b": 0.6, "c": 0.0, "late": -0.3}
PLAYS = {("a", "b"): 150, ("b", "c"): 150, ("a", "c"): 150, ("late", "c"): 30}


def duel(key: str, first: str, second: str, first_wins: bool) -> MatchRecord:
    won = 1.0 if first_wins else 0.0
    seats = (SeatRecord("first", first, won), SeatRecord("second", second, 1.0 - won))
    return MatchRecord(key, "g", f"map{key}", seats)


def played(rng: np.random.Generator) -> list[MatchRecord]:
    """Three participants well measured, one ("late") on four matches only."""
    records = []
    for (a, b), n in PLAYS.items():
        p = 1.0 / (1.0 + np.exp(STRENGTHS[b] - STRENGTHS[a]))
        for k in range(n):
            first, second = (a, b) if k % 2 == 0 else (b, a)
            records.append(duel(f"{a}{b}{k}", first, second, (rng.random() < p) == (first == a)))
    return records


def spans(rows: object) -> dict[str, tuple[int, int]]:
    return {r.participant: (r.rank_low, r.rank_high) for r in rows}  # type: ignore[attr-defined]


def test_rank_ranges_do_not_depend_on_the_anchor() -> None:
    records = played(np.random.default_rng(0))
    plain = compute_leaderboard(records, LeaderboardConfig(n_resamples=300))
    anchored = compute_leaderboard(records, LeaderboardConfig(n_resamples=300, anchor="late"))
    assert spans(plain.rows) == spans(anchored.rows)
    # the anchor moved the displayed intervals (late's is a point, the others' widened) ...
    late = next(r for r in anchored.rows if r.participant == "late")
    assert late.ci_low == late.ci_high
    # ... and ranks read off those displayed intervals would say less than the board's
    assert anchored.draws is not None
    low, high = rank_ranges(*percentile_intervals(anchored.draws, 0.95))
    read = dict(zip(anchored.names, (int(h - lo) for lo, h in zip(low, high, strict=True)),
                    strict=True))
    for name in ("a", "b"):
        width = spans(anchored.rows)[name][1] - spans(anchored.rows)[name][0]
        assert width < read[name], (name, width, read[name])


def test_rank_ranges_hold_the_true_ranks_in_new_plays() -> None:
    """Calibration on plays the estimator never saw: over 40 seeded plays of the design above,
    the rank ranges at 95 % hold every participant's true rank at least 95 % of the time."""
    truth = {n: i + 1 for i, n in enumerate(sorted(STRENGTHS, key=lambda n: -STRENGTHS[n]))}
    held = total = settled_a = 0
    for seed in range(40):
        rows = compute_leaderboard(played(np.random.default_rng(100 + seed)),
                                   LeaderboardConfig(n_resamples=200, seed=seed)).rows
        for r in rows:
            total += 1
            held += r.rank_low <= truth[r.participant] <= r.rank_high
            settled_a += r.participant == "a" and r.rank_low == r.rank_high
    assert held / total >= 0.95, (held, total)
    assert settled_a >= 20  # and they are not vacuous: a is ranked first alone in most plays


def test_a_provisional_row_may_rank_anywhere_and_pushes_nobody_down() -> None:
    """late won its four matches: the bootstrap of four wins is the same narrow, high
    interval every time, which read as it is would rank late first and everyone else a
    place lower than they are."""
    records = played(np.random.default_rng(0))
    records = [r for r in records if all(s.participant != "late" for s in r.players)]
    records += [duel(f"late{k}", "late", "c", True) for k in range(4)]
    board = compute_leaderboard(records, LeaderboardConfig(n_resamples=300))
    ranks = spans(board.rows)
    assert ranks["late"] == (1, 4)
    assert ranks["a"][0] == 1 and ranks["c"][1] == 4
    assert board.draws is not None
    low, high = rank_ranges(*percentile_intervals(board.draws, 0.95))
    assert dict(zip(board.names, low.tolist(), strict=True))["late"] == 1  # read as it is
    assert dict(zip(board.names, high.tolist(), strict=True))["late"] == 1


EVAL_STRENGTHS = {"e0": 1.2, "e1": 0.6, "e2": 0.0, "e3": -1.5, "e4": -2.0}


def eval_play(rng: np.random.Generator) -> list[MatchRecord]:
    """An adaptive-like eval design: 8 maps of everyone (32 comparisons each, so none is
    provisional), then 24 maps of the top three only (scores: strength + map shift + Gumbel
    noise)."""
    records = []
    for m in range(32):
        shift = float(rng.normal(0.0, 2.0))
        who = EVAL_STRENGTHS if m < 8 else ("e0", "e1", "e2")
        for name in who:
            score = EVAL_STRENGTHS[name] + shift + float(rng.gumbel())
            seats = (SeatRecord("main", name, score), SeatRecord("npc", "npc", 0.0, npc=True))
            records.append(MatchRecord(f"{m}:{name}", "g", f"map{m}", seats, mode="eval"))
    return records


def test_eval_rank_ranges_of_an_uneven_design_hold_and_close_sooner() -> None:
    """The top three played four times the maps of the two below: over 30 plays the rank
    ranges hold the true ranks at least 95 % of the time, and are narrower than ranges read
    off the displayed intervals (centred on the plain mean, which carries the uncertainty of
    the two barely measured)."""
    truth = {n: i + 1 for i, n in
             enumerate(sorted(EVAL_STRENGTHS, key=lambda n: -EVAL_STRENGTHS[n]))}
    held = total = width = width_plain = 0
    for seed in range(30):
        board = compute_leaderboard(eval_play(np.random.default_rng(500 + seed)),
                                    LeaderboardConfig(n_resamples=200, seed=seed))
        assert board.resample == "cluster" and board.draws is not None
        low, high = rank_ranges(*percentile_intervals(board.draws, 0.95))
        plain = dict(zip(board.names, (high - low).tolist(), strict=True))
        for r in board.rows:
            total += 1
            held += r.rank_low <= truth[r.participant] <= r.rank_high
            if r.participant in ("e0", "e1", "e2"):
                width += r.rank_high - r.rank_low
                width_plain += plain[r.participant]
    assert held / total >= 0.95, (held, total)
    assert width < 0.9 * width_plain, (width, width_plain)  # 151 against 189 ranks


def test_draws_that_never_vary_measure_from_the_plain_mean() -> None:
    """Every resample alike (or a single participant): equal weights, no overflow, no NaN."""
    same = np.tile(np.array([[0.5, 0.0, -0.5]]), (20, 1))
    assert np.allclose(rank_draws(same), same)
    assert np.allclose(rank_draws(np.zeros((10, 1))), 0.0)
