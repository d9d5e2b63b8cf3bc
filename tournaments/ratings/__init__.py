"""Ratings of the Xent Arena: pure functions over match records (SCORING.md sections 1-5).

Typical use::

    from arena.tournaments.ratings import LeaderboardConfig, MatchRecord, SeatRecord, leaderboard
    rows = leaderboard(records, LeaderboardConfig(seed=0))
"""

from arena.tournaments.ratings.bootstrap import (
    BootstrapResult,
    bootstrap,
    percentile_intervals,
    rank_ranges,
)
from arena.tournaments.ratings.bradley_terry import BTFit, fit, to_scale
from arena.tournaments.ratings.comparisons import (
    ComparisonData,
    build_comparisons,
    comparisons_from_records,
)
from arena.tournaments.ratings.elo import elo_update, online_elo
from arena.tournaments.ratings.errors import RatingInputError
from arena.tournaments.ratings.leaderboard import (
    Leaderboard,
    LeaderboardConfig,
    LeaderboardRow,
    compute_leaderboard,
    leaderboard,
    leaderboard_from_comparisons,
)
from arena.tournaments.ratings.outcomes import (
    TIE_TOLERANCE_BITS,
    Outcome,
    compare_seats,
    pairwise_outcomes,
)
from arena.tournaments.ratings.rank_probabilities import rank_probabilities
from arena.tournaments.ratings.records import MatchRecord, SeatRecord

__all__ = [
    "TIE_TOLERANCE_BITS",
    "BTFit",
    "BootstrapResult",
    "ComparisonData",
    "Leaderboard",
    "LeaderboardConfig",
    "LeaderboardRow",
    "MatchRecord",
    "Outcome",
    "RatingInputError",
    "SeatRecord",
    "bootstrap",
    "build_comparisons",
    "compare_seats",
    "comparisons_from_records",
    "compute_leaderboard",
    "elo_update",
    "fit",
    "leaderboard",
    "leaderboard_from_comparisons",
    "online_elo",
    "pairwise_outcomes",
    "percentile_intervals",
    "rank_probabilities",
    "rank_ranges",
    "to_scale",
]
