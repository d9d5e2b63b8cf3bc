"""Reading the arena database: stored matches with their seats, transcripts, counts.

Functions take an `Engine` (the dashboard opens its own, read-only use) and return plain
records from `arena.storage.records`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import Engine, func, select

from arena.events import Event
from arena.storage import tables as t
from arena.storage.event_codec import decode_events
from arena.storage.records import StoredMatch, StoredSeat

MATCHES = t.table_of(t.Match)
SEATS = t.table_of(t.Seat)
EVENTS = t.table_of(t.EventRecord)
GAMES = t.table_of(t.Game)
MAPS = t.table_of(t.GameMap)
JUDGES = t.table_of(t.JudgeRecord)
PARTICIPANTS = t.table_of(t.Participant)
TOURNAMENTS = t.table_of(t.Tournament)


def tournament_names(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(select(TOURNAMENTS.c.name).order_by("name"))]


def tournament_id(engine: Engine, name: str) -> int | None:
    """The id of the tournament `name`, or None when it is not stored."""
    with engine.connect() as conn:
        found = conn.execute(select(TOURNAMENTS.c.id).where(TOURNAMENTS.c.name == name)).scalar()
    return None if found is None else int(found)


def stored_matches(
    engine: Engine,
    tournament: str,
    *,
    status: str | None = None,
    limit: int | None = None,
) -> list[StoredMatch]:
    """The tournament's stored matches in the order they finished (optionally only those
    with `status`, at most `limit` of the latest)."""
    query = (
        select(
            MATCHES,
            GAMES.c.name.label("game"),
            GAMES.c.version.label("game_version"),
            GAMES.c.code_sha256,
            MAPS.c.seed.label("map_seed"),
            JUDGES.c.model.label("judge_model"),
            JUDGES.c.revision.label("judge_revision"),
            JUDGES.c.dtype.label("judge_dtype"),
        )
        .join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id)
        .join(GAMES, GAMES.c.id == MATCHES.c.game_id)
        .join(MAPS, MAPS.c.id == MATCHES.c.map_id)
        .join(JUDGES, JUDGES.c.id == MATCHES.c.judge_id)
        .where(TOURNAMENTS.c.name == tournament)
    )
    if status is not None:
        query = query.where(MATCHES.c.status == status)
    if limit is not None:
        query = query.order_by(MATCHES.c.id.desc()).limit(limit)
    with engine.connect() as conn:
        rows = list(conn.execute(query).mappings())
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
        select(SEATS, PARTICIPANTS.c.name, PARTICIPANTS.c.spec)
        .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
        .order_by(SEATS.c.match_id, SEATS.c.id)
    )
    chunk = 500  # stay under the database's limit on bound parameters
    with engine.connect() as conn:
        for start in range(0, len(match_ids), chunk):
            ids = match_ids[start : start + chunk]
            for r in conn.execute(query.where(SEATS.c.match_id.in_(ids))).mappings():
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
        select(EVENTS.c.payload)
        .join(MATCHES, MATCHES.c.id == EVENTS.c.match_id)
        .where(MATCHES.c.key == key)
        .order_by(EVENTS.c.seq)
    )
    with engine.connect() as conn:
        return decode_events(r[0] for r in conn.execute(query))


def match_counts(engine: Engine, tournament: str) -> dict[str, int]:
    """Stored matches of the tournament by status."""
    query = (
        select(MATCHES.c.status, func.count())
        .join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id)
        .where(TOURNAMENTS.c.name == tournament)
        .group_by(MATCHES.c.status)
    )
    with engine.connect() as conn:
        return {str(status): int(n) for status, n in conn.execute(query)}


def map_texts(engine: Engine, map_id: int) -> dict[str, str]:
    with engine.connect() as conn:
        text = conn.execute(select(MAPS.c.stories_json).where(MAPS.c.id == map_id)).scalar()
    return {} if text is None else dict(json.loads(str(text)))
