"""Reading the arena database: stored matches with their seats, transcripts, counts.

Functions take an `Engine` (the dashboard opens its own, read-only use) and return plain
records from `arena.storage.records`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, Select, String, cast, func, select
from sqlmodel import col

from arena.events import Event
from arena.storage.event_codec import decode_events
from arena.storage.records import MATCH_DONE, StoredMatch, StoredSeat
from arena.storage.tables import (
    EventRecord,
    Game,
    GameMap,
    JudgeRecord,
    Match,
    Participant,
    Seat,
    Tournament,
)

AnySelect = Select[*tuple[Any, ...]]  # a SELECT of any columns (typed queries)

def tournament_names(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(select(col(Tournament.name)).order_by("name"))]


def done_match_ids(engine: Engine, tournament: str) -> list[tuple[int, str]]:
    """(id, finish time) of the done matches of `tournament`, by id: what a reader that keeps
    the matches it has read asks for first (done matches never change); the finish time
    tells a match from another stored under the same id in a database made anew at the
    same path."""
    # The finish time as the database's text: no datetime object per match (100 000 of
    # them took most of this function's time).
    query: AnySelect = (
        select(col(Match.id), cast(col(Match.finished_at), String))
        .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .where(col(Tournament.name) == tournament, col(Match.status) == MATCH_DONE)
    )
    with engine.connect() as conn:
        return sorted((int(i), str(when)) for i, when in conn.execute(query))


def tournament_id(engine: Engine, name: str) -> int | None:
    """The id of the tournament `name`, or None when it is not stored."""
    with engine.connect() as conn:
        found = conn.execute(
            select(col(Tournament.id)).where(col(Tournament.name) == name)
        ).scalar()
    return None if found is None else int(found)


def stored_matches(
    engine: Engine,
    tournament: str,
    *,
    status: str | None = None,
    limit: int | None = None,
    ids: Sequence[int] | None = None,
) -> list[StoredMatch]:
    """The tournament's stored matches in the order they finished (optionally only those
    with `status`, at most `limit` of the latest, only those whose id is among `ids`)."""
    query: AnySelect = (
        select(
            Match,
            col(Game.name).label("game"),
            col(Game.version).label("game_version"),
            col(Game.code_sha256),
            col(GameMap.seed).label("map_seed"),
            col(JudgeRecord.model).label("judge_model"),
            col(JudgeRecord.revision).label("judge_revision"),
            col(JudgeRecord.dtype).label("judge_dtype"),
        )
        .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .join(Game, col(Game.id) == col(Match.game_id))
        .join(GameMap, col(GameMap.id) == col(Match.map_id))
        .join(JudgeRecord, col(JudgeRecord.id) == col(Match.judge_id))
        .where(col(Tournament.name) == tournament)
    )
    if status is not None:
        query = query.where(col(Match.status) == status)
    if limit is not None:
        query = query.order_by(col(Match.id).desc()).limit(limit)
    chunks = [None] if ids is None else [list(ids[k : k + 500]) for k in range(0, len(ids), 500)]
    with engine.connect() as conn:
        rows = [
            r
            for chunk in chunks
            for r in conn.execute(
                query if chunk is None else query.where(col(Match.id).in_(chunk))
            ).mappings()
        ]
        rows.sort(key=lambda r: int(r["id"]))
        seats = _seats(engine, [int(r["id"]) for r in rows])
    return [
        StoredMatch(
            id=int(r["id"]),
            key=r["key"],
            tournament=tournament,
            run_id=r["run_id"],
            game=r["game"],
            game_version=r["game_version"],
            code_sha256=r["code_sha256"],
            dialect=r["dialect"],
            map_id=r["map_id"],
            map_index=r["map_index"],
            map_seed=r["map_seed"],
            play_seed=r["play_seed"],
            mode=r["mode"],
            main_role=r["main_role"],
            rounds=r["rounds"],
            status=r["status"],
            error=r["error"],
            event_count=r["event_count"],
            judge_model=r["judge_model"],
            judge_revision=r["judge_revision"],
            judge_dtype=r["judge_dtype"],
            finished_at=r["finished_at"],
            seats=tuple(seats[int(r["id"])]),
            executor=r["executor"],
            judge_backend=r["judge_backend"],
        )
        for r in rows
    ]


def _seats(engine: Engine, match_ids: Sequence[int]) -> dict[int, list[StoredSeat]]:
    found: dict[int, list[StoredSeat]] = defaultdict(list)
    if not match_ids:
        return found
    query = (
        select(Seat, col(Participant.name), col(Participant.spec))
        .join(Participant, col(Participant.id) == col(Seat.participant_id))
        .order_by(col(Seat.match_id), col(Seat.id))
    )
    chunk = 500  # stay under the database's limit on bound parameters
    with engine.connect() as conn:
        for start in range(0, len(match_ids), chunk):
            ids = match_ids[start : start + chunk]
            for r in conn.execute(query.where(col(Seat.match_id).in_(ids))).mappings():
                found[int(r["match_id"])].append(
                    StoredSeat(
                        role=r["role"],
                        participant=r["name"],
                        spec=r["spec"],
                        main=bool(r["main"]),
                        best=r["best"],
                        forfeit=bool(r["forfeit"]),
                        round_scores=tuple(json.loads(r["round_scores_json"])),
                    )
                )
    return found


def match_events(engine: Engine, key: str) -> list[Event]:
    """The full transcript of the match with plan key `key`, in order."""
    query = (
        select(col(EventRecord.payload))
        .join(Match, col(Match.id) == col(EventRecord.match_id))
        .where(col(Match.key) == key)
        .order_by(col(EventRecord.seq))
    )
    with engine.connect() as conn:
        return decode_events(r[0] for r in conn.execute(query))


SeatSpendRow = tuple[str, int, int, float, float, float, float, float]


def seat_spend(engine: Engine, tournament: str) -> list[SeatSpendRow]:
    """Per participant, over its rated (main) seats of the tournament's done matches: the
    seats, those with a spend on record, and the sums of prompt tokens, completion tokens,
    dollars, calls and seconds on moves (`SeatResult`)."""
    query = (
        select(
            col(Participant.name), func.count(), func.count(col(Seat.move_s)),
            *(func.coalesce(func.sum(c), 0.0) for c in (
                col(Seat.prompt_tokens), col(Seat.completion_tokens), col(Seat.cost_usd),
                col(Seat.calls), col(Seat.move_s))),
        )
        .select_from(Seat)
        .join(Match, col(Match.id) == col(Seat.match_id))
        .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .join(Participant, col(Participant.id) == col(Seat.participant_id))
        .where(col(Tournament.name) == tournament, col(Match.status) == MATCH_DONE,
               col(Seat.main))
        .group_by(col(Participant.name))
        .order_by(col(Participant.name))
    )
    with engine.connect() as conn:
        return [
            (str(r[0]), int(r[1]), int(r[2]), float(r[3] or 0.0), float(r[4] or 0.0),
             float(r[5] or 0.0), float(r[6] or 0.0), float(r[7] or 0.0))
            for r in conn.execute(query)
        ]


def match_counts(engine: Engine, tournament: str) -> dict[str, int]:
    """Stored matches of the tournament by status."""
    query = (
        select(col(Match.status), func.count())
        .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .where(col(Tournament.name) == tournament)
        .group_by(col(Match.status))
    )
    with engine.connect() as conn:
        return {str(status): int(n) for status, n in conn.execute(query)}


def map_texts(engine: Engine, map_id: int) -> dict[str, str]:
    with engine.connect() as conn:
        text = conn.execute(
            select(col(GameMap.stories_json)).where(col(GameMap.id) == map_id)
        ).scalar()
    return {} if text is None else dict(json.loads(str(text)))
