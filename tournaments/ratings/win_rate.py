"""gg-bench's measure beside ours: each participant's win rate against a fixed reference
participant, per game and overall, with Wilson score intervals.

A *trial* compares a participant P with the reference R on equal terms:
- eval matches: P's and R's matches in one comparability group (same game, version, role,
  map, NPCs and rounds; SCORING.md section 2) form one trial, scored by the share of
  (P match, R match) pairs in which P's match score beats R's (a tie within the arena's
  tie tolerance, or two forfeits, is half a win; a forfeit loses to any score);
- head-to-head matches where P and R hold seats: each (P seat, R seat) pair is a trial.

The win rate is the sum of trial scores over the number of trials; "overall" pools the
trials of every game. The interval is Wilson's score interval for that proportion (ties
counted as half wins, as gg-bench counts draws).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from scipy.stats import norm

from arena.tournaments.ratings.outcomes import compare_seats
from arena.tournaments.ratings.records import MatchRecord

OVERALL = "(overall)"


@dataclass(frozen=True)
class WinRate:
    """Wins (ties as halves) out of trials, with the Wilson interval at `confidence`."""

    participant: str
    game: str
    wins: float
    trials: int
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.wins / self.trials if self.trials else math.nan


def wilson_interval(wins: float, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a proportion of `wins` in `trials` (0, 1 when none)."""
    if trials <= 0:
        return 0.0, 1.0
    z = float(norm.ppf(0.5 + confidence / 2))
    p = wins / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def trials_against(
    records: Iterable[MatchRecord], reference: str
) -> dict[tuple[str, str], list[float]]:
    """(participant, game) -> the scores of its trials against `reference`."""
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    groups: dict[tuple[object, ...], list[MatchRecord]] = defaultdict(list)
    for record in sorted(records, key=lambda r: r.match_id):
        if record.mode == "eval":
            groups[record.comparability_key()].append(record)
            continue
        theirs = [s for s in record.players if s.participant == reference]
        for seat in record.players:
            if seat.participant == reference:
                continue
            for ref in theirs:
                out[(seat.participant, record.game)].append(compare_seats(seat, ref))
    for group in groups.values():
        refs = [m.main for m in group if m.main.participant == reference]
        if not refs:
            continue
        mains: dict[str, list[float]] = defaultdict(list)
        for match in group:
            if match.main.participant != reference:
                mains[match.main.participant] += [compare_seats(match.main, r) for r in refs]
        for participant, shares in mains.items():
            out[(participant, group[0].game)].append(sum(shares) / len(shares))
    return out


def win_rates(
    records: Iterable[MatchRecord], reference: str, confidence: float = 0.95
) -> list[WinRate]:
    """Per participant: a row per game, then its overall row (pooled trials); sorted by
    participant, games by name."""
    trials = trials_against(records, reference)
    pooled: dict[str, list[float]] = defaultdict(list)
    rows = []
    for (participant, game), scores in sorted(trials.items()):
        pooled[participant] += scores
        rows.append(_row(participant, game, scores, confidence))
    rows += [_row(p, OVERALL, scores, confidence) for p, scores in pooled.items()]
    return sorted(rows, key=lambda r: (r.participant, r.game == OVERALL, r.game))


def _row(participant: str, game: str, scores: list[float], confidence: float) -> WinRate:
    wins = sum(scores)
    low, high = wilson_interval(wins, len(scores), confidence)
    return WinRate(participant, game, wins, len(scores), low, high)
