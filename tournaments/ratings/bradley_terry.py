"""Bradley–Terry maximum-a-posteriori fit with a small L2 prior (SCORING.md section 5).

Model: P(a beats b) = sigmoid(theta_a - theta_b + gamma_ra - gamma_rb), where theta are the
participants' strengths (natural-log scale) and gamma the optional role (seat) effects, one per
``"game:role"``. The fit maximises the (weighted, fractional-win) log-likelihood minus
``prior / 2 * |params|^2``: a Gaussian prior of variance ``1 / prior`` on every parameter, which
keeps the estimate finite for undefeated participants and for disconnected comparison graphs
(each component is then centred at 0 by the prior). The default ``prior = 0.01`` (prior standard
deviation 10 natural-log units, about 1700 Elo points) is deliberately weak.

The solver is damped Newton on the aggregated per-key win/total weights (see
:mod:`arena.tournaments.ratings.comparisons`): gradient and Hessian come from a few
``numpy.bincount``
passes, the Hessian is only (participants + roles)^2, so a Newton step costs about a
millisecond for 50 participants and warm-started bootstrap refits converge in a few steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from arena.tournaments.ratings.comparisons import (
    ComparisonData,
    FloatArray,
    IntArray,
    weighted_bincount,
)
from arena.tournaments.ratings.errors import RatingInputError

ELO_PER_NATURAL = 400.0 / math.log(10.0)
DEFAULT_PRIOR = 0.01
Scale = Literal["elo", "natural"]
SCALES: tuple[str, ...] = ("elo", "natural")


@dataclass(frozen=True, eq=False)
class BTFit:
    """A fitted model: strengths (natural log, mean 0) and role effects (natural log)."""

    participants: tuple[str, ...]
    strengths: FloatArray
    roles: tuple[str, ...]
    role_effects: FloatArray
    iterations: int
    converged: bool

    @property
    def params(self) -> FloatArray:
        """Strengths followed by role effects (the solver's parameter vector)."""
        return np.concatenate([self.strengths, self.role_effects])


def _square_terms(x: IntArray, y: IntArray, n: int) -> tuple[IntArray, FloatArray]:
    """Flat indices and signs of (e_x - e_y)(e_x - e_y)^T in an n x n matrix."""
    idx = np.concatenate([x * n + x, y * n + y, x * n + y, y * n + x])
    return idx, np.repeat(np.array([1.0, 1.0, -1.0, -1.0]), x.size)


class Design:
    """Index arrays that turn per-key weights into the gradient and Hessian.

    Without role effects, keys that differ only in roles are merged into one row per pair of
    participants (fewer rows, faster Newton steps). The Hessian is assembled by blocks
    (participants x participants, roles x roles, participants x roles), each from curvatures
    summed with ``bincount`` first, so a Newton step costs a few passes over the rows.
    """

    def __init__(self, data: ComparisonData, role_effects: bool) -> None:
        p = len(data.participants)
        r = len(data.roles) if role_effects else 0
        self.n_participants, self.n_roles, self.dim = p, r, p + r
        width = max(p, 1)
        pairs, pair_inverse = np.unique(data.key_a * width + data.key_b, return_inverse=True)
        pair_inverse = pair_inverse.reshape(-1).astype(np.int64)
        self.n_pairs = int(pairs.size)
        self.pp_idx, self.pp_sign = _square_terms(pairs // width, pairs % width, p)
        self.row_of_key: IntArray | None = None
        self.pair_of_row: IntArray | None = None
        self.ra, self.rb = data.key_ra, data.key_rb  # only read when r > 0
        if r:
            self.a, self.b = data.key_a, data.key_b
            self.pair_of_row = pair_inverse
            rpairs, rinv = np.unique(self.ra * r + self.rb, return_inverse=True)
            self.rpair_of_row = rinv.reshape(-1).astype(np.int64)
            self.n_rpairs = int(rpairs.size)
            self.rr_idx, self.rr_sign = _square_terms(rpairs // r, rpairs % r, r)
            a, b, ra, rb = self.a, self.b, self.ra, self.rb
            self.cross_idx = np.concatenate([a * r + ra, a * r + rb, b * r + ra, b * r + rb])
            self.cross_sign = np.repeat(np.array([1.0, -1.0, -1.0, 1.0]), a.size)
        else:
            self.row_of_key = pair_inverse
            self.a, self.b = pairs // width, pairs % width
        self.n_rows = int(self.a.size)

    def reduce(self, wins: FloatArray, total: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Per-key weights to per-row weights."""
        if self.row_of_key is None:
            return wins, total
        return (
            weighted_bincount(self.row_of_key, wins, self.n_rows),
            weighted_bincount(self.row_of_key, total, self.n_rows),
        )

    def margin(self, x: FloatArray) -> FloatArray:
        p = self.n_participants
        d = x[self.a] - x[self.b]
        if self.n_roles:
            d = d + x[p + self.ra] - x[p + self.rb]
        return d

    def gradient(self, resid: FloatArray) -> FloatArray:
        p, r = self.n_participants, self.n_roles
        g = weighted_bincount(self.a, resid, p) - weighted_bincount(self.b, resid, p)
        if not r:
            return g
        gr = weighted_bincount(self.ra, resid, r) - weighted_bincount(self.rb, resid, r)
        return np.concatenate([g, gr])

    def hessian(self, curv: FloatArray) -> FloatArray:
        p, r = self.n_participants, self.n_roles
        hp = curv
        if self.pair_of_row is not None:
            hp = weighted_bincount(self.pair_of_row, curv, self.n_pairs)
        pp = weighted_bincount(self.pp_idx, np.tile(hp, 4) * self.pp_sign, p * p).reshape(p, p)
        if not r:
            return pp
        hq = weighted_bincount(self.rpair_of_row, curv, self.n_rpairs)
        rr = weighted_bincount(self.rr_idx, np.tile(hq, 4) * self.rr_sign, r * r).reshape(r, r)
        cw = np.tile(curv, 4) * self.cross_sign
        pr = weighted_bincount(self.cross_idx, cw, p * r).reshape(p, r)
        return np.block([[pp, pr], [pr.T, rr]])


def _objective(
    d: FloatArray, wins: FloatArray, total: FloatArray, x: FloatArray, prior: float
) -> float:
    # log sigmoid(d) = -logaddexp(0, -d); stable for large |d|.
    ll = -(wins * np.logaddexp(0.0, -d) + (total - wins) * np.logaddexp(0.0, d)).sum()
    return float(ll - 0.5 * prior * float(x @ x))


def solve(
    design: Design,
    wins: FloatArray,
    total: FloatArray,
    prior: float = DEFAULT_PRIOR,
    start: FloatArray | None = None,
    max_iter: int = 100,
    tol: float = 1e-9,
) -> tuple[FloatArray, int, bool]:
    """Damped Newton for the MAP parameters from per-key ``wins``/``total``; returns
    (params, iterations, converged)."""
    if prior <= 0:
        raise RatingInputError(
            f"prior={prior} must be > 0: without it undefeated participants and disconnected "
            "comparison graphs have no finite fit. Use a small value such as 0.01."
        )
    wins, total = design.reduce(wins, total)
    x = np.zeros(design.dim) if start is None else np.array(start, dtype=np.float64)
    eye = prior * np.eye(design.dim)
    d = design.margin(x)
    obj = _objective(d, wins, total, x, prior)
    for it in range(1, max_iter + 1):
        s = 0.5 * (1.0 + np.tanh(0.5 * d))  # sigmoid without overflow warnings
        grad = design.gradient(wins - total * s) - prior * x
        hess = design.hessian(total * s * (1.0 - s)) + eye
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:  # backtrack until the objective does not decrease
            x_new = x + t * step
            d_new = design.margin(x_new)
            obj_new = _objective(d_new, wins, total, x_new, prior)
            if obj_new >= obj - 1e-12 * (1.0 + abs(obj)) or t < 1e-6:
                break
            t *= 0.5
        x, d, obj = x_new, d_new, obj_new
        if float(np.max(np.abs(t * step), initial=0.0)) < tol:
            return x, it, True
    return x, max_iter, False


def fit(
    data: ComparisonData,
    *,
    prior: float = DEFAULT_PRIOR,
    role_effects: bool = False,
    match_weights: FloatArray | None = None,
    start: FloatArray | None = None,
) -> BTFit:
    """Fit strengths (and role effects) on all comparisons.

    ``match_weights`` (one per match) multiply every comparison that comes from the match; the
    leaderboard uses the expected bootstrap counts so the point fit weighs games like the
    bootstrap does.
    """
    design = Design(data, role_effects)
    wins, total = data.aggregate(match_weights)
    x, iters, ok = solve(design, wins, total, prior=prior, start=start)
    p = design.n_participants
    theta = x[:p] - (x[:p].mean() if p else 0.0)
    roles = data.roles if role_effects else ()
    return BTFit(data.participants, theta, roles, x[p:], iters, ok)


def to_scale(
    theta: FloatArray,
    scale: Scale = "elo",
    anchor_index: int | None = None,
    anchor_value: float | None = None,
) -> FloatArray:
    """Natural-log strengths (last axis = participants) to a reporting scale.

    ``"natural"``: mean 0 (or the anchor at ``anchor_value``, default 0).
    ``"elo"``: 400/ln 10 per natural unit, mean 1000 (or the anchor at ``anchor_value``,
    default 1000).
    """
    if scale not in SCALES:
        raise RatingInputError(
            f"Unknown rating scale '{scale}'. Valid options: {', '.join(SCALES)}."
        )
    factor = ELO_PER_NATURAL if scale == "elo" else 1.0
    default = 1000.0 if scale == "elo" else 0.0
    value = default if anchor_value is None else anchor_value
    ref = (
        theta.mean(axis=-1, keepdims=True)
        if anchor_index is None
        else theta[..., anchor_index : anchor_index + 1]
    )
    return value + factor * (theta - ref)
