"""The leaderboard between snapshots: when matches were stored after the latest rating
snapshot (a run in progress, or matches stored without one), the Leaderboard shows ratings
computed now from every stored match, so it follows a run within seconds instead of waiting
for the run's next snapshot.

It is `arena ratings`, not a copy of it: the same inputs (`arena.tournaments.records.rating_store.
load_inputs`: the records of `arena.tournaments.records.from_store`, win-share imports, the
sources' point convention, base, normalisation) read through the read model, rated by the
same `rating_rows` with the same options (`DEFAULT_OPTIONS`: 1 000 bootstrap resamples,
seed 0), so the page equals `arena ratings --tournament NAME` number for number. A done
match never changes once stored, so the matches already read and their records are kept
and only new matches are read (`arena.tournaments.records.kept_matches`, as adaptive runs
read them). Past `LIVE_MAX_MATCHES` the page shows the latest snapshot instead
(benchmarks/dashboard_bench.py --only live).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from arena.storage.read_model import ReadModel
from arena.tournaments.ratings.service import DEFAULT_OPTIONS, leaderboard_config

# Above this many stored matches the page shows the latest snapshot (and how many matches
# came since) instead of rating on every page run: the run stores a snapshot as it goes.
# `arena ratings`' 1 000 resamples cost about 11 s of CPU at 100 000 matches
# (benchmarks/dashboard_bench.py --only live), so the page stops there.
LIVE_MAX_MATCHES = 100_000
BOARD_COLUMNS = ["rank", "participant", "rating", "ci_low", "ci_high", "rank_low", "rank_high",
                 "n_comparisons", "provisional"]


def done_matches(reader: ReadModel, tournament: str | None) -> int:
    """Matches of `tournament` stored as done (what the ratings count)."""
    return 0 if not tournament else int(reader.match_counts(tournament).get("done", 0))


def live_board(reader: ReadModel, tournament: str, previous: int | None = None) -> pd.DataFrame:
    """`arena ratings` of every done match of `tournament`, computed now (`rate_now`)."""
    return rate_now(reader, tournament, previous)[0]


def rate_now(reader: ReadModel, tournament: str, previous: int | None = None
             ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """`arena ratings` of every done match of `tournament`, computed now: the snapshot
    board's columns (rank, participant, rating, ci_low, ci_high, rank_low, rank_high,
    n_comparisons, provisional) and rank_change since snapshot `previous` (NaN: new); and
    how it was computed (a snapshot's `config`)."""
    from arena.tournaments.records.kept_matches import KeptMatches
    from arena.tournaments.records.rating_store import rated

    source = KeptMatches(reader)
    inputs, board = rated(source, [tournament], DEFAULT_OPTIONS, source.records)
    frame = pd.DataFrame(board.as_dicts(), columns=BOARD_COLUMNS[1:])
    frame.insert(0, "rank", range(1, len(frame) + 1))
    before: dict[str, int] = {}
    if previous is not None:
        rows = (reader.snapshot_payload(previous) or {}).get("rows", [])
        ordered = sorted(rows, key=lambda r: -float(r["rating"]))
        before = {str(r["participant"]): i + 1 for i, r in enumerate(ordered)}
    frame["rank_change"] = [before[p] - r if p in before else np.nan
                            for p, r in zip(frame["participant"], frame["rank"], strict=True)]
    return frame, asdict(leaderboard_config(inputs, DEFAULT_OPTIONS))
