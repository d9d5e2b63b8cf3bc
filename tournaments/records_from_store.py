"""Stored matches (`Store.stored_matches`) as rating records.

Only matches stored as ``done`` count (an ``error`` match has no result; it is played again
on resume). A seat is an NPC exactly when it is not a main seat: in eval mode the main
character is the one rated seat, in head-to-head (and imported) matches every seat is.

Record fields: ``match_id`` is the stored plan key (unique across tournaments, so records of
several tournaments can be merged); ``map_id`` is the stored map's id (identical texts);
``order`` is the storage order (the live Elo view replays matches in it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.errors import UnknownNameError
from arena.storage import MATCH_DONE, MATCH_NO_RESULT, Store, StoredMatch, StoredSeat
from arena.tournaments.ratings.records import MatchRecord, Mode, NoResultRecord, SeatRecord


def seat_record(seat: StoredSeat) -> SeatRecord:
    # A done match always has a best score unless the seat forfeited every round; treat a
    # missing score as the forfeit it is rather than dropping the seat (SCORING.md 1).
    forfeit = seat.forfeit or seat.best is None
    return SeatRecord(
        role=seat.role,
        participant=seat.participant,
        score=seat.best,
        forfeit=forfeit,
        round_scores=tuple(seat.round_scores),
        npc=not seat.main,
    )


def match_record(match: StoredMatch) -> MatchRecord:
    mode: Mode = "eval" if match.mode == "eval" else "head_to_head"
    return MatchRecord(
        match_id=match.key,
        game=match.game,
        map_id=str(match.map_id),
        seats=tuple(seat_record(s) for s in match.seats),
        mode=mode,
        rounds=match.rounds,
        order=float(match.id),
        game_version=match.game_version,
    )


def records_from_store(matches: Iterable[StoredMatch]) -> list[MatchRecord]:
    """Records of the done matches among `matches`, in storage order."""
    return [match_record(m) for m in matches if m.status == MATCH_DONE]


def no_result_records(matches: Iterable[StoredMatch]) -> list[NoResultRecord]:
    """One record per rated seat of each match stored without a result."""
    return [
        NoResultRecord(m.key, m.game, str(m.map_id), s.participant, m.error or "")
        for m in matches
        if m.status == MATCH_NO_RESULT
        for s in m.seats
        if s.main
    ]


def check_tournaments(store: Store, tournaments: Sequence[str]) -> list[str]:
    """The names, deduplicated in order; UnknownNameError for one that is not stored."""
    known = store.tournament_names()
    out: list[str] = []
    for name in tournaments:
        if name not in known:
            raise UnknownNameError(
                "tournament", name, known,
                "Run `arena run FILE` or `arena import FILE --tournament NAME` first.",
            )
        if name not in out:
            out.append(name)
    return out


def load_records(store: Store, tournaments: Sequence[str]) -> list[MatchRecord]:
    """Done matches of every named tournament as records (participants matched by name)."""
    records: list[MatchRecord] = []
    for name in check_tournaments(store, tournaments):
        records += records_from_store(store.stored_matches(name, status=MATCH_DONE))
    return records
