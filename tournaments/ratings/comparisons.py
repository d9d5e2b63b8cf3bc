"""Comparisons in array form, ready for fitting and for the match bootstrap.

:class:`ComparisonData` indexes participants, role-effect keys (``"game:role"``), matches and
games, and stores one row per :class:`~arena.tournaments.ratings.outcomes.Outcome`. It also holds
every match, including matches that gave no comparison (an exact draw left out, a match whose
seats are all NPCs): the bootstrap draws from all matches, as GameBench does.

Rows are *aggregated* by key ``(a, b, role_a, role_b)`` with ``a < b``; a fit only sees the
per-key win and total weights, which a resample recomputes with two ``numpy.bincount`` calls.
Eval-mode comparisons (every pair of comparable matches) are not stored as rows: their per-key
sums come from :class:`~arena.tournaments.ratings.eval_groups.EvalGroups`, which computes them
from the match counts in a few array passes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import NDArray

from arena.tournaments.ratings.errors import RatingInputError
from arena.tournaments.ratings.eval_groups import (
    EvalGroups,
    build_eval_groups,
    comparable_groups,
    group_roles,
    pair_codes,
)
from arena.tournaments.ratings.outcomes import Outcome, pairwise_outcomes
from arena.tournaments.ratings.records import MatchRecord

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class ComparisonData:
    """Comparisons as parallel arrays plus the aggregation keys.

    Per comparison row: ``key`` (aggregated key index), ``score`` (a's share of the win, with
    a < b after canonical orientation), ``weight``, ``match_a``/``match_b`` (match indices).
    Per key: ``key_a``, ``key_b`` (participant indices) and ``key_ra``, ``key_rb`` (role
    indices). Per match: ``match_game`` (game index) and ``match_map`` (the index of its
    (game, map): the cluster a map bootstrap draws). ``eval_groups``: the eval-mode
    comparisons, kept as groups of comparable matches instead of rows.
    """

    participants: tuple[str, ...]
    roles: tuple[str, ...]
    match_ids: tuple[str, ...]
    games: tuple[str, ...]
    match_game: IntArray
    key: IntArray
    score: FloatArray
    weight: FloatArray
    match_a: IntArray
    match_b: IntArray
    key_a: IntArray
    key_b: IntArray
    key_ra: IntArray
    key_rb: IntArray
    eval_groups: EvalGroups | None = None
    match_map: IntArray | None = None  # None: every match its own map

    @property
    def n_comparisons(self) -> int:
        extra = 0 if self.eval_groups is None else self.eval_groups.n_comparisons
        return int(self.key.size) + extra

    @property
    def n_keys(self) -> int:
        return int(self.key_a.size)

    def comparisons_per_participant(self) -> IntArray:
        """How many comparison rows each participant took part in."""
        p = len(self.participants)
        ka, kb = self.key_a[self.key], self.key_b[self.key]
        rows = np.bincount(ka, minlength=p) + np.bincount(kb, minlength=p)
        return rows if self.eval_groups is None else rows + self.eval_groups.per_participant

    def aggregate(self, match_counts: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
        """Per-key (wins of a, total) weights when match i occurs ``match_counts[i]`` times
        (default once each): a row counts as often as its match, or as the product of its
        two matches' counts (eval mode)."""
        mult = None if match_counts is None else self.row_multiplicity(match_counts)
        w = self.weight if mult is None else self.weight * mult
        k = self.n_keys
        wins = weighted_bincount(self.key, w * self.score, k)
        total = weighted_bincount(self.key, w, k)
        if self.eval_groups is not None:
            ew, et = self.eval_groups.aggregate(match_counts)
            wins, total = wins + ew, total + et
        return wins, total

    def row_multiplicity(self, match_counts: FloatArray) -> FloatArray:
        """How often each comparison row occurs when match i occurs ``match_counts[i]`` times.

            Head-to-head rows depend on one match; eval rows on two matches (a product). Rows
        only: the eval groups take the counts themselves (:meth:`aggregate`).
        """
        mult = match_counts[self.match_a]
        cross = self.match_a != self.match_b
        if np.any(cross):
            mult = mult.copy()
            mult[cross] *= match_counts[self.match_b[cross]]
        return mult


def weighted_bincount(idx: IntArray, weights: FloatArray, size: int) -> FloatArray:
    """``numpy.bincount`` with weights (float result; numpy's stubs type it as int)."""
    return cast(FloatArray, np.bincount(idx, weights=weights, minlength=size))


def role_key(game: str, role: str) -> str:
    """The role-effect key of a seat: one parameter per (game, role)."""
    return f"{game}:{role}"


def _index(names: Iterable[str]) -> dict[str, int]:
    return {n: i for i, n in enumerate(sorted(set(names)))}


