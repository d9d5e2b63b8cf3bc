"""Rating inputs read incrementally: a done match never changes once stored, so a reader
that rates the same tournament again and again (the dashboard's live board on every page
run, an adaptive run before every round) keeps the matches it has read, with their
records, and reads only the matches stored since.

Kept per database (its URL) and tournament, for the last few of them, in the process.
Matches are known by id *and* finish time, so a database made anew at the same path (the
same ids, other matches) is read afresh.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

from arena.storage import MATCH_DONE, StoredMatch
from arena.storage.imports import ImportSource
from arena.tournaments.ratings.records import MatchRecord
from arena.tournaments.records.from_store import match_record, records_from_store

_KEPT = 4  # (database, tournament) pairs whose matches are kept
_Seen = dict[tuple[int, str], tuple[StoredMatch, MatchRecord]]  # (id, finish time) -> match
_MATCHES: OrderedDict[tuple[str, str], _Seen] = OrderedDict()
_LOCK = threading.Lock()


class IncrementalSource(Protocol):
    """A database that can say which done matches it has before they are read: a `Store`
    or the dashboard's `arena.storage.read_model.ReadModel`."""

    def where(self) -> str: ...

    def tournament_names(self) -> list[str]: ...

    def stored_matches(
        self, tournament: str, *, status: str | None = None, limit: int | None = None,
        ids: Sequence[int] | None = None,
    ) -> list[StoredMatch]: ...

    def done_match_ids(self, tournament: str) -> list[tuple[int, str]]: ...

    def import_sources(self, tournament: str) -> list[ImportSource]: ...

    def tournament_config(self, tournament: str) -> dict[str, Any] | None: ...


class KeptMatches:
    """`source` as a `arena.tournaments.records.rating_store.RatingSource` that reads each done
    match once and makes its record once (`records_from_store`): later calls read only the
    matches stored since. Pass `records` as `load_inputs`' ``records_of``."""

    def __init__(self, source: IncrementalSource) -> None:
        self._source = source
        # the matches last handed out, by id(), with their records; the match itself is held
        # so that its id() cannot be reused by another object while the entry exists
        self._made: dict[int, tuple[StoredMatch, MatchRecord]] = {}

    def tournament_names(self) -> list[str]:
        return self._source.tournament_names()

    def import_sources(self, tournament: str) -> list[ImportSource]:
        return self._source.import_sources(tournament)

    def tournament_config(self, tournament: str) -> dict[str, Any] | None:
        return self._source.tournament_config(tournament)

    def stored_matches(self, tournament: str, *, status: str | None = None) -> list[StoredMatch]:
        if status != MATCH_DONE:  # only done matches never change
            return self._source.stored_matches(tournament, status=status)
        kept = self._done(tournament)
        self._made = {id(m): (m, r) for m, r in kept}
        return [m for m, _ in kept]

    def records(self, matches: Sequence[StoredMatch]) -> list[MatchRecord]:
        """`records_from_store(matches)`: the records made when the matches were read."""
        return [self._record(m) for m in matches if m.status == MATCH_DONE]

    def _record(self, match: StoredMatch) -> MatchRecord:
        made = self._made.get(id(match))
        return made[1] if made is not None and made[0] is match else match_record(match)

    def _done(self, tournament: str) -> list[tuple[StoredMatch, MatchRecord]]:
        ids = self._source.done_match_ids(tournament)  # (id, finish time as text), by id
        key = (self._source.where(), tournament)
        with _LOCK:
            known = dict(_MATCHES.get(key, {}))
        new = [i for i, when in ids if (i, when) not in known]
        if new:
            every = len(new) * 2 > len(ids)  # mostly new: one read of the tournament
            read = self._source.stored_matches(
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
