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
(per database and tournament) and only new matches are read. Past `LIVE_MAX_MATCHES` the
page shows the latest snapshot instead (benchmarks/dashboard_bench.py --only live).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from arena.storage import MATCH_DONE, StoredMatch
from arena.storage.imports import ImportSource
from arena.storage.read_model import ReadModel
from arena.tournaments.ratings.records import MatchRecord
from arena.tournaments.ratings.service import DEFAULT_OPTIONS, leaderboard_config

# Above this many stored matches the page shows the latest snapshot (and how many matches
# came since) instead of rating on every page run: the run stores a snapshot as it goes.
# `arena ratings`' 1 000 resamples cost about 11 s of CPU at 100 000 matches
# (benchmarks/dashboard_bench.py --only live), so the page stops there.
LIVE_MAX_MATCHES = 100_000
_KEPT = 4  # (database, tournament) pairs whose matches are kept
_Seen = dict[tuple[int, str], tuple[StoredMatch, MatchRecord]]  # (id, finish time) -> match
# (database URL, tournament) -> the done matches read so far, with their records
_MATCHES: OrderedDict[tuple[str, str], _Seen] = OrderedDict()
_LOCK = threading.Lock()
BOARD_COLUMNS = ["rank", "participant", "rating", "ci_low", "ci_high", "rank_low", "rank_high",
                 "n_comparisons", "provisional"]


def done_matches(reader: ReadModel, tournament: str | None) -> int:
    """Matches of `tournament` stored as done (what the ratings count)."""
    return 0 if not tournament else int(reader.match_counts(tournament).get("done", 0))


class KeptMatches:
    """The read model as a `arena.tournaments.records.rating_store.RatingSource` that reads each
    done match once and makes its record once (`records_from_store`): later calls read only
    the matches stored since. Matches are kept by id and finish time: a database made anew
    at the same path has the old ids, not the old matches."""

    def __init__(self, reader: ReadModel) -> None:
        self._reader = reader
        self._made: dict[int, MatchRecord] = {}  # id(StoredMatch handed out) -> its record

    def tournament_names(self) -> list[str]:
        return self._reader.tournament_names()

    def import_sources(self, tournament: str) -> list[ImportSource]:
        return self._reader.import_sources(tournament)

    def tournament_config(self, tournament: str) -> dict[str, Any] | None:
        return self._reader.tournament_config(tournament)

    def stored_matches(self, tournament: str, *, status: str | None = None) -> list[StoredMatch]:
        if status != MATCH_DONE:  # only done matches never change
            return self._reader.stored_matches(tournament, status=status)
        kept = self._done(tournament)
        self._made.update((id(m), r) for m, r in kept)
        return [m for m, _ in kept]

    def records(self, matches: Sequence[StoredMatch]) -> list[MatchRecord]:
        """`records_from_store(matches)`: the records made when the matches were read."""
        from arena.tournaments.records.from_store import match_record

        return [self._made.get(id(m)) or match_record(m) for m in matches
                if m.status == MATCH_DONE]

    def _done(self, tournament: str) -> list[tuple[StoredMatch, MatchRecord]]:
        from arena.tournaments.records.from_store import records_from_store

        ids = self._reader.done_match_ids(tournament)  # (id, finish time as text), by id
        key = (self._reader.where, tournament)
        with _LOCK:
            known = dict(_MATCHES.get(key, {}))
        new = [i for i, when in ids if (i, when) not in known]
        if new:
            every = len(new) * 2 > len(ids)  # mostly new: one read of the tournament
            read = self._reader.stored_matches(
                tournament, status=MATCH_DONE, ids=None if every else new)
            when = dict(ids)
            for match, record in zip(read, records_from_store(read), strict=True):
                if match.id in when:  # (a match stored between the two reads waits a call)
                    known[(match.id, when[match.id])] = (match, record)
        kept = {i: known[i] for i in ids if i in known}
        with _LOCK:
            _MATCHES[key] = kept
            _MATCHES.move_to_end(key)
            while len(_MATCHES) > _KEPT:
                _MATCHES.popitem(last=False)
        return list(kept.values())


def live_board(reader: ReadModel, tournament: str, previous: int | None = None) -> pd.DataFrame:
    """`arena ratings` of every done match of `tournament`, computed now (`rate_now`)."""
    return rate_now(reader, tournament, previous)[0]


def rate_now(reader: ReadModel, tournament: str, previous: int | None = None
             ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """`arena ratings` of every done match of `tournament`, computed now: the snapshot
    board's columns (rank, participant, rating, ci_low, ci_high, rank_low, rank_high,
    n_comparisons, provisional) and rank_change since snapshot `previous` (NaN: new); and
    how it was computed (a snapshot's `config`)."""
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
