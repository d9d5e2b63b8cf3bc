"""Bootstrap over matches, percentile intervals and CI-aware rank ranges (SCORING.md section 5).

Resampling unit: the *match* (not the comparison). A resample draws as many matches as there
are, with replacement; a comparison row occurs as often as its match (head-to-head) or as the
product of its two matches' counts (eval mode, where a comparison links two matches).

Game weighting: with ``weight_games=True`` match i is drawn with probability proportional to
1 / (number of matches of its game), as GameBench does (its eq. 1). We implement it by
*sampling*: first a game uniformly, then a match of that game uniformly, which gives exactly
those probabilities and needs only integer draws. The point fit uses the matching *weighted
likelihood* (each match weighted by its expected count in a resample), see
:func:`expected_match_counts`.

Map bootstrap (``resample="map"``, issue 30): matches on one map of a game share its
stories, and every participant plays the same maps, so their outcomes are not independent;
a board read mid-run has seen only some maps, and the match bootstrap's intervals are then
too narrow to contain the final board as often as they say. The map bootstrap is a
two-stage cluster bootstrap, stratified by game: each game's maps are drawn with
replacement (as many as it has), then each drawn map's matches with replacement; a match's
expected count stays 1, scaled by the game weight above, so the point fit is unchanged.

Cluster bootstrap (``resample="cluster"``): whole maps only, stratified by game, each game's
maps drawn with replacement (as many as it has) and every match of a map drawn ``k`` times
kept: ``k`` times for a head-to-head match, ``sqrt(k)`` times for an eval match, so that a
comparison of two eval matches of the map (a product of their counts) counts ``k`` times.
An eval map's comparisons all share its entrants' scores, and the match bootstrap, which
draws those scores one by one, is too wide for eval boards (1.2x to 1.6x the spread of the
point fit over independent plays, 1.7x to 2.2x for maps of two entrants); drawing whole
maps is within 0.94x to 1.27x (benchmarks/eval_design_check.py,
tests/tournaments/test_cluster_bootstrap.py). A bootstrap over ``G`` clusters varies
``(G - 1) / G`` as much as the clusters do, which matters when a game has few maps, so the
draws are widened about their mean by ``sqrt(G / (G - 1))``, ``G`` the fewest maps of any
game. With fewer than `CLUSTER_MIN_MAPS` maps of a game even that is too narrow (a board
read after two maps of each game held the final rating 88 % of the time,
benchmarks/midrun_bench.py), so ``resample="auto"``, the default, draws whole maps only
for eval boards whose every game has that many maps, and matches otherwise.

Each resample is refitted warm-started from the full fit; strengths are centred per resample
(mean 0, natural log) before any scale or anchor is applied.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.tournaments.ratings.bradley_terry import DEFAULT_PRIOR, Design, solve
from arena.tournaments.ratings.comparisons import ComparisonData, FloatArray, IntArray
from arena.tournaments.ratings.errors import RatingInputError


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Per-resample strengths (``n_resamples x participants``, natural log, mean 0) and role
    effects (``n_resamples x roles``)."""

    participants: tuple[str, ...]
    strengths: FloatArray
    roles: tuple[str, ...]
    role_effects: FloatArray
    not_converged: int


class MatchSampler:
    """Draws match counts for one resample (see module docstring)."""

    def __init__(self, match_game: IntArray, weight_games: bool) -> None:
        self.n = int(match_game.size)
        self.weight_games = weight_games
        order = np.argsort(match_game, kind="stable")
        sizes = np.bincount(match_game)
        self.order = order
        self.sizes = sizes[sizes > 0].astype(np.int64)
        self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)

    def counts(self, rng: np.random.Generator) -> FloatArray:
        if self.n == 0:
            return np.zeros(0)
        if not self.weight_games:
            picks = rng.integers(0, self.n, size=self.n)
            return np.bincount(picks, minlength=self.n).astype(np.float64)
        g = rng.integers(0, self.sizes.size, size=self.n)
        local = np.floor(rng.random(self.n) * self.sizes[g]).astype(np.int64)
        picks = self.order[self.starts[g] + local]
        return np.bincount(picks, minlength=self.n).astype(np.float64)


