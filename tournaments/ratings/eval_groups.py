"""Eval-mode comparisons as per-key sums, without one row per pair of matches.

In eval mode every pair of comparable matches of two participants is a comparison
(:func:`arena.tournaments.ratings.outcomes.eval_outcomes`): a group of n matches gives about
n^2 / 2 of them, 15 million at 100 000 stored matches. A fit only needs, per key, the weighted
wins and totals, and a match resample only changes the match counts ``c``. Inside a group,
the wins of participant x over y are ``sum_{i in x} c_i * (c-mass of y's matches scored below
i + half the mass tying with i) / (n_x * n_y)``: with the group's matches sorted by score, a
cumulative sum per participant gives every such mass at once. One aggregation therefore costs
a few passes over a (matches x participants-per-group) array, and gives the sums the
per-pair rows would give (same keys, same values up to floating-point rounding).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import NDArray

from arena.tournaments.ratings.outcomes import TIE_TOLERANCE_BITS
from arena.tournaments.ratings.records import MatchRecord

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class Group:
    """Comparable eval matches: the role-effect key (``game:role``) and, per match, its id,
    its main character and the main seat's sort key (its score; a forfeit is -inf, below
    every score, and two forfeits tie)."""

    role: str
    members: list[tuple[str, str, float]]


def comparable_groups(records: Sequence[MatchRecord]) -> list[Group]:
    """Eval records grouped by comparability key (groups of one participant dropped: they
    compare nothing), in a canonical order."""
    found: dict[tuple[object, ...], list[tuple[str, str, float]]] = defaultdict(list)
    for rec in sorted(records, key=lambda r: r.match_id):
        main = rec.main
        score = -np.inf if main.forfeit or main.score is None else float(main.score)
        found[rec.comparability_key()].append((rec.match_id, main.participant, score))
    return [
        Group(f"{k[0]}:{k[2]}", found[k])
        for k in sorted(found, key=repr)
        if len({m[1] for m in found[k]}) > 1
    ]


@dataclass(frozen=True, eq=False)
class EvalGroups:
    """Index arrays over the eval matches in canonical order: by group, then participant
    (a *segment*), then score.

    ``match``: each match's index in the data's match list; ``seg_start``: each segment's
    first match. One *entry* per (match i of participant x, participant y > x of its group)
    (two when i ties with someone): ``entry_match`` (i), ``entry_ptr`` (a place in the
    segment-wise cumulative mass: y's matches below i, or below-or-tying with i),
    ``entry_factor`` (1 or 1/2 times ``1 / (n_x * n_y)``), ``entry_key``. One *pair* per
    (x, y > x) of a group: ``pair_x``/``pair_y`` (segments), ``pair_scale``, ``pair_key``.
    """

    n_keys: int
    match: IntArray
    seg_start: IntArray
    entry_match: IntArray
    entry_ptr: IntArray
    entry_factor: FloatArray
    entry_key: IntArray
    pair_x: IntArray
    pair_y: IntArray
    pair_scale: FloatArray
    pair_key: IntArray
    per_participant: IntArray  # comparison rows per participant
    n_comparisons: int

    @functools.cached_property
    def seg_of(self) -> IntArray:
        """Each match's segment."""
        lengths = np.diff(np.append(self.seg_start, self.match.size))
        return np.repeat(np.arange(lengths.size), lengths)

    @functools.cached_property
    def padded_at(self) -> IntArray:
        """Each match's place in the padded cumulative mass (a leading 0 per segment)."""
        return np.arange(self.match.size) + self.seg_of + 1

    def aggregate(self, counts: FloatArray | None) -> tuple[FloatArray, FloatArray]:
        """Per-key (wins of a, total) weights when match i occurs ``counts[i]`` times."""
        n = self.match.size
        if n == 0:
            return np.zeros(self.n_keys), np.zeros(self.n_keys)
        c = np.ones(n) if counts is None else np.asarray(counts, np.float64)[self.match]
        seg_mass = np.add.reduceat(c, self.seg_start)
        # Cumulative mass inside each segment, with a leading 0 per segment (so a segment's
        # sums never carry the rounding of the ones before it).
        running = np.cumsum(c)
        before = np.concatenate([[0.0], running[self.seg_start[1:] - 1]])
        padded = np.zeros(n + self.seg_start.size)
        padded[self.padded_at] = running - before[self.seg_of]
        won = c[self.entry_match] * padded[self.entry_ptr] * self.entry_factor
        size = self.n_keys
        wins = weighted_bincount(self.entry_key, won, size)
        both = seg_mass[self.pair_x] * seg_mass[self.pair_y] * self.pair_scale
        return wins, weighted_bincount(self.pair_key, both, size)


def weighted_bincount(idx: IntArray, weights: FloatArray, size: int) -> FloatArray:
    """``numpy.bincount`` with weights (float result; numpy's stubs type it as int)."""
    return cast(FloatArray, np.bincount(idx, weights=weights, minlength=size))


def group_roles(groups: list[Group]) -> list[str]:
    """The role-effect key of each group (its game and main role)."""
    return [g.role for g in groups]


def pair_codes(
    groups: list[Group], pidx: dict[str, int], roles: list[int], p: int, r: int
) -> IntArray:
    """The key codes ``((a * p + b) * r + ra) * r + rb`` of every pair a < b of a group."""
    codes = [np.zeros(0, np.int64)]
    for group, role in zip(groups, roles, strict=True):
        arr = np.array(sorted({pidx[m[1]] for m in group.members}), dtype=np.int64)
        a, b = np.triu_indices(arr.size, 1)
        codes.append(((arr[a] * p + arr[b]) * r + role) * r + role)
    return np.concatenate(codes)


def build_eval_groups(
    groups: list[Group],
    pidx: dict[str, int],
    roles: list[int],
    midx: dict[str, int],
    key_codes: IntArray,
    p: int,
    r: int,
) -> EvalGroups:
    """Index arrays of the groups; ``key_codes`` are the data's sorted key codes."""
    match: list[IntArray] = []
    seg_start: list[int] = []
    e_match: list[IntArray] = []
    e_ptr: list[IntArray] = []
    e_factor: list[FloatArray] = []
    e_key: list[IntArray] = []
    pairs: list[FloatArray] = []
    per_participant = np.zeros(p, np.int64)
    n_comp, base = 0, 0
    for group, role in zip(groups, roles, strict=True):
        who = np.array([pidx[m[1]] for m in group.members], np.int64)
        parts_arr, col = np.unique(who, return_inverse=True)
        parts = parts_arr.tolist()
        col = col.reshape(-1).astype(np.int64)
        key = np.array([m[2] for m in group.members], np.float64)
        ids = np.array([midx[m[0]] for m in group.members], np.int64)
        order = np.argsort(key, kind="stable")
        place = np.empty(key.size, np.int64)
        place[order] = np.arange(key.size)
        ranked = key[order]
        lo = np.searchsorted(ranked, key - TIE_TOLERANCE_BITS, "left")
        hi = np.searchsorted(ranked, key + TIE_TOLERANCE_BITS, "right")
        perm = np.lexsort((place, col))  # canonical order: participant, then score
        col, ids, place, lo, hi = col[perm], ids[perm], place[perm], lo[perm], hi[perm]
        sizes = np.bincount(col, minlength=len(parts))
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        first_seg = len(seg_start)
        seg_start.extend((base + starts).tolist())
        match.append(ids)
        n_g = int(sizes.sum())
        per_participant[parts] += sizes * (n_g - sizes)
        n_comp += (n_g * n_g - int((sizes * sizes).sum())) // 2
        tied = hi - lo > 1
        for y in range(1, len(parts)):
            upto = int(starts[y])  # matches of participants before y
            mine = place[starts[y] : starts[y] + sizes[y]]
            ptr0 = base + first_seg + y + starts[y]  # y's leading 0 in the padded mass
            xs = col[:upto]
            code = ((parts_arr[xs] * p + parts[y]) * r + role) * r + role
            k = np.searchsorted(key_codes, code)
            scale = 1.0 / (sizes[xs] * sizes[y])
            t = tied[:upto]
            ti = np.flatnonzero(t)
            e_match += [base + np.arange(upto), base + ti]
            e_ptr += [ptr0 + np.searchsorted(mine, lo[:upto]), ptr0 + np.searchsorted(mine, hi[ti])]
            e_factor += [np.where(t, 0.5, 1.0) * scale, 0.5 * scale[ti]]
            e_key += [k, k[ti]]
        # every pair x < y of the group's participants, y-major (the order of the sums)
        ys, xs_pair = np.tril_indices(len(parts), -1)
        codes_xy = ((parts_arr[xs_pair] * p + parts_arr[ys]) * r + role) * r + role
        pairs.append(np.column_stack((
            first_seg + xs_pair, first_seg + ys,
            1.0 / (sizes[xs_pair] * sizes[ys]).astype(np.float64),
            np.searchsorted(key_codes, codes_xy),
        )).astype(np.float64))
        base += n_g
    pair = np.concatenate(pairs) if pairs else np.zeros((0, 4))

    def ints(parts: list[IntArray]) -> IntArray:
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    return EvalGroups(
        n_keys=int(key_codes.size),
        match=ints(match),
        seg_start=np.array(seg_start, np.int64),
        entry_match=ints(e_match),
        entry_ptr=ints(e_ptr),
        entry_factor=np.concatenate(e_factor) if e_factor else np.zeros(0),
        entry_key=ints(e_key),
        pair_x=pair[:, 0].astype(np.int64),
        pair_y=pair[:, 1].astype(np.int64),
        pair_scale=pair[:, 2].copy(),
        pair_key=pair[:, 3].astype(np.int64),
        per_participant=per_participant,
        n_comparisons=n_comp,
    )
