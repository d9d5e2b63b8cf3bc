"""The published Xent benchmark's leaderboard score (issue 20), as its
`scripts/generate_md_table.py` computes it from a `BenchmarkResult`, here over our match
records so that our runs and imported reference runs are scored the same way.

The definition, step by step (each step is the script's):

1. A result's score is its match score: the best round score (the reference's
   `extract_score`, our `SeatRecord.score`).
2. Per (game, map): the highest score of any result on it (all players, all repeats).
3. Each result is divided by the *absolute value* of that best. A best of exactly 0 leaves the
   map out for everyone. A negative best therefore scores its holder -1 and a worse result
   below -1: the ratio is no percentage then, but it is what the script prints.
4. Per player and game: the mean over the player's results in that game. Every result counts
   once, so a map played twice by a player weighs twice; a map the player did not play is
   simply absent (no penalty). A game whose maps were all left out is left out of the player's
   mean (not counted as 0).
5. Per player: the mean over those games, x100. A player with no game left scores 0.0.
6. The table ranks by that score, highest first; ties keep the order in which the players
   first appear (Python's stable sort over the script's insertion-ordered dict).

A map without a result (the reference's `run_game` returned None: an ensure line over its
budget, an API error) is absent from the reference's result file, hence from its score. Ours
are stored as matches without a result (`NoResultRecord`): absent from every step above
and counted per player and game (`BenchmarkScores.no_result`), so the table says how many
maps each score is missing.

Our records add what the reference has no notion of, decided here: a forfeited seat with no
score is left out (the reference drops a failed game from its results); NPC seats are never
scored; a game with several rated roles treats each (role, map) as a map of the game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from arena.tournaments.ratings.records import MatchRecord, NoResultRecord

MapKey = tuple[str, str, str]  # (game, role, map)

__all__ = ["BenchmarkScores", "benchmark_normalisation", "benchmark_table", "no_result_counts"]


@dataclass(frozen=True)
class BenchmarkScores:
    """``overall[p]``: the leaderboard score (x100); ``per_game[p][game]``: the step-4 means
    (x100, for display); ``ranking``: players in the table's order; ``skipped_maps``: maps
    whose best score is exactly 0; ``no_result[p][game]``: maps played without a result,
    absent from the score."""

    overall: Mapping[str, float]
    per_game: Mapping[str, Mapping[str, float]]
    ranking: tuple[str, ...]
    skipped_maps: tuple[MapKey, ...]
    no_result: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


def no_result_counts(no_results: Iterable[NoResultRecord]) -> dict[str, dict[str, int]]:
    """Matches without a result per participant and game, in the order first met."""
    counts: dict[str, dict[str, int]] = {}
    for record in no_results:
        games = counts.setdefault(record.participant, {})
        games[record.game] = games.get(record.game, 0) + 1
    return counts


def benchmark_normalisation(
    records: Iterable[MatchRecord], no_results: Iterable[NoResultRecord] = ()
) -> BenchmarkScores:
    """The benchmark's score of every rated participant of `records` (module docstring);
    records are read in (order, match_id) order, which fixes the order of ties and of the
    sums (the script's float arithmetic, operation for operation). `no_results` are only
    counted."""
    results = [
        (seat.participant, (rec.game, seat.role, rec.map_id), seat.score)
        for rec in sorted(records, key=lambda r: (r.order, r.match_id))
        for seat in rec.players
        if seat.score is not None
    ]
    best: dict[MapKey, float] = {}
    for _, key, score in results:
        if key not in best or score > best[key]:
            best[key] = score
    ratios: dict[str, dict[str, list[float]]] = {}  # participant -> game -> ratios, in order
    for name, key, score in results:
        per_game = ratios.setdefault(name, {}).setdefault(key[0], [])
        if abs(best[key]) != 0:
            per_game.append(score / abs(best[key]))
    overall: dict[str, float] = {}
    shown: dict[str, dict[str, float]] = {}
    for name, games in ratios.items():
        means: dict[str, float] = {}
        for game, values in games.items():
            total = 0.0
            for value in values:
                total += value
            if values:
                means[game] = total / len(values)
        shown[name] = {g: 100.0 * v for g, v in means.items()}
        average = sum(means.values()) / len(means) if means else 0.0
        overall[name] = average * 100.0
    ranking = tuple(sorted(overall, key=lambda p: overall[p], reverse=True))
    skipped = tuple(sorted(k for k, v in best.items() if abs(v) == 0))
    return BenchmarkScores(overall, shown, ranking, skipped, no_result_counts(no_results))


def benchmark_table(scores: BenchmarkScores) -> str:
    """The leaderboard as the reference script's Markdown table (scores to 2 decimals)."""
    if not scores.ranking:
        return "No scores to display."
    rows = ["| Rank | Player ID | Score |", "|:----:|:----------|------:|"]
    for rank, name in enumerate(scores.ranking, 1):
        rows.append(f"| {rank} | {name} | {scores.overall[name]:.2f} |")
    missing = {p: sum(g.values()) for p, g in scores.no_result.items()}
    if missing:  # the reference's table has no such line: its missing maps are silent
        rows.append("")
        rows.append(
            "Maps without a result (absent from the score): "
            + ", ".join(f"{p} {n}" for p, n in missing.items())
        )
    return "\n".join(rows)
