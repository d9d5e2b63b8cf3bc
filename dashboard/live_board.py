"""The leaderboard between snapshots: when matches were stored after the latest rating
snapshot (a run in progress, or matches stored without one), the Leaderboard shows ratings
computed now from every stored match, so it follows a run within seconds instead of waiting
for the run's final snapshot.

It is the computation `arena ratings` makes (`arena.tournaments.ratings.service.compute_ratings`:
Bradley–Terry, match bootstrap with games weighted alike, rank ranges, provisional marks)
over the same done matches, read through the dashboard's seat table, with fewer bootstrap
resamples (`LIVE_RESAMPLES`); the stored snapshot written after the run has the full 1 000.
It takes seconds up to about 10 000 stored matches; past `LIVE_MAX_MATCHES` the page shows
the latest snapshot instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Engine

from arena.dashboard import data
from arena.dashboard.filters import Filters

LIVE_RESAMPLES = 200
# Above this many stored matches the page shows the latest snapshot (and how many matches
# came since) instead of rating on every page run: in eval mode the pairwise comparisons
# grow with the square of the matches per map, and rating 10 000 matches already takes
# several seconds (benchmarks/dashboard_bench.py --only live).
LIVE_MAX_MATCHES = 20_000
BOARD_COLUMNS = ["rank", "participant", "rating", "ci_low", "ci_high", "rank_low", "rank_high",
                 "n_comparisons", "provisional"]


def done_matches(engine: Engine, tournament: str | None) -> int:
    """Matches of `tournament` stored as done (what the ratings count)."""
    from arena.storage.queries import match_counts

    return 0 if not tournament else int(match_counts(engine, tournament).get("done", 0))


def live_config() -> dict[str, Any]:
    """How `live_board` rates (the fields a snapshot's `config` has that the page reads)."""
    from dataclasses import asdict

    from arena.tournaments.ratings.service import RatingOptions

    options = RatingOptions(n_resamples=LIVE_RESAMPLES)
    return {"n_resamples": options.n_resamples, "min_comparisons": options.min_comparisons,
            "confidence": options.confidence, "options": asdict(options)}


def live_board(engine: Engine, tournament: str, previous: int | None = None) -> pd.DataFrame:
    """Ratings of every done match of `tournament`, computed now: the snapshot board's
    columns (rank, participant, rating, ci_low, ci_high, rank_low, rank_high,
    n_comparisons, provisional) and rank_change since snapshot `previous` (NaN: new)."""
    from arena.tournaments.ratings.service import RatingInputs, RatingOptions, compute_ratings

    seats = data.scored_seats(engine, Filters(tournament=tournament))
    records = tuple(data.match_records(seats))
    board = compute_ratings(RatingInputs((tournament,), records),
                            RatingOptions(n_resamples=LIVE_RESAMPLES))
    frame = pd.DataFrame(board.as_dicts(), columns=BOARD_COLUMNS[1:])
    frame.insert(0, "rank", range(1, len(frame) + 1))
    before: dict[str, int] = {}
    if previous is not None:
        rows = (data.snapshot_payload(engine, previous) or {}).get("rows", [])
        ordered = sorted(rows, key=lambda r: -float(r["rating"]))
        before = {str(r["participant"]): i + 1 for i, r in enumerate(ordered)}
    frame["rank_change"] = [before[p] - r if p in before else np.nan
                            for p, r in zip(frame["participant"], frame["rank"], strict=True)]
    return frame
