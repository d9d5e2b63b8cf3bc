"""Pairwise outcomes from match records (SCORING.md sections 1, 2 and 4).

Rules:

* The higher match score wins; scores within :data:`TIE_TOLERANCE_BITS` (1e-6 bits) tie.
* A forfeit ranks below every non-forfeited result; two forfeits tie.
* A tie counts as half a win each way (``score_a = 0.5``).
* Head-to-head matches: every pair of non-NPC seats of the match gives one comparison.
* Eval matches: matches with the same :meth:`MatchRecord.comparability_key` (same game and
  version, main role, map, NPC set and rounds) are compared across participants. When a
  participant has several matches in one such group (replays with other play seeds), every pair
  of matches is compared and weighted ``1 / (n_a * n_b)``, so that each pair of participants
  gives one comparison's worth of evidence per group.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal, get_args

from arena.scoring import TIE_TOLERANCE_BITS as TIE_TOLERANCE_BITS  # re-exported
from arena.tournaments.ratings.records import MatchRecord, SeatRecord

# How an imported result's scores compare (`arena import --outcome`): the higher score wins
# (SCORING.md section 4, what `arena run` records), or scores are shares of the win (GameBench).
OutcomeRule = Literal["higher-wins", "win-share"]
HIGHER_WINS: OutcomeRule = "higher-wins"
WIN_SHARE: OutcomeRule = "win-share"
OUTCOMES: tuple[OutcomeRule, ...] = get_args(OutcomeRule)


@dataclass(frozen=True)
class Outcome:
    """One pairwise comparison between participants ``a`` and ``b``.

    ``score_a`` is a's share of the win: 1 (a won), 0 (b won), 0.5 (tie); other values in
    [0, 1] are fractional wins (used by the GameBench import). ``match_a`` and ``match_b`` are
    the matches it comes from (the same match in head-to-head mode); the bootstrap resamples
    those. ``role_a``/``role_b`` are the seats, for the optional role effects.
    """

    game: str
    a: str
    b: str
    role_a: str
    role_b: str
    score_a: float
    match_a: str
    match_b: str
    weight: float = 1.0


def compare_seats(x: SeatRecord, y: SeatRecord) -> float:
    """x's share of the win against y: 1, 0 or 0.5 (tie, including two forfeits)."""
    if x.forfeit or y.forfeit:
        if x.forfeit and y.forfeit:
            return 0.5
        return 0.0 if x.forfeit else 1.0
    assert x.score is not None and y.score is not None  # guaranteed by SeatRecord
    diff = x.score - y.score
    if abs(diff) <= TIE_TOLERANCE_BITS:
        return 0.5
    return 1.0 if diff > 0 else 0.0


def head_to_head_outcomes(match: MatchRecord) -> list[Outcome]:
    """One comparison per pair of non-NPC seats of a head-to-head match."""
    out = []
    for x, y in combinations(match.players, 2):
        if x.participant == y.participant:
            continue  # a participant in two seats is not compared with itself
        out.append(
            Outcome(
                game=match.game,
                a=x.participant,
                b=y.participant,
                role_a=x.role,
                role_b=y.role,
                score_a=compare_seats(x, y),
                match_a=match.match_id,
                match_b=match.match_id,
            )
        )
    return out


def eval_outcomes(group: Sequence[MatchRecord]) -> list[Outcome]:
    """Cross-match comparisons inside one group of comparable eval matches."""
    per_participant: dict[str, int] = defaultdict(int)
    for m in group:
        per_participant[m.main.participant] += 1
    out = []
    for m1, m2 in combinations(group, 2):
        x, y = m1.main, m2.main
        if x.participant == y.participant:
            continue
        out.append(
            Outcome(
                game=m1.game,
                a=x.participant,
                b=y.participant,
                role_a=x.role,
                role_b=y.role,
                score_a=compare_seats(x, y),
                match_a=m1.match_id,
                match_b=m2.match_id,
                weight=1.0 / (per_participant[x.participant] * per_participant[y.participant]),
            )
        )
    return out


def pairwise_outcomes(records: Iterable[MatchRecord]) -> list[Outcome]:
    """All pairwise outcomes of the records, in a canonical order (sorted by match id)."""
    ordered = sorted(records, key=lambda r: r.match_id)
    out: list[Outcome] = []
    groups: dict[tuple[object, ...], list[MatchRecord]] = defaultdict(list)
    for rec in ordered:
        if rec.mode == "head_to_head":
            out.extend(head_to_head_outcomes(rec))
        else:
            groups[rec.comparability_key()].append(rec)
    for key in sorted(groups, key=repr):
        out.extend(eval_outcomes(groups[key]))
    return out