def build_comparisons(
    outcomes: Sequence[Outcome],
    matches: Sequence[tuple[str, str]] | None = None,
    participants: Iterable[str] = (),
    eval_records: Sequence[MatchRecord] = (),
    maps: Mapping[str, str] | None = None,
) -> ComparisonData:
    """Index outcomes, and the eval-mode comparisons of ``eval_records`` (SCORING.md section
    4, as :func:`~arena.tournaments.ratings.outcomes.eval_outcomes` makes them, kept as
    groups).

    ``matches`` lists every ``(match_id, game)``, including matches that gave no comparison;
    by default the matches the outcomes and eval records mention. ``participants`` adds
    participants that have no comparison yet (they are rated by the prior alone and shown as
    provisional). ``maps`` gives each match's map id (the map bootstrap's clusters); by
    default each match is its own.
    """
    if matches is None:
        seen = {(o.match_a, o.game) for o in outcomes} | {(o.match_b, o.game) for o in outcomes}
        seen |= {(m.match_id, m.game) for m in eval_records}
        matches = sorted(seen)
    game_of: dict[str, str] = {}
    for mid, game in matches:
        if game_of.setdefault(mid, game) != game:
            raise RatingInputError(
                f"Match id '{mid}' appears with two games ('{game_of[mid]}' and '{game}'). "
                "Match ids must be unique across games."
            )
    match_ids = tuple(sorted(game_of))
    midx = {m: i for i, m in enumerate(match_ids)}
    gidx = _index(game_of.values())
    groups = comparable_groups(eval_records)
    pidx = _index([*participants, *(o.a for o in outcomes), *(o.b for o in outcomes),
                   *(m[1] for g in groups for m in g.members)])
    ridx = _index(
        [role_key(o.game, o.role_a) for o in outcomes]
        + [role_key(o.game, o.role_b) for o in outcomes]
        + group_roles(groups)
    )
    for g in groups:
        for mid, _, _ in g.members:
            if mid not in midx:
                raise RatingInputError(
                    f"Eval match '{mid}' is not in the match list. Pass every match to "
                    "build_comparisons(matches=...)."
                )
    for o in outcomes:
        for mid in (o.match_a, o.match_b):
            if mid not in midx:
                raise RatingInputError(
                    f"Outcome between '{o.a}' and '{o.b}' refers to match '{mid}', which is not "
                    "in the match list. Pass every match to build_comparisons(matches=...)."
                )
        if not 0.0 <= o.score_a <= 1.0 or o.weight < 0:
            raise RatingInputError(
                f"Outcome between '{o.a}' and '{o.b}' has score_a={o.score_a} and "
                f"weight={o.weight}; score_a must lie in [0, 1] and weight must be >= 0."
            )
        if o.a == o.b:
            raise RatingInputError(f"Outcome compares participant '{o.a}' with itself.")

    n = len(outcomes)
    a = np.fromiter((pidx[o.a] for o in outcomes), np.int64, n)
    b = np.fromiter((pidx[o.b] for o in outcomes), np.int64, n)
    ra = np.fromiter((ridx[role_key(o.game, o.role_a)] for o in outcomes), np.int64, n)
    rb = np.fromiter((ridx[role_key(o.game, o.role_b)] for o in outcomes), np.int64, n)
    score = np.fromiter((o.score_a for o in outcomes), np.float64, n)
    weight = np.fromiter((o.weight for o in outcomes), np.float64, n)
    ma = np.fromiter((midx[o.match_a] for o in outcomes), np.int64, n)
    mb = np.fromiter((midx[o.match_b] for o in outcomes), np.int64, n)

    # Canonical orientation a < b, so (x beats y) and (y loses to x) share one key.
    swap = a > b
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    ra, rb = np.where(swap, rb, ra), np.where(swap, ra, rb)
    score = np.where(swap, 1.0 - score, score)

    p, r = max(len(pidx), 1), max(len(ridx), 1)
    code = ((a * p + b) * r + ra) * r + rb
    group_role = [ridx[name] for name in group_roles(groups)]
    uniq = np.unique(np.concatenate([code, pair_codes(groups, pidx, group_role, p, r)]))
    key = np.searchsorted(uniq, code)
    rb_k = uniq % r
    ra_k = (uniq // r) % r
    b_k = (uniq // (r * r)) % p
    a_k = uniq // (r * r * p)
    return ComparisonData(
        participants=tuple(pidx),
        roles=tuple(ridx),
        match_ids=match_ids,
        games=tuple(gidx),
        match_game=np.array([gidx[game_of[m]] for m in match_ids], dtype=np.int64),
        match_map=None if maps is None else map_clusters(match_ids, game_of, maps),
        key=key.astype(np.int64).reshape(-1),
        score=score,
        weight=weight,
        match_a=ma,
        match_b=mb,
        key_a=a_k.astype(np.int64),
        key_b=b_k.astype(np.int64),
        key_ra=ra_k.astype(np.int64),
        key_rb=rb_k.astype(np.int64),
        eval_groups=build_eval_groups(groups, pidx, group_role, midx, uniq, p, r)
        if groups
        else None,
    )


def map_clusters(
    match_ids: Sequence[str], game_of: Mapping[str, str], maps: Mapping[str, str]
) -> IntArray:
    """Each match's (game, map) index; a match without a map id is a map of its own."""
    cells: dict[tuple[str, str], int] = {}
    return np.array(
        [cells.setdefault((game_of[m], maps.get(m) or f"match:{m}"), len(cells))
         for m in match_ids],
        dtype=np.int64,
    )


def comparisons_from_records(records: Iterable[MatchRecord]) -> ComparisonData:
    """Outcomes of the records (SCORING.md section 4) in array form, with every match listed."""
    recs = list(records)
    seen: set[str] = set()
    for r in recs:
        if r.match_id in seen:
            raise RatingInputError(
                f"Match id '{r.match_id}' occurs twice in the records. Each match must be "
                "passed once; give replays their own match ids."
            )
        seen.add(r.match_id)
    players = [s.participant for r in recs for s in r.players]
    return build_comparisons(
        pairwise_outcomes([r for r in recs if r.mode == "head_to_head"]),
        [(r.match_id, r.game) for r in recs],
        participants=players,
        eval_records=[r for r in recs if r.mode == "eval"],
        maps={r.match_id: r.map_id for r in recs},
    )
