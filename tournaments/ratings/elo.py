"""Online Elo for the live view (SCORING.md section 5); the leaderboard of record is
Bradley–Terry.

Matches are processed in ``(order, match_id)`` order. A comparison becomes available with its
later match (eval comparisons link two matches). All comparisons released by one match are
applied together from the ratings before that match, so the seat order inside a match does not
matter. Each comparison moves both ratings by ``k * weight * (score - expected)`` with
``expected = 1 / (1 + 10 ** ((r_b - r_a) / 400))``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from arena.tournaments.ratings.outcomes import Outcome, pairwise_outcomes
from arena.tournaments.ratings.records import MatchRecord

DEFAULT_K = 16.0
DEFAULT_INITIAL = 1000.0


def expected_score(r_a: float, r_b: float) -> float:
    """Elo's expected score of a against b."""
    return 1.0 / (1.0 + math.pow(10.0, (r_b - r_a) / 400.0))


def elo_update(
    ratings: Mapping[str, float],
    outcomes: Sequence[Outcome],
    k: float = DEFAULT_K,
    initial: float = DEFAULT_INITIAL,
) -> dict[str, float]:
    """New ratings after one batch of simultaneous outcomes (``ratings`` is not modified)."""
    new = dict(ratings)
    delta: dict[str, float] = defaultdict(float)
    for o in outcomes:
        r_a, r_b = ratings.get(o.a, initial), ratings.get(o.b, initial)
        change = k * o.weight * (o.score_a - expected_score(r_a, r_b))
        delta[o.a] += change
        delta[o.b] -= change
    for name, d in delta.items():
        new[name] = new.get(name, initial) + d
    return new


def online_elo(
    records: Iterable[MatchRecord], k: float = DEFAULT_K, initial: float = DEFAULT_INITIAL
) -> dict[str, float]:
    """Elo ratings after all matches, updated match by match in order."""
    recs = sorted(records, key=lambda r: (r.order, r.match_id))
    position = {r.match_id: i for i, r in enumerate(recs)}
    batches: dict[int, list[Outcome]] = defaultdict(list)
    for o in pairwise_outcomes(recs):
        batches[max(position[o.match_a], position[o.match_b])].append(o)
    ratings: dict[str, float] = {s.participant: initial for r in recs for s in r.players}
    for i in sorted(batches):
        ratings = elo_update(ratings, batches[i], k, initial)
    return ratings
