"""How much a ranking depends on its judge: the same matches judged twice (`arena rescore`),
compared.

Both leaderboards are rated as `arena ratings` rates them (one `LeaderboardConfig`), on the
matches the two share (a rescore left half-done compares only what it finished). The point
is Kendall's tau-b between the two boards' ratings; its interval comes from a paired match
bootstrap: each resample draws matches once (GameBench's game-weighted draw when
``weight_games``) and refits *both* boards on that same draw, so the interval holds the
uncertainty of the matches, not of two independent samples. A participant's rank changed
when its place in rating order differs; the change is *clear* when its two rank ranges
(CI-aware, as the boards show them) do not even overlap.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau

from arena.tournaments.ratings.bootstrap import MatchSampler, percentile_intervals
from arena.tournaments.ratings.bradley_terry import Design, solve
from arena.tournaments.ratings.comparisons import ComparisonData, comparisons_from_records
from arena.tournaments.ratings.errors import RatingInputError
from arena.tournaments.ratings.leaderboard import (
    Leaderboard,
    LeaderboardConfig,
    LeaderboardRow,
    leaderboard_from_comparisons,
)
from arena.tournaments.ratings.records import MatchRecord

DEFAULT_BOARD = LeaderboardConfig()


@dataclass(frozen=True)
class RankShift:
    """One participant on both boards (rank 1 = best rating)."""

    participant: str
    rank_a: int
    rank_b: int
    rating_a: float
    rating_b: float
    range_a: tuple[int, int]
    range_b: tuple[int, int]

    @property
    def changed(self) -> bool:
        return self.rank_a != self.rank_b

    @property
    def clear(self) -> bool:
        """The two rank ranges do not overlap."""
        return self.range_a[1] < self.range_b[0] or self.range_b[1] < self.range_a[0]


@dataclass(frozen=True)
class Sensitivity:
    tau: float
    tau_low: float
    tau_high: float
    confidence: float
    resamples: int
    matches: int
    participants: tuple[RankShift, ...]

    @property
    def changed(self) -> tuple[RankShift, ...]:
        return tuple(p for p in self.participants if p.changed)

    def as_dict(self) -> dict[str, object]:
        return {
            "kendall_tau": self.tau,
            "tau_interval": [self.tau_low, self.tau_high],
            "confidence": self.confidence,
            "resamples": self.resamples,
            "matches": self.matches,
            "participants": [
                {
                    "participant": p.participant,
                    "rank": p.rank_a,
                    "rank_rescored": p.rank_b,
                    "rating": p.rating_a,
                    "rating_rescored": p.rating_b,
                    "rank_range": list(p.range_a),
                    "rank_range_rescored": list(p.range_b),
                    "changed": p.changed,
                    "clear": p.clear,
                }
                for p in self.participants
            ],
        }


def _tau(x: Sequence[float], y: Sequence[float]) -> float:
    value = float(kendalltau(x, y).statistic)
    return value if math.isfinite(value) else 0.0  # a board where all tie orders nothing


def _ranks(rows: Sequence[LeaderboardRow]) -> dict[str, LeaderboardRow]:
    return {r.participant: r for r in rows}


def judge_sensitivity(
    records_a: Sequence[MatchRecord],
    records_b: Sequence[MatchRecord],
    pairs: Mapping[str, str],
    config: LeaderboardConfig = DEFAULT_BOARD,
) -> Sensitivity:
    """Compare the board of ``records_a`` with that of ``records_b`` (the same matches
    judged again; ``pairs`` maps a match id of a to its copy's id in b)."""
    by_b = {r.match_id: r for r in records_b}
    shared = [r for r in records_a if pairs.get(r.match_id) in by_b]
    mine = [by_b[pairs[r.match_id]] for r in shared]
    data_a = comparisons_from_records(shared)
    data_b = comparisons_from_records(mine)
    board_a = leaderboard_from_comparisons(data_a, config)
    board_b = leaderboard_from_comparisons(data_b, config)
    names = sorted(set(data_a.participants) & set(data_b.participants))
    if len(names) < 2:
        raise RatingInputError(
            f"The two boards share {len(names)} rated participant(s); comparing rankings "
            "needs at least 2. Rescore a tournament with more participants."
        )
    rows_a, rows_b = _ranks(board_a.rows), _ranks(board_b.rows)
    place_a = _places(board_a, names)
    place_b = _places(board_b, names)
    tau = _tau([rows_a[n].rating for n in names], [rows_b[n].rating for n in names])
    samples = _paired_taus(data_a, data_b, pairs, names, board_a, board_b, config)
    low, high = percentile_intervals(samples[:, None], config.confidence)
    shifts = tuple(
        RankShift(
            n, place_a[n], place_b[n], rows_a[n].rating, rows_b[n].rating,
            (rows_a[n].rank_low, rows_a[n].rank_high), (rows_b[n].rank_low, rows_b[n].rank_high),
        )
        for n in sorted(names, key=lambda n: (place_a[n], n))
    )
    return Sensitivity(tau, float(low[0]), float(high[0]), config.confidence,
                       config.n_resamples, len(shared), shifts)


def _places(board: Leaderboard, names: Sequence[str]) -> dict[str, int]:
    """1-based places in rating order among `names` (the board's own order)."""
    ordered = [r.participant for r in board.rows if r.participant in set(names)]
    return {n: i + 1 for i, n in enumerate(ordered)}


def _paired_taus(
    data_a: ComparisonData,
    data_b: ComparisonData,
    pairs: Mapping[str, str],
    names: Sequence[str],
    board_a: Leaderboard,
    board_b: Leaderboard,
    config: LeaderboardConfig,
) -> np.ndarray:
    """Kendall's tau between the two boards refitted on the same match resamples."""
    rng = np.random.default_rng(config.seed)
    sampler = MatchSampler(data_a.match_game, config.weight_games)
    at_b = {m: i for i, m in enumerate(data_b.match_ids)}
    to_b = np.array([at_b[pairs[m]] for m in data_a.match_ids], dtype=np.int64)
    design_a = Design(data_a, config.role_effects)
    design_b = Design(data_b, config.role_effects)
    cols_a = [data_a.participants.index(n) for n in names]
    cols_b = [data_b.participants.index(n) for n in names]
    start_a = None if board_a.fit is None else board_a.fit.params
    start_b = None if board_b.fit is None else board_b.fit.params
    out = np.empty(config.n_resamples)
    for i in range(config.n_resamples):
        counts = sampler.counts(rng)
        counts_b = np.zeros(len(data_b.match_ids))
        counts_b[to_b] = counts
        xa, _, _ = solve(design_a, *data_a.aggregate(counts), prior=config.prior, start=start_a)
        xb, _, _ = solve(design_b, *data_b.aggregate(counts_b), prior=config.prior,
                         start=start_b)
        out[i] = _tau(xa[cols_a].tolist(), xb[cols_b].tolist())
    return out
