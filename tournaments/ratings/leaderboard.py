"""The leaderboard of record: Bradley–Terry point ratings, bootstrap intervals, rank ranges.

:func:`leaderboard` turns match records into rows
``{participant, rating, ci_low, ci_high, rank_low, rank_high, n_comparisons, provisional}``,
sorted by rating (best first, ties by name). It is deterministic given the records (in any
order) and ``config.seed``.

Point rating (``config.point``):

* ``"mle"`` (default): the MAP fit on all data, each match weighted by its expected count in a
  game-weighted resample, so the point estimate and the intervals weigh games alike.
* ``"bootstrap_mean"``: the mean of the resampled strengths, as GameBench reports (its eq. 3).

``n_comparisons`` counts the comparison rows a participant is in; below
``config.min_comparisons`` the row is provisional.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Literal

import numpy as np

from arena.errors import UnknownNameError
from arena.tournaments.ratings.bootstrap import (
    BootstrapResult,
    bootstrap,
    expected_match_counts,
    percentile_intervals,
    rank_draws,
    rank_ranges,
    resolved_unit,
)
from arena.tournaments.ratings.bradley_terry import (
    DEFAULT_PRIOR,
    ELO_PER_NATURAL,
    BTFit,
    Scale,
    fit,
    to_scale,
)
from arena.tournaments.ratings.comparisons import (
    ComparisonData,
    FloatArray,
    comparisons_from_records,
)
from arena.tournaments.ratings.errors import RatingInputError
from arena.tournaments.ratings.records import MatchRecord

PointEstimate = Literal["mle", "bootstrap_mean"]
MIN_COMPARISONS = 30  # below, a row is provisional: its interval may say nothing yet


@dataclass(frozen=True)
class LeaderboardConfig:
    """Options of :func:`leaderboard`; the defaults follow SCORING.md section 5."""

    n_resamples: int = 1000
    confidence: float = 0.95
    seed: int = 0
    prior: float = DEFAULT_PRIOR
    role_effects: bool = False
    weight_games: bool = True
    resample: str = "auto"  # the bootstrap's unit (bootstrap.RESAMPLING, resolved_unit)
    scale: Scale = "elo"
    anchor: str | None = None
    anchor_value: float | None = None
    min_comparisons: int = MIN_COMPARISONS
    point: PointEstimate = "mle"


@dataclass(frozen=True)
class LeaderboardRow:
    participant: str
    rating: float
    ci_low: float
    ci_high: float
    rank_low: int
    rank_high: int
    n_comparisons: int
    provisional: bool


def rank_settled(row: LeaderboardRow) -> bool:
    """Whether a row's place is settled: one rank left at the board's confidence, on a rating
    that is not provisional (a handful of comparisons all won gives every resample the same
    narrow interval). The one rule `stop_when = "settled"` and the cost per settled rank
    share."""
    return row.rank_low == row.rank_high and not getattr(row, "provisional", False)


@dataclass(frozen=True, eq=False)
class Leaderboard:
    """Rows plus what produced them: role effects (on the rating scale's units, not shifted),
    the full fit and the bootstrap samples."""

    rows: tuple[LeaderboardRow, ...]
    role_effects: dict[str, float] = field(default_factory=dict)
    fit: BTFit | None = None
    samples: BootstrapResult | None = None
    draws: FloatArray | None = None  # the resampled ratings on the rows' scale (draw x name)
    names: tuple[str, ...] = ()  # the columns of `draws`
    resample: str = "match"  # the bootstrap's unit, "auto" resolved (bootstrap.resolved_unit)

    def as_dicts(self) -> list[dict[str, object]]:
        return [asdict(r) for r in self.rows]


def leaderboard_from_comparisons(
    data: ComparisonData, config: LeaderboardConfig = LeaderboardConfig()
) -> Leaderboard:
    """Leaderboard from comparisons already in array form (e.g. the GameBench import)."""
    if config.point not in ("mle", "bootstrap_mean"):
        raise RatingInputError(
            f"Unknown point estimate '{config.point}'. Valid options: bootstrap_mean, mle."
        )
    names = data.participants
    if not names:
        return Leaderboard(())
    anchor_index = None
    if config.anchor is not None:
        if config.anchor not in names:
            raise UnknownNameError(
                "anchor participant", config.anchor, names, "Pick a participant that has matches."
            )
        anchor_index = names.index(config.anchor)
    weights = expected_match_counts(data.match_game, config.weight_games)
    resample = resolved_unit(data, config.resample)  # "auto" once, for the draws and the board
    full = fit(data, prior=config.prior, role_effects=config.role_effects, match_weights=weights)
    boot = bootstrap(
        data,
        n_resamples=config.n_resamples,
        seed=config.seed,
        prior=config.prior,
        role_effects=config.role_effects,
        weight_games=config.weight_games,
        start=full.params,
        resample=resample,
    )
    scaled = to_scale(boot.strengths, config.scale, anchor_index, config.anchor_value)
    point_theta = (
        boot.strengths.mean(axis=0) if config.point == "bootstrap_mean" else full.strengths
    )
    rating = to_scale(point_theta, config.scale, anchor_index, config.anchor_value)
    low, high = percentile_intervals(scaled, config.confidence)
    n_comp = data.comparisons_per_participant()
    # ranks compare participants with each other, so they are read from the draws measured
    # from the best-known zero, not from the plain mean or the anchor (`rank_draws`); a
    # provisional row may rank anywhere: a dozen comparisons all won resample to the same
    # narrow interval, which would otherwise push everyone else's ranks down
    between_low, between_high = percentile_intervals(rank_draws(boot.strengths),
                                                     config.confidence)
    early = n_comp < config.min_comparisons
    r_low, r_high = rank_ranges(
        np.where(early, -np.inf, between_low), np.where(early, np.inf, between_high)
    )
    rows = [
        LeaderboardRow(
            participant=name,
            rating=float(rating[i]),
            ci_low=float(low[i]),
            ci_high=float(high[i]),
            rank_low=int(r_low[i]),
            rank_high=int(r_high[i]),
            n_comparisons=int(n_comp[i]),
            provisional=bool(early[i]),
        )
        for i, name in enumerate(names)
    ]
    rows.sort(key=lambda r: (-r.rating, r.participant))
    unit = ELO_PER_NATURAL if config.scale == "elo" else 1.0
    roles = {role: float(unit * g) for role, g in zip(full.roles, full.role_effects, strict=True)}
    return Leaderboard(tuple(rows), roles, full, boot, scaled, tuple(names), resample)


def compute_leaderboard(
    records: Iterable[MatchRecord], config: LeaderboardConfig = LeaderboardConfig()
) -> Leaderboard:
    """Leaderboard with details (role effects, fit, bootstrap samples) from match records."""
    return leaderboard_from_comparisons(comparisons_from_records(records), config)


def leaderboard(
    records: Iterable[MatchRecord], config: LeaderboardConfig = LeaderboardConfig()
) -> list[dict[str, object]]:
    """Leaderboard rows as plain dicts (see module docstring)."""
    return compute_leaderboard(records, config).as_dicts()
