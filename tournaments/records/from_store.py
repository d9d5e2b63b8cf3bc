"""Stored matches (`Store.stored_matches`) as rating records: the one builder of the records
that `arena ratings`, the rating snapshots (during and after a run, scheduled or not) and the
dashboard's live board rate. Whoever reads the stored rows (a `Store`, the dashboard's read
model), `match_record_of` and `seat_record_of` make the records.

Only matches stored as ``done`` count (an ``error`` match has no result; it is played again
on resume). A seat is an NPC exactly when it is not a main seat: in eval mode the main
character is the one rated seat, in head-to-head (and imported) matches every seat is.

Record fields: ``match_id`` is the stored plan key (unique across tournaments, so records of
several tournaments can be merged); ``map_id`` is the stored map's id (identical texts);
``order`` is the storage order (the live Elo view replays matches in it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from arena.errors import UnknownNameError
from arena.storage import MATCH_DONE, MATCH_NO_RESULT, Store, StoredMatch, StoredSeat
from arena.tournaments.ratings.records import MatchRecord, Mode, NoResultRecord, SeatRecord


def seat_record_of(
    role: str, participant: str, main: bool, best: float | None, forfeit: bool,
    round_scores: Sequence[float | None],
) -> SeatRecord:
    """The rating record of one stored seat, from its stored values (however they were
    read: a `StoredSeat`, or a row of the dashboard's read model)."""
    # A done match always has a best score unless the seat forfeited every round; treat a
    # missing score as the forfeit it is rather than dropping the seat (SCORING.md 1).
    return SeatRecord(
        role=role,
        participant=participant,
        score=best,
        forfeit=forfeit or best is None,
        round_scores=tuple(round_scores),
        npc=not main,
    )


def match_record_of(
    key: str, game: str, game_version: str, map_id: int | str, mode: str, rounds: int, ident: int,
    seats: Sequence[SeatRecord],
) -> MatchRecord:
    """The rating record of one stored match from its stored values: the one place that
    says how a stored match becomes a record (ids, versions, modes), for every reader."""
    kind: Mode = "eval" if mode == "eval" else "head_to_head"
    return MatchRecord(
        match_id=key,
        game=game,
        map_id=str(map_id),
        seats=tuple(seats),
        mode=kind,
        rounds=int(rounds),
        order=float(ident),
        game_version=game_version,
    )


def seat_record(seat: StoredSeat) -> SeatRecord:
    return seat_record_of(
        seat.role, seat.participant, seat.main, seat.best, seat.forfeit, seat.round_scores
    )


def match_record(match: StoredMatch) -> MatchRecord:
    return match_record_of(
        match.key, match.game, match.game_version, match.map_id, match.mode, match.rounds,
        match.id, [seat_record(s) for s in match.seats],
    )


class Named(Protocol):
    """What knows the stored tournaments' names: a `Store`, or the dashboard's read model."""

    def tournament_names(self) -> list[str]: ...


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


def check_tournaments(store: Named, tournaments: Sequence[str]) -> list[str]:
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