class MapSampler:
    """Draws match counts for map-bootstrap resamples (see module docstring)."""

    def __init__(self, match_game: IntArray, match_map: IntArray, weight_games: bool) -> None:
        self.n = int(match_game.size)
        self.scale = expected_match_counts(match_game, weight_games)
        self.by_map = np.argsort(match_map, kind="stable")  # matches, grouped by map
        _, first, self.map_size = np.unique(match_map[self.by_map], return_index=True,
                                            return_counts=True)
        self.map_start = first.astype(np.int64)
        game_of_map = match_game[self.by_map[first]]
        self.maps_by_game = np.argsort(game_of_map, kind="stable")
        _, game_first, self.game_maps = np.unique(game_of_map[self.maps_by_game],
                                                  return_index=True, return_counts=True)
        self.game_first = game_first.astype(np.int64)

    def drawn_maps(self, rng: np.random.Generator) -> IntArray:
        """Stage 1: each game draws as many of its maps as it has (map indices, repeated)."""
        game = np.repeat(np.arange(self.game_maps.size), self.game_maps)
        local = np.floor(rng.random(game.size) * self.game_maps[game]).astype(np.int64)
        return np.asarray(self.maps_by_game[self.game_first[game] + local], dtype=np.int64)

    def counts(self, rng: np.random.Generator) -> FloatArray:
        """One resample's count per match."""
        if self.n == 0:
            return np.zeros(0)
        maps = self.drawn_maps(rng)
        # stage 2: each drawn map draws as many of its matches as it has
        sizes = self.map_size[maps]
        drawn_map = np.repeat(maps, sizes)
        pick = np.floor(rng.random(drawn_map.size) * self.map_size[drawn_map]).astype(np.int64)
        matches = self.by_map[self.map_start[drawn_map] + pick]
        return np.bincount(matches, minlength=self.n) * self.scale


class ClusterSampler(MapSampler):
    """Draws match counts for cluster-bootstrap resamples (see module docstring): whole maps
    only, a map drawn ``k`` times counting each of its head-to-head matches ``k`` times and
    each of its eval matches ``sqrt(k)`` times, so that every comparison on it (a product of
    two eval matches' counts) counts ``k`` times too."""

    def __init__(self, match_game: IntArray, match_map: IntArray, eval_match: IntArray,
                 weight_games: bool) -> None:
        super().__init__(match_game, match_map, weight_games)
        self.map_of = np.unique(match_map, return_inverse=True)[1].reshape(-1)
        self.n_maps = int(self.map_size.size)
        self.eval = np.zeros(self.n, dtype=bool)
        self.eval[eval_match] = True
        fewest = int(self.game_maps.min()) if self.game_maps.size else 1
        self.widening = float(np.sqrt(fewest / (fewest - 1))) if fewest > 1 else 1.0

    def counts(self, rng: np.random.Generator) -> FloatArray:
        """One resample's count per match."""
        if self.n == 0:
            return np.zeros(0)
        drawn = np.bincount(self.drawn_maps(rng), minlength=self.n_maps)[self.map_of]
        shared = np.where(self.eval, np.sqrt(drawn), drawn.astype(np.float64))
        return np.asarray(shared * self.scale, dtype=np.float64)


RESAMPLING = ("auto", "match", "map", "cluster")
CLUSTER_MIN_MAPS = 4  # auto draws whole maps once every game has this many (module docstring)


def resolved_unit(data: ComparisonData, resample: str) -> str:
    """The unit ``resample`` names; ``"auto"``: whole maps (cluster) for a board with eval
    comparisons whose every game has at least `CLUSTER_MIN_MAPS` maps, else matches."""
    if resample != "auto":
        return resample
    if data.eval_groups is None or data.match_map is None or data.match_game.size == 0:
        return "match"
    maps = np.unique(np.stack([data.match_game, data.match_map]), axis=1)[0]
    fewest = int(np.bincount(maps).min()) if maps.size else 0
    return "cluster" if fewest >= CLUSTER_MIN_MAPS else "match"


def sampler_for(
    data: ComparisonData, resample: str, weight_games: bool
) -> MatchSampler | MapSampler:
    """The resampling unit's sampler: matches, maps then their matches (two-stage), whole
    maps (cluster), or what ``auto`` resolves to (`resolved_unit`)."""
    if resample not in RESAMPLING:
        raise RatingInputError(
            f"Unknown resampling unit '{resample}'. Valid options: {', '.join(RESAMPLING)}."
        )
    resample = resolved_unit(data, resample)
    if resample == "match":
        return MatchSampler(data.match_game, weight_games)
    maps = data.match_map if data.match_map is not None else np.arange(data.match_game.size)
    if resample == "map":
        return MapSampler(data.match_game, maps, weight_games)
    groups = data.eval_groups
    eval_match = np.zeros(0, dtype=np.int64) if groups is None else groups.match
    return ClusterSampler(data.match_game, maps, eval_match, weight_games)


