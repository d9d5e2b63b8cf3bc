"""The leaderboard between snapshots: when matches were stored after the latest rating
snapshot (a run in progress, or matches stored without one), the Leaderboard shows ratings
computed now from every stored match, so it follows a run within seconds instead of waiting
for the run's final snapshot.

It is the computation `arena ratings` makes (`arena.tournaments.ratings.service.compute_ratings`:
Bradley–Terry, match bootstrap with games weighted alike, rank ranges, provisional marks)
over the same done matches, read through the dashboard's seat table, with fewer bootstrap
resamples (`LIVE_RESAMPLES`); the stored snapshot written after the run has the full 1 000.
A done match never changes once stored, so the rating records of the matches already seen
are kept (per database and tournament) and only new matches are read. About 2 s of CPU at
100 000 stored matches (benchmarks/dashboard_bench.py --only live); past `LIVE_MAX_MATCHES`
the page shows the latest snapshot instead.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np
import pandas as pd

from arena.dashboard.data.records import match_records
from arena.dashboard.filters import Filters
from arena.storage.read_model import ReadModel
from arena.tournaments.ratings.records import MatchRecord

LIVE_RESAMPLES = 200
# Above this many stored matches the page shows the latest snapshot (and how many matches
# came since) instead of rating on every page run. Rating costs about 2 s of CPU per
# 100 000 matches (benchmarks/dashboard_bench.py --only live), so the limit only guards
# against tournaments far beyond what was measured.
LIVE_MAX_MATCHES = 250_000
_KEPT = 4  # (database, tournament) pairs whose records are kept
# (database URL, tournament) -> (match id, finish time) -> record
_RECORDS: OrderedDict[tuple[str, str], dict[tuple[int, str], MatchRecord]] = OrderedDict()
_LOCK = threading.Lock()
BOARD_COLUMNS = ["rank", "participant", "rating", "ci_low", "ci_high", "rank_low", "rank_high",
                 "n_comparisons", "provisional"]


def done_matches(reader: ReadModel, tournament: str | None) -> int:
    """Matches of `tournament` stored as done (what the ratings count)."""
    return 0 if not tournament else int(reader.match_counts(tournament).get("done", 0))


def live_config() -> dict[str, Any]:
    """How `live_board` rates (the fields a snapshot's `config` has that the page reads)."""
    from dataclasses import asdict

    from arena.tournaments.ratings.service import RatingOptions

    options = RatingOptions(n_resamples=LIVE_RESAMPLES)
    return {"n_resamples": options.n_resamples, "min_comparisons": options.min_comparisons,
            "confidence": options.confidence, "options": asdict(options)}


def live_board(reader: ReadModel, tournament: str, previous: int | None = None) -> pd.DataFrame:
    """Ratings of every done match of `tournament`, computed now: the snapshot board's
    columns (rank, participant, rating, ci_low, ci_high, rank_low, rank_high,
    n_comparisons, provisional) and rank_change since snapshot `previous` (NaN: new)."""
    from arena.tournaments.ratings.service import RatingInputs, RatingOptions, compute_ratings

    records = stored_records(reader, tournament)
    board = compute_ratings(RatingInputs((tournament,), records),
                            RatingOptions(n_resamples=LIVE_RESAMPLES))
    frame = pd.DataFrame(board.as_dicts(), columns=BOARD_COLUMNS[1:])
    frame.insert(0, "rank", range(1, len(frame) + 1))
    before: dict[str, int] = {}
    if previous is not None:
        rows = (reader.snapshot_payload(previous) or {}).get("rows", [])
        ordered = sorted(rows, key=lambda r: -float(r["rating"]))
        before = {str(r["participant"]): i + 1 for i, r in enumerate(ordered)}
    frame["rank_change"] = [before[p] - r if p in before else np.nan
                            for p, r in zip(frame["participant"], frame["rank"], strict=True)]
    return frame


def stored_records(reader: ReadModel, tournament: str) -> tuple[MatchRecord, ...]:
    """Rating records of every done match of `tournament`, in match id order; matches seen
    by an earlier call are not read again (done matches are never rewritten)."""
    ids = reader.done_match_ids(tournament)  # (id, finish time): a remade file's ids differ
    key = (reader.where, tournament)
    with _LOCK:
        known = dict(_RECORDS.get(key, {}))
    new = [i for i in ids if i not in known]
    if new:
        filters = Filters(tournament=tournament)
        if len(new) * 2 > len(ids):  # mostly new: one read of the tournament
            frames = [reader.scored_seats(filters)]
        else:
            frames = [reader.scored_seats(filters, match_ids=[i for i, _ in new[k:k + 5000]])
                      for k in range(0, len(new), 5000)]
        when = dict(ids)
        for seats in frames:
            for rec in match_records(seats, round_scores=False):
                mid = int(rec.match_id)
                if mid in when:  # (a match stored between the two reads waits a call)
                    known[(mid, when[mid])] = rec
    records = tuple(known[i] for i in ids if i in known)
    with _LOCK:
        _RECORDS[key] = {i: known[i] for i in ids if i in known}
        _RECORDS.move_to_end(key)
        while len(_RECORDS) > _KEPT:
            _RECORDS.popitem(last=False)
    return records
