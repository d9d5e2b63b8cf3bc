"""Import of the GameBench match results (``matches.json``, CC-BY 4.0).

Each JSON object is ``{"game": ..., agent_1: score_1, agent_2: score_2}`` with scores in [0, 1]
summing to 1. We follow GameBench's own rating code (``rating.py`` in its repository, which
feeds choix's spectral ranking with per-match score pairs):

* A fractional score is a fractional win: the match counts as ``score_1`` wins for agent 1 and
  ``score_2`` wins for agent 2 in the Bradley–Terry likelihood (score 1/0 is a plain win).
* Exact draws (equal scores, e.g. 0.5/0.5) give no comparison, but they stay in the pool the
  bootstrap draws from and in the per-game match counts, as in GameBench.
* Ratings are the mean over game-weighted bootstrap resamples of the per-resample fits on the
  natural-log scale with mean 0 (use ``LeaderboardConfig(point="bootstrap_mean",
  scale="natural")``).

:func:`gamebench_records` also converts the matches into plain :class:`MatchRecord` objects
(the higher score wins, SCORING.md section 4) for use with the arena's own pipeline.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.tournaments.ratings.comparisons import ComparisonData, build_comparisons
from arena.tournaments.ratings.errors import RatingInputError
from arena.tournaments.ratings.outcomes import Outcome
from arena.tournaments.ratings.records import MatchRecord, SeatRecord

SEATS = ("first", "second")  # JSON key order; GameBench does not say who moved first


@dataclass(frozen=True)
class GameBenchMatch:
    """One GameBench match; ``agents`` and ``scores`` in the JSON's key order."""

    match_id: str
    game: str
    agents: tuple[str, str]
    scores: tuple[float, float]

    @property
    def exact_draw(self) -> bool:
        return self.scores[0] == self.scores[1]


def parse_gamebench(rows: Sequence[dict[str, object]]) -> list[GameBenchMatch]:
    """Validate and convert the decoded JSON array."""
    out = []
    for i, row in enumerate(rows):
        game = row.get("game")
        agents = [k for k in row if k != "game"]
        scores = [row[k] for k in agents]
        if not isinstance(game, str) or len(agents) != 2:
            raise RatingInputError(
                f"GameBench match #{i} is {row!r}; each object needs a 'game' string and "
                "exactly two agent keys."
            )
        if not all(isinstance(s, int | float) and 0.0 <= s <= 1.0 for s in scores):
            raise RatingInputError(
                f"GameBench match #{i} has scores {scores}; each must lie in [0, 1]."
            )
        s1, s2 = float(scores[0]), float(scores[1])  # type: ignore[arg-type]
        if not math.isclose(s1 + s2, 1.0, abs_tol=1e-9):
            raise RatingInputError(f"GameBench match #{i} has scores {s1} + {s2} != 1.")
        out.append(GameBenchMatch(f"gamebench-{i:04d}", game, (agents[0], agents[1]), (s1, s2)))
    return out


def load_gamebench(path: str | Path) -> list[GameBenchMatch]:
    """Read ``matches.json``."""
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(rows, list):
        raise RatingInputError(
            f"{path}: expected a JSON array of matches, got {type(rows).__name__}."
        )
    return parse_gamebench(rows)


def gamebench_comparisons(
    matches: Sequence[GameBenchMatch], *, drop_exact_draws: bool = True
) -> ComparisonData:
    """Fractional-win comparisons as GameBench computes them (see module docstring)."""
    outcomes = [
        Outcome(
            game=m.game,
            a=m.agents[0],
            b=m.agents[1],
            role_a=SEATS[0],
            role_b=SEATS[1],
            score_a=m.scores[0],
            match_a=m.match_id,
            match_b=m.match_id,
        )
        for m in matches
        if not (drop_exact_draws and m.exact_draw)
    ]
    return build_comparisons(
        outcomes,
        [(m.match_id, m.game) for m in matches],
        participants=[a for m in matches for a in m.agents],
    )


def gamebench_records(matches: Sequence[GameBenchMatch]) -> list[MatchRecord]:
    """The matches as head-to-head records (scores stored as match scores)."""
    return [
        MatchRecord(
            match_id=m.match_id,
            game=m.game,
            map_id="",
            seats=tuple(
                SeatRecord(role=seat, participant=agent, score=score)
                for seat, agent, score in zip(SEATS, m.agents, m.scores, strict=True)
            ),
            order=float(i),
        )
        for i, m in enumerate(matches)
    ]
