"""Score normalisation (SCORING.md section 3) over stored matches: running max, catch-up,
the paper's threshold narms, reference, Xent measure.

All functions are pure functions of :class:`~arena.tournaments.ratings.records.MatchRecord` lists;
the math itself (forfeit floor, running max, steps, levels) is `arena.scoring`, shared with
the analysis tools.
Cells are ``(game, role)``; only non-NPC seats are scored (eval mode: the main character;
head-to-head: every rated seat in its role).

Conventions that SCORING.md leaves open, made precise here:

* **Forfeits in numbers** (section 1): a forfeited *round* counts as the worst non-forfeited
  round score any participant got on that (game, role, map) minus one bit; a forfeited *match*
  (``forfeit=True``, whatever rounds it completed) counts as the worst non-forfeited match score
  on that (game, role, map) minus one bit. A map where nobody has a numeric score cannot be
  valued; it is left out for everyone and listed in ``skipped_maps``.
* **Missing maps**: the maps of a cell are those any participant played in it. A participant
  that played the cell but not one of its maps counts as having forfeited there (every round,
  or the match). A participant with no match at all in a cell is not scored on it.
* **Missing rounds**: rounds beyond those recorded for a match count as forfeited rounds (the
  running max keeps what was reached); a seat without per-round scores counts as one round
  scored with its match score.
* **Several matches on one map** (replays with other play seeds): averaged per map first, so
  every map weighs the same.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from arena.scoring import (
    MAX_NORMALISED,
    FloatArray,
    ThresholdSpec,
    catch_up_scores,
    forfeit_floor,
    reference_ratio,
    running_max,
    threshold_scores,
)
from arena.tournaments.ratings.errors import RatingInputError
from arena.tournaments.ratings.records import MatchRecord, SeatRecord

Cell = tuple[str, str]  # (game, role)
MapKey = tuple[str, str, str]  # (game, role, map)


@dataclass(frozen=True)
class _Play:
    participant: str
    seat: SeatRecord


def _plays(records: Iterable[MatchRecord]) -> dict[MapKey, list[_Play]]:
    by_map: dict[MapKey, list[_Play]] = defaultdict(list)
    for rec in sorted(records, key=lambda r: r.match_id):
        for seat in rec.players:
            by_map[(rec.game, seat.role, rec.map_id)].append(_Play(seat.participant, seat))
    return by_map


def _rounds(seat: SeatRecord) -> tuple[float | None, ...]:
    if seat.round_scores:
        return seat.round_scores
    return (seat.score,)


def forfeit_values(
    records: Iterable[MatchRecord],
    level: Literal["round", "match"] = "match",
    plays: Mapping[MapKey, list[_Play]] | None = None,
) -> dict[MapKey, float]:
    """Per (game, role, map): worst non-forfeited score minus one bit (maps with no numeric
    score are absent). ``level`` picks round scores or match scores; ``plays`` (from
    `_plays(records)`) saves grouping the records again."""
    out: dict[MapKey, float] = {}
    for key, on_map in (_plays(records) if plays is None else plays).items():
        if level == "match":
            values = [p.seat.score for p in on_map if not p.seat.forfeit]
        else:
            values = [v for p in on_map for v in _rounds(p.seat)]
        floor = forfeit_floor(values)
        if floor is not None:
            out[key] = floor
    return out


# ---------------------------------------------------------------------------------------------
# Running max (paper 4.2.1)


def arms_curves(
    records: Iterable[MatchRecord], horizon: int | None = None
) -> dict[Cell, dict[str, FloatArray]]:
    """``arms_k`` for k = 1..K per cell and participant: mean over maps of the best score
    among the first k rounds. ``horizon`` K defaults to the most rounds recorded in the cell."""
    recs = list(records)
    plays = _plays(recs)
    fallback = forfeit_values(recs, "round", plays)
    cells: dict[Cell, list[str]] = defaultdict(list)
    for game, role, map_id in plays:
        if (game, role, map_id) in fallback:
            cells[(game, role)].append(map_id)
    out: dict[Cell, dict[str, FloatArray]] = {}
    for cell, maps in sorted(cells.items()):
        k_max = horizon or max(len(_rounds(p.seat)) for m in maps for p in plays[(*cell, m)])
        participants = sorted({p.participant for m in maps for p in plays[(*cell, m)]})
        seats_of: dict[tuple[str, str], list[SeatRecord]] = defaultdict(list)  # (name, map)
        for m in maps:
            for p in plays[(*cell, m)]:
                seats_of[(p.participant, m)].append(p.seat)
        curves: dict[str, FloatArray] = {}
        for name in participants:
            per_map = []
            for m in sorted(maps):
                worst = fallback[(*cell, m)]
                mine = seats_of.get((name, m), [])
                if not mine:
                    per_map.append(np.full(k_max, worst))
                    continue
                runs = [running_max(_rounds(seat), worst, k_max) for seat in mine]
                per_map.append(np.mean(runs, axis=0))
            curves[name] = np.mean(per_map, axis=0)
        out[cell] = curves
    return out


# ---------------------------------------------------------------------------------------------
# Catch-up normalisation


@dataclass(frozen=True)
class NormalisedCell:
    """Normalised scores of one (game, role) relative to a base participant.

    ``curves[p][k-1]`` is p's normalised score after k rounds; ``final[p]`` the score at the
    horizon. When ``playable`` is False, ``reason`` says why and there are no scores."""

    game: str
    role: str
    base: str
    playable: bool
    reason: str
    curves: Mapping[str, tuple[float, ...]]

    @property
    def final(self) -> dict[str, float]:
        return {p: c[-1] for p, c in self.curves.items() if c}


def catch_up_normalisation(
    records: Iterable[MatchRecord],
    base: str,
    horizon: int | None = None,
    threshold: ThresholdSpec | None = None,
) -> dict[Cell, NormalisedCell]:
    """Normalise every (game, role) against base participant ``base``.

    Default: the catch-up normalisation of SCORING.md section 3; pass ``threshold`` for the
    paper's threshold version. Cells where the base has no match or a flat curve are flagged
    ``playable=False``.
    """
    return normalise_curves(arms_curves(records, horizon), base, threshold)


def normalise_curves(
    arms: Mapping[Cell, Mapping[str, FloatArray]],
    base: str,
    threshold: ThresholdSpec | None = None,
) -> dict[Cell, NormalisedCell]:
    """`catch_up_normalisation` from running-max curves already computed (`arms_curves`, or
    an equal computation over a table such as the dashboard's)."""
    out: dict[Cell, NormalisedCell] = {}
    for cell, curves in arms.items():
        game, role = cell
        if base not in curves:
            out[cell] = NormalisedCell(
                game, role, base, False, f"base '{base}' has no match here", {}
            )
            continue
        scored: dict[str, tuple[float, ...]] = {}
        for name, curve in curves.items():
            if threshold is None:
                s = catch_up_scores(curves[base], curve)
            else:
                s = threshold_scores(curves[base], curve, threshold)
            if s is None:
                break
            scored[name] = s
        else:
            out[cell] = NormalisedCell(game, role, base, True, "", scored)
            continue
        why = "base curve is flat" if threshold is None else "base never reaches level m"
        out[cell] = NormalisedCell(game, role, base, False, f"not playable for '{base}': {why}", {})
    return out


def game_scores(cells: Mapping[Cell, NormalisedCell]) -> dict[str, dict[str, float]]:
    """participant -> game -> final normalised score, averaged over the game's playable roles."""
    acc: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for cell in cells.values():
        for name, value in cell.final.items():
            acc[name][cell.game].append(value)
    return {
        p: {g: float(np.mean(v)) for g, v in sorted(gs.items())} for p, gs in sorted(acc.items())
    }


# ---------------------------------------------------------------------------------------------
# Reference normalisation


@dataclass(frozen=True)
class ReferenceScores:
    """``per_game[p][game]`` and ``overall[p]`` are x100 percentages of the best score per map."""

    per_game: Mapping[str, Mapping[str, float]]
    overall: Mapping[str, float]
    skipped_maps: tuple[MapKey, ...]


def reference_normalisation(records: Iterable[MatchRecord]) -> ReferenceScores:
    """Per map: score / |best match score on that map|; mean over maps (and roles) of a game,
    then over the participant's games; x100. Forfeits and missing maps count as the forfeit
    value (module docstring); maps whose best score is 0 or that nobody scored are skipped."""
    recs = list(records)
    plays = _plays(recs)
    worst = forfeit_values(recs, "match", plays)
    skipped: list[MapKey] = []
    maps_of: dict[str, list[MapKey]] = defaultdict(list)
    games_of: dict[str, set[str]] = defaultdict(set)
    for key, ps in plays.items():
        for p in ps:
            games_of[p.participant].add(key[0])
        scores = [p.seat.score for p in ps if not p.seat.forfeit and p.seat.score is not None]
        if not scores or math.isclose(max(scores), 0.0, abs_tol=1e-12):
            skipped.append(key)
        else:
            maps_of[key[0]].append(key)
    per_game: dict[str, dict[str, float]] = {}
    for name in sorted(games_of):
        mine: dict[str, float] = {}
        for game in sorted(games_of[name]):
            values = []
            for key in sorted(maps_of.get(game, [])):
                best = max(
                    p.seat.score
                    for p in plays[key]
                    if not p.seat.forfeit and p.seat.score is not None
                )
                own = [p.seat for p in plays[key] if p.participant == name]
                raw = [worst[key] if s.forfeit or s.score is None else s.score for s in own] or [
                    worst[key]
                ]
                values.append(reference_ratio(float(np.mean(raw)), best))
            if values:
                mine[game] = 100.0 * float(np.mean(values))
        per_game[name] = mine
    overall = {p: float(np.mean(list(g.values()))) for p, g in per_game.items() if g}
    return ReferenceScores(per_game, overall, tuple(sorted(skipped)))


# ---------------------------------------------------------------------------------------------
# Xent measure (paper 5.3)


@dataclass(frozen=True)
class XentMeasure:
    """A participant's histogram over games of its normalised scores: each game is an atom of
    mass 1/|games|; ``masses`` sum to 1 over ``bin_edges`` (values outside the edges are
    clipped into the end bins). All participants share the edges so they can be overlaid."""

    participant: str
    values: Mapping[str, float]
    bin_edges: tuple[float, ...]
    masses: tuple[float, ...]


def xent_measures(
    scores: Mapping[str, Mapping[str, float]], bin_edges: Sequence[float] | None = None
) -> dict[str, XentMeasure]:
    """Histogram data per participant from ``participant -> game -> normalised score``."""
    edges = np.asarray(
        bin_edges if bin_edges is not None else np.linspace(0.0, MAX_NORMALISED, 21),
        dtype=np.float64,
    )
    if edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise RatingInputError(f"bin_edges {list(edges)} must be at least two increasing numbers.")
    out = {}
    for name, per_game in sorted(scores.items()):
        vals = np.clip(np.array(list(per_game.values()), dtype=np.float64), edges[0], edges[-1])
        counts, _ = np.histogram(vals, bins=edges)
        masses = counts / vals.size if vals.size else counts.astype(np.float64)
        out[name] = XentMeasure(
            name, dict(per_game), tuple(float(e) for e in edges), tuple(float(m) for m in masses)
        )
    return out