def expected_match_counts(match_game: IntArray, weight_games: bool) -> FloatArray:
    """Expected count of each match in one resample: 1 unweighted, n / (G * n_game) weighted."""
    n = match_game.size
    if not weight_games or n == 0:
        return np.ones(n)
    sizes = np.bincount(match_game)
    n_games = int(np.count_nonzero(sizes))
    return n / (n_games * sizes[match_game].astype(np.float64))


def bootstrap(
    data: ComparisonData,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    prior: float = DEFAULT_PRIOR,
    role_effects: bool = False,
    weight_games: bool = True,
    start: FloatArray | None = None,
    resample: str = "match",
) -> BootstrapResult:
    """Refit on ``n_resamples`` resamples of matches (or of maps, then their matches:
    ``resample="map"``); deterministic given data and seed."""
    if n_resamples < 1:
        raise RatingInputError(f"n_resamples={n_resamples}; it must be at least 1 (default 1000).")
    rng = np.random.default_rng(seed)
    design = Design(data, role_effects)
    sampler = sampler_for(data, resample, weight_games)
    p = design.n_participants
    out = np.empty((n_resamples, design.dim))
    failed = 0
    for i in range(n_resamples):
        counts = sampler.counts(rng)
        wins, total = data.aggregate(counts)
        x, _, ok = solve(design, wins, total, prior=prior, start=start)
        failed += not ok
        out[i] = x
    theta = out[:, :p] - out[:, :p].mean(axis=1, keepdims=True)
    effects = out[:, p:]
    if isinstance(sampler, ClusterSampler):  # few clusters: a resample varies too little
        theta, effects = (x.mean(axis=0) + sampler.widening * (x - x.mean(axis=0))
                          for x in (theta, effects))
    roles = data.roles if role_effects else ()
    return BootstrapResult(data.participants, theta, roles, effects, failed)


def percentile_intervals(
    samples: FloatArray, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Equal-tailed percentile intervals per column (linear interpolation between order
    statistics)."""
    if not 0.0 < confidence < 1.0:
        raise RatingInputError(
            f"confidence={confidence}; it must lie strictly between 0 and 1 (e.g. 0.95)."
        )
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(samples, [tail, 100.0 - tail], axis=0)
    return low, high


def rank_draws(draws: FloatArray) -> FloatArray:
    """Resampled strengths measured from the zero the draws fix best, for rank ranges: each
    draw less its mean over participants weighted by their precision (one over the variance
    of their centred draws).

    A rank compares participants with each other, which no choice of the scale's zero
    changes; but the intervals of ratings centred on the plain mean (or on an anchor
    participant) all carry that zero's uncertainty, and it is dominated by whoever is
    measured least: one who played little, or a group so far below the rest that their
    distance is barely known. Adaptive pairing stops playing those, and their uncertainty
    would keep every interval open. Weighted by precision, the zero follows those measured
    best; measured alike (a full round robin of a close field), it is the plain mean, and
    the ranges are those of the board's own intervals."""
    centred = draws - draws.mean(axis=1, keepdims=True)
    spread = centred.var(axis=0)
    # relative precision, at most 1: no overflow, and equal weights where nothing varies
    floor = max(float(spread.max()) * 1e-9, np.finfo(np.float64).tiny)
    precision = floor / np.maximum(spread, floor)
    zero = centred @ (precision / precision.sum())
    return np.asarray(centred - zero[:, None], dtype=np.float64)


def rank_ranges(ci_low: FloatArray, ci_high: FloatArray) -> tuple[IntArray, IntArray]:
    """CI-aware ranks (1 = best): the ranks compatible with each interval (the board passes
    intervals of `rank_draws`).

    ``rank_low`` (best possible rank) = 1 + the number of others whose interval lies entirely
    above (``ci_low_j > ci_high_i``); ``rank_high`` (worst possible rank) = 1 + the number of
    others that could be above (``ci_high_j >= ci_low_i``: not entirely below). Intervals that
    touch count as overlapping.
    """
    lo = np.asarray(ci_low, dtype=np.float64)
    hi = np.asarray(ci_high, dtype=np.float64)
    n = lo.size
    others = ~np.eye(n, dtype=bool)
    surely_above = (lo[None, :] > hi[:, None]) & others
    maybe_above = (hi[None, :] >= lo[:, None]) & others
    return 1 + surely_above.sum(axis=1), 1 + maybe_above.sum(axis=1)
