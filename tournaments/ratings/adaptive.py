"""Adaptive pairing: the planned matches to play next so that the ranking settles soonest.

A pure, deterministic function of the candidates (the round robin's plans, so every rule
the planner keeps holds for any subset of them: seat rotation, maps apart for seats that see
different things of a map), the matches already played (rating records) and the matches
in flight. Same inputs, same answer: a resumed run picks what the interrupted one would have.

The criterion (SCORING.md section 5 gives the model): the Bradley–Terry fit's Fisher
information ``H`` (``sum total * p (1 - p) (e_a - e_b)(e_a - e_b)^T`` plus the prior) gives
the covariance ``S = H^-1`` of the strengths, and ``S_c = C S C^T`` their marginal variances
``v_j`` measured as the board measures them for ranks (`bootstrap.rank_draws`: ``C = I -
1 w^T``, ``w`` each participant's share of the precision). A ranking is *settled* when the
intervals of the top no longer overlap any below them, about when ``gap_t >= z (s_i + s_j)``
for each pair ``t`` of a participant ``i`` of the top (``settle_top``) and one ``j`` ranked
below it (``s = sqrt(v)``, ``z`` the confidence's normal quantile). So the policy shrinks
``sum_t w_t (s_i + s_j)``, each pair weighted by how far it is from settled (``w_t = min(1,
z (s_i + s_j) / gap_t)^8``: 1 while it overlaps, fading once separated, never exactly 0 so
the Fisher approximation and the board's bootstrap may disagree); far pairs weigh nothing,
so this is the neighbours' sum, but for one barely measured whose interval still reaches up.
One more comparison of ``a`` and ``b`` with weight ``w`` lowers each ``v_j`` by
``w (c_j^T S u)^2 / (1 + w u^T S u)`` (Sherman–Morrison, ``u = e_a - e_b``), and ``s_j`` by
that over ``2 s_j``.

A candidate's gain in head-to-head is the sum over every pair of its rated seats. In eval
mode an entrant joining a map (its comparability cell: game, role, map, NPCs) learns its
strength relative to the ``m`` entrants already there: the rank-one ``u = e_j`` less their
mean, weighing ``2 m / (m + 1) p (1 - p)`` (`_Objective.joining`; a map of two is one
comparison), so a map's entrants share what it tells and an entrant whose rank is already
settled far below the top adds little to a map of the top. A cell still without a useful
partner is worth half the gain of the best partner that could still join it (two matches
make that comparison). Picks are greedy: after each one its expected information joins
``H`` and its entrant joins the cell. Ties (equal gains: the same pair on another map) go
to the candidate that keeps each participant's roles and games most even, then to a seeded
hash of the plan key.

Cost: ``O(n^3)`` per pick for ``n`` participants, plus a pass over the candidates.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
from scipy.stats import norm

from arena.tournaments.planning.pairings import EVAL, MatchPlan
from arena.tournaments.ratings.bradley_terry import DEFAULT_PRIOR, fit
from arena.tournaments.ratings.comparisons import FloatArray, IntArray, comparisons_from_records
from arena.tournaments.ratings.errors import RatingInputError
from arena.tournaments.ratings.leaderboard import MIN_COMPARISONS
from arena.tournaments.ratings.records import MatchRecord

Cell = tuple[object, ...]
FloatOrArray = TypeVar("FloatOrArray", float, FloatArray)
PULL_POWER = 8  # how fast a separated pair stops pulling (module docstring; 4 and 1 settled
# the 8-participant benchmark in 1.33x and 1.00x fewer matches than the round robin, 8 in 1.46x)
Seat = tuple[str, str]  # (role, participant)


@dataclass(frozen=True)
class Candidate:
    """A match that may be played: its plan key (a played match's record has it as
    ``match_id``), game, rated seats and, in eval mode, its comparability cell (matches in one
    cell are compared with each other; None in head-to-head)."""

    key: str
    game: str
    seats: tuple[Seat, ...]
    cell: Cell | None = None

    @property
    def participants(self) -> tuple[str, ...]:
        return tuple(p for _, p in self.seats)


def candidate_of(plan: MatchPlan) -> Candidate:
    """The candidate a plan is: its main seats are rated; an eval plan's cell is what makes
    two eval matches comparable (`MatchRecord.comparability_key`, with the map index for the
    stored map)."""
    seats = tuple((s.role, s.participant) for s in plan.seats if s.main)
    if plan.mode != EVAL:
        return Candidate(plan.key, plan.game, seats)
    npcs = tuple(sorted((s.role, s.participant) for s in plan.seats if not s.main))
    cell = (plan.game, plan.game_version, plan.main_role, plan.map_index, npcs, plan.rounds)
    return Candidate(plan.key, plan.game, seats, cell)


def candidates_of(plans: Iterable[MatchPlan]) -> list[Candidate]:
    return [candidate_of(p) for p in plans]


@dataclass(frozen=True)
class AdaptiveSettings:
    """``settle_top``: how many of the best participants must be settled (None: all);
    ``focus``: only the pairs that involve these participants count (placing a new
    entrant); ``seed``: the tie-break among equal candidates."""

    confidence: float = 0.95
    settle_top: int | None = None
    prior: float = DEFAULT_PRIOR
    seed: int = 0
    focus: tuple[str, ...] = field(default=())
    min_comparisons: int = MIN_COMPARISONS  # the board's: a provisional row may rank anywhere

    def __post_init__(self) -> None:
        if not 0.0 < self.confidence < 1.0:
            raise RatingInputError(
                f"confidence={self.confidence}; it must lie strictly between 0 and 1 "
                "(e.g. 0.95)."
            )
        if self.settle_top is not None and self.settle_top < 1:
            raise RatingInputError(
                f"settle_top={self.settle_top}; it must be at least 1 (or None for all)."
            )


class _State:
    """The information so far (played records, matches in flight, picks of this call)."""

    def __init__(
        self,
        names: list[str],
        records: Sequence[MatchRecord],
        settings: AdaptiveSettings,
    ) -> None:
        self.names = names
        self.index = {n: i for i, n in enumerate(names)}
        n = len(names)
        self.theta = np.zeros(n)
        self.info = settings.prior * np.eye(n)
        self.compared = np.zeros(n)  # comparisons each is in, as the board counts them
        self.inflation = _shared_scores(records)
        if records:
            data = comparisons_from_records(records)
            fitted = fit(data, prior=settings.prior)
            at = np.array([self.index[p] for p in data.participants], dtype=np.int64)
            self.theta[at] = fitted.strengths
            _, total = data.aggregate()
            a, b = at[data.key_a], at[data.key_b]
            self.add(a, b, total)
            self.compared[at] = data.comparisons_per_participant()

    def weight(self, a: np.ndarray, b: np.ndarray) -> FloatArray:
        """Fisher information of one comparison of a with b: p (1 - p)."""
        p = 0.5 * (1.0 + np.tanh(0.5 * (self.theta[a] - self.theta[b])))
        return np.asarray(p * (1.0 - p), dtype=np.float64)

    def join(self, who: int, there: IntArray) -> None:
        """An entrant joins an eval map whose entrants are ``there``: the rank-one
        information of `_Objective.joining`."""
        m = float(there.size)
        u = np.zeros(len(self.names))
        u[there] = -1.0 / m
        u[who] += 1.0
        w = joining_weight(m, float(self.weight(np.full(there.size, who), there).mean()))
        self.info += w * np.outer(u, u)
        self.compared[who] += m
        self.compared[there] += 1.0

    def add(self, a: np.ndarray, b: np.ndarray, total: FloatArray) -> None:
        w = total * self.weight(a, b)
        np.add.at(self.info, (a, a), w)
        np.add.at(self.info, (b, b), w)
        np.add.at(self.info, (a, b), -w)
        np.add.at(self.info, (b, a), -w)


@dataclass(frozen=True)
class _Objective:
    """What the settling objective gains from more information: ``pair[a, b]`` from one
    more comparison of a with b; `joining` from an entrant joining an eval map."""

    pair: FloatArray
    shrink: FloatArray  # A: the objective's curvature in the strengths (module docstring)
    cov: FloatArray  # S
    weight: FloatArray  # p (1 - p) of each pair

    def joining(self, who: IntArray, members: FloatArray, cell: IntArray) -> FloatArray:
        """The gain of each entrant ``who[k]`` joining eval map ``cell[k]`` whose entrants
        are the columns of ``members`` (0/1). A map's scores tell each entrant's strength
        relative to the others there, so its information is ``I - 11^T / m`` over its ``m``
        entrants, and one more adds the rank-one ``m / (m + 1) u u^T``, ``u = e_j`` less the
        mean of those there; in comparison units each weighs ``2 p (1 - p)`` (a map of two
        is one comparison). Nothing for an empty map (`AdaptivePairing._values` values an
        opening by its best partner)."""
        size = members.sum(axis=0)
        mean = members / np.maximum(size, 1.0)
        a_x, s_x = self.shrink @ mean, self.cov @ mean
        num = (np.diag(self.shrink)[who] - 2.0 * a_x[who, cell]
               + (mean * a_x).sum(axis=0)[cell])
        var = np.diag(self.cov)[who] - 2.0 * s_x[who, cell] + (mean * s_x).sum(axis=0)[cell]
        m = size[cell]
        w = joining_weight(m, (self.weight @ mean)[who, cell])
        return np.asarray(np.where(m > 0, w * num / (1.0 + w * var), 0.0), dtype=np.float64)


def _objective(state: _State, settings: AdaptiveSettings, z: float) -> _Objective:
    """The expected shrinkage of the settling objective from more information (module
    docstring)."""
    n = len(state.names)
    cov = np.linalg.inv(state.info)
    # measured from the board's zero for ranks (`rank_draws`): the mean weighted by precision
    plain = np.eye(n) - 1.0 / n
    precision = 1.0 / np.maximum(np.einsum("ij,jk,ik->i", plain, cov, plain), 1e-12)
    centre = np.eye(n) - (precision / precision.sum())[None, :]
    cc = centre @ cov
    sd = np.sqrt(np.maximum(np.einsum("ij,ij->i", cc, centre), 1e-12)) * state.inflation
    order = sorted(range(n), key=lambda i: (-state.theta[i], state.names[i]))
    top = n - 1 if settings.settle_top is None else min(settings.settle_top, n - 1)
    focus = {state.index[f] for f in settings.focus if f in state.index}
    # each of the top against everyone ranked below it: its neighbour above all, but also
    # one further down whose interval is wide enough to reach it (barely measured so far)
    above, below = np.triu_indices(n, 1)
    keep = above < top
    i, j = np.asarray(order)[above[keep]], np.asarray(order)[below[keep]]
    if focus:
        wanted = np.isin(i, list(focus)) | np.isin(j, list(focus))
        i, j = i[wanted], j[wanted]
    need = z * (sd[i] + sd[j])
    gap = state.theta[i] - state.theta[j]
    ratio = np.where(gap <= 0, 1.0, np.minimum(1.0, need / np.maximum(gap, 1e-300)))
    early = state.compared < settings.min_comparisons  # provisional: may rank anywhere
    ratio = np.where(early[i] | early[j], 1.0, ratio)
    pull = np.zeros(n)
    np.add.at(pull, i, ratio**PULL_POWER)
    np.add.at(pull, j, ratio**PULL_POWER)
    beta = pull / (2.0 * sd)
    a_mat = cc.T @ (beta[:, None] * cc)
    diag = np.diag(a_mat)
    num = diag[:, None] + diag[None, :] - 2.0 * a_mat
    cdiag = np.diag(cov)
    q = cdiag[:, None] + cdiag[None, :] - 2.0 * cov
    idx = np.arange(n)
    w = state.weight(idx[:, None], idx[None, :])
    gains = w * num / (1.0 + w * q)
    np.fill_diagonal(gains, 0.0)
    return _Objective(np.asarray(np.maximum(gains, 0.0), dtype=np.float64),
                      np.asarray(a_mat, dtype=np.float64), np.asarray(cov, dtype=np.float64), w)


def joining_weight(m: FloatOrArray, pq: FloatOrArray) -> FloatOrArray:
    """Comparisons' worth of an entrant joining an eval map of ``m`` (`_Objective.joining`):
    ``2 m / (m + 1)`` times ``p (1 - p)`` against those there (one comparison for a map of one)."""
    return 2.0 * m / (m + 1.0) * pq


def map_share(m: float) -> float:
    """What each of the ``m (m - 1) / 2`` comparisons of an eval map of ``m`` entrants tells,
    as a share of an independent comparison: an entrant's ``m - 1`` comparisons share its
    one score. At equal strengths the sum of its outcomes has variance ``(m - 1)(m + 1) / 12``
    where independent comparisons would have ``(m - 1) / 4`` (two of them agree with
    probability 1/3, not 1/4), so the share is ``3 / (m + 1)`` (1 for a pair). Measured with
    the board's own fit (16 entrants, 960 matches on maps of ``m`` drawn entrants, 150 draws,
    29 Nov 2026): 0.23, 0.43, 0.50, 0.67 of a comparison's information per match for
    m = 2, 4, 8, 16; this count says 0.25, 0.45, 0.58, 0.66, and the ``2 / m`` used before
    said 0.25, 0.38, 0.44, 0.47, undervaluing full maps. Unequal strengths share less (far
    pairs' outcomes are nearly certain), so full maps of a wide field tell more still."""
    return 1.0 if m <= 2 else 3.0 / (m + 1.0)


def _shared_scores(records: Sequence[MatchRecord]) -> float:
    """How much the Fisher information overstates what eval comparisons tell (the fit counts
    a map's comparisons as independent, `map_share`): intervals are wider by
    ``1 / sqrt(map_share(m))``, ``m`` the mean number of entrants per map (1 without eval
    records)."""
    cells = Counter(r.comparability_key() for r in records if r.mode == "eval")
    if not cells:
        return 1.0
    mean = sum(cells.values()) / len(cells)
    return float(1.0 / np.sqrt(map_share(mean)))


def tie_break(seed: int, key: str) -> str:
    """The seeded lottery that orders equal candidates (lowest first)."""
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def _ints(values: Iterable[int]) -> IntArray:
    return np.fromiter(values, dtype=np.int64)


class AdaptivePairing:
    """The policy over one set of candidates, their index arrays built once, so each call
    scores every open candidate in a few array passes: head-to-head candidates by their seat
    pairs, eval candidates by (entrant, cell). `next` is a pure function of its arguments
    and the candidates (see `next_matches`)."""

    def __init__(
        self, candidates: Sequence[Candidate], settings: AdaptiveSettings = AdaptiveSettings()
    ) -> None:
        self.candidates = list(candidates)
        self.settings = settings
        self.position = {c.key: i for i, c in enumerate(self.candidates)}
        if len(self.position) != len(self.candidates):
            raise RatingInputError("Two candidates share a plan key; each match is one plan.")
        self.names = sorted({p for c in self.candidates for p in c.participants})
        ix = {n: i for i, n in enumerate(self.names)}
        self.cells = {
            cell: i
            for i, cell in enumerate(
                dict.fromkeys(c.cell for c in self.candidates if c.cell is not None)
            )
        }
        pairs = [
            (i, ix[a], ix[b])
            for i, c in enumerate(self.candidates)
            if c.cell is None
            for m, a in enumerate(c.participants)
            for b in c.participants[m + 1 :]
            if a != b
        ]
        self.pair_c = _ints(p[0] for p in pairs)
        self.pair_a = _ints(p[1] for p in pairs)
        self.pair_b = _ints(p[2] for p in pairs)
        entries = [
            (i, ix[a], self.cells[c.cell])
            for i, c in enumerate(self.candidates)
            if c.cell is not None
            for a in c.participants
        ]
        self.eval_c = _ints(e[0] for e in entries)
        self.eval_a = _ints(e[1] for e in entries)
        self.eval_cell = _ints(e[2] for e in entries)
        # seat balance: every seat as (candidate, participant, "game:role", game)
        self.roles = {r: i for i, r in enumerate(sorted(
            {f"{c.game}:{role}" for c in self.candidates for role, _ in c.seats}))}
        self.games = {g: i for i, g in enumerate(sorted({c.game for c in self.candidates}))}
        width = max((len(c.seats) for c in self.candidates), default=1)
        shape = (len(self.candidates), width)
        self.seat_p = np.zeros(shape, dtype=np.int64)  # participant of each seat (padded)
        self.seat_role = np.zeros(shape, dtype=np.int64)  # its "game:role"
        self.seat_game = np.zeros(shape, dtype=np.int64)
        self.seat_on = np.zeros(shape, dtype=bool)
        for i, c in enumerate(self.candidates):
            for j, (role, who) in enumerate(c.seats):
                self.seat_p[i, j] = ix[who]
                self.seat_role[i, j] = self.roles[f"{c.game}:{role}"]
                self.seat_game[i, j] = self.games[c.game]
                self.seat_on[i, j] = True
        hashes = [tie_break(settings.seed, c.key) for c in self.candidates]
        self.lottery = np.argsort(np.argsort(hashes, kind="stable"))  # seeded tie-break

    def next(
        self,
        records: Sequence[MatchRecord],
        k: int,
        in_flight: Collection[str] = (),
        skip: Collection[str] = (),
    ) -> list[str]:
        """See `next_matches`."""
        settings = self.settings
        alive = np.ones(len(self.candidates), dtype=bool)
        done = [self.position[r.match_id] for r in records if r.match_id in self.position]
        flying = sorted(self.position[key] for key in set(in_flight) if key in self.position)
        alive[done] = False
        alive[flying] = False
        alive[[self.position[key] for key in skip if key in self.position]] = False
        if k < 1 or not alive.any():
            return []
        extra = sorted({s.participant for r in records for s in r.players} - set(self.names))
        names = [*self.names, *extra]  # candidates' participants keep their indices
        if len(names) < 2:
            return [self.candidates[i].key for i in np.flatnonzero(alive)[:k]]
        state = _State(names, records, settings)
        inside = np.zeros((len(names), len(self.cells)), dtype=bool)  # has a match there
        taken = np.zeros(len(self.candidates), dtype=bool)
        taken[done] = True
        on_cell = taken[self.eval_c]
        inside[self.eval_a[on_cell], self.eval_cell[on_cell]] = True
        role_count = np.zeros((len(self.names), len(self.roles)))
        game_count = np.zeros((len(self.names), len(self.games)))
        at = {n: i for i, n in enumerate(self.names)}
        for r in records:
            g = self.games.get(r.game)
            for seat in r.players:
                who = at.get(seat.participant)
                role = self.roles.get(f"{r.game}:{seat.role}")
                if who is not None and role is not None and g is not None:
                    role_count[who, role] += 1
                    game_count[who, g] += 1

        def take(i: int) -> None:
            """Count candidate i as played: its expected information, its cell, its seats."""
            c = self.candidates[i]
            _expect(state, c, inside, self.cells)
            on = self.seat_on[i]
            np.add.at(role_count, (self.seat_p[i, on], self.seat_role[i, on]), 1.0)
            np.add.at(game_count, (self.seat_p[i, on], self.seat_game[i, on]), 1.0)
            if c.cell is not None:
                for who in c.participants:
                    inside[state.index[who], self.cells[c.cell]] = True

        for i in flying:
            take(i)
        picks: list[str] = []
        z = float(norm.ppf(0.5 + settings.confidence / 2.0))
        while len(picks) < k and alive.any():
            values = self._values(_objective(state, settings, z), inside, alive)
            best = float(values.max())
            if best <= 0.0:  # nothing left would inform the ranking (an eval map nobody
                break  # else may join): the run ends rather than play for nothing
            level = np.round(values / (best if best > 0 else 1.0), 6)
            tied = np.flatnonzero(level == level.max())
            p, on = self.seat_p[tied], self.seat_on[tied]
            roles = (role_count[p, self.seat_role[tied]] * on).sum(axis=1)
            games = (game_count[p, self.seat_game[tied]] * on).sum(axis=1)
            order = np.lexsort((self.lottery[tied], games, roles))
            chosen = int(tied[order[0]])
            picks.append(self.candidates[chosen].key)
            take(chosen)
            alive[chosen] = False
        return picks

    def _values(self, objective: _Objective, inside: np.ndarray, alive: np.ndarray
                ) -> FloatArray:
        """Each candidate's gain (module docstring); -inf for those not open."""
        n = len(self.candidates)
        out = np.zeros(n)
        gains = objective.pair
        if self.pair_c.size:
            out += np.bincount(self.pair_c, gains[self.pair_a, self.pair_b], minlength=n)
        if self.eval_c.size:
            a, cell = self.eval_a, self.eval_cell
            m = len(self.names)
            mine = inside[:m]
            now = objective.joining(a, inside.astype(np.float64), cell)
            waiting = np.zeros_like(mine)
            open_entry = alive[self.eval_c]
            waiting[a[open_entry], cell[open_entry]] = True
            partners = waiting & ~mine  # who could still join each cell
            later = (gains[a, :m] * partners[:, cell].T).max(axis=1) / 2.0
            value = np.where(mine[a, cell], 0.0, np.maximum(now, later))
            out += np.bincount(self.eval_c, value, minlength=n)
        out[~alive] = -np.inf
        return out


def next_matches(
    candidates: Sequence[Candidate],
    records: Sequence[MatchRecord],
    k: int,
    *,
    in_flight: Collection[str] = (),
    skip: Collection[str] = (),
    settings: AdaptiveSettings = AdaptiveSettings(),
) -> list[str]:
    """The keys of up to ``k`` candidates to play next, best first (module docstring).

    ``records`` are the matches played (all of the tournament's, candidates or not: they
    all inform the fit); a candidate whose key is among their ids or in ``in_flight`` is
    not offered again, and one in flight counts with its expected information (its outcome
    is not known yet); one in ``skip`` (played without a result this run) is not offered.
    A run that asks often builds `AdaptivePairing` once instead."""
    return AdaptivePairing(candidates, settings).next(records, k, in_flight, skip)


def _expect(state: _State, c: Candidate, inside: np.ndarray, cells: dict[Cell, int]) -> None:
    """Add a chosen (or in-flight) candidate's expected information to the state: one
    comparison per pair of its seats, or (eval) its entrant joining its cell (`_State.join`)."""
    people = [state.index[p] for p in c.participants]
    if c.cell is not None:
        there = np.flatnonzero(inside[:, cells[c.cell]])
        for who in people:
            if who not in there and there.size:
                state.join(who, there)
            there = np.union1d(there, [who])
        return
    pairs = [(a, b) for m, a in enumerate(people) for b in people[m + 1 :] if a != b]
    if pairs:
        first = np.array([p[0] for p in pairs], dtype=np.int64)
        second = np.array([p[1] for p in pairs], dtype=np.int64)
        state.add(first, second, np.ones(len(pairs)))
