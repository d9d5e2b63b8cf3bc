"""One match in full for the Replay page, and the matches comparable with it (same game,
role and map).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

import pandas as pd
from sqlalchemy import Engine, and_, func, select

from arena.events import Event
from arena.storage.event_codec import decode_events
from arena.storage.match_keys import match_id_for_ref, short_key
from arena.storage.queries import (  # the table handles have one home
    EVENTS,
    GAMES,
    JUDGES,
    MAPS,
    MATCHES,
    PARTICIPANTS,
    SEATS,
    TOURNAMENTS,
)
from arena.storage.read_model.frames import (
    read_frame,
)
from arena.storage.read_model.matches import seat_rows


@dataclass(frozen=True)
class MatchDetail:
    """One stored match for the replay page."""

    id: int
    key: str  # the short key (arena.storage.match_keys)
    tournament: str
    game: str
    game_version: str
    dialect: str
    code: str
    map_id: int
    map_index: int
    map_seed: int
    map_texts: dict[str, str]
    play_seed: int
    mode: str
    main_role: str | None
    rounds: int
    status: str
    error: str | None
    judge: str
    judge_model: str
    finished_at: datetime
    seats: pd.DataFrame
    events: list[Event]


def match_ref(engine: Engine, ref: str) -> int | None:
    """The id of the match a link names: by its short (or full) key, or, for links made
    before keys, by its numeric id; None when it names no match."""
    found = match_id_for_ref(engine, ref)
    if found is None and ref.strip().isdigit():
        with engine.connect() as conn:
            found = conn.execute(select(MATCHES.c.id).where(MATCHES.c.id == int(ref))).scalar()
    return None if found is None else int(found)


def match_detail(engine: Engine, match_id: int) -> MatchDetail | None:
    """Everything the replay shows of match `match_id`, or None when there is no such match."""
    query = (
        select(
            MATCHES, TOURNAMENTS.c.name.label("tournament"), GAMES.c.name.label("game"),
            GAMES.c.version.label("game_version"), GAMES.c.source,
            MAPS.c.seed.label("map_seed"), MAPS.c.stories_json,
            JUDGES.c.spec.label("judge"), JUDGES.c.model.label("judge_model"),
        )
        .join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id)
        .join(GAMES, GAMES.c.id == MATCHES.c.game_id)
        .join(MAPS, MAPS.c.id == MATCHES.c.map_id)
        .join(JUDGES, JUDGES.c.id == MATCHES.c.judge_id)
        .where(MATCHES.c.id == match_id)
    )
    with engine.connect() as conn:
        row = conn.execute(query).mappings().first()
        if row is None:
            return None
        payloads = conn.execute(
            select(EVENTS.c.payload).where(EVENTS.c.match_id == match_id).order_by(EVENTS.c.seq)
        ).scalars()
        events = decode_events(payloads)
    return MatchDetail(
        id=int(row["id"]), key=short_key(row["key"]), tournament=row["tournament"],
        game=row["game"],
        game_version=row["game_version"], dialect=row["dialect"], code=row["source"],
        map_id=int(row["map_id"]), map_index=int(row["map_index"]),
        map_seed=int(row["map_seed"]), map_texts=dict(json.loads(row["stories_json"])),
        play_seed=int(row["play_seed"]), mode=row["mode"], main_role=row["main_role"],
        rounds=int(row["rounds"]), status=row["status"], error=row["error"],
        judge=row["judge"], judge_model=row["judge_model"], finished_at=row["finished_at"],
        seats=seat_rows(engine, [match_id]), events=events,
    )


def comparable_matches(engine: Engine, match_id: int) -> pd.DataFrame:
    """Other done matches of the same game, map, main role and rounds (the eval-mode
    comparisons of SCORING.md section 2): match, key (short), participant, best."""
    m = MATCHES.alias("m")
    same = and_(
        MATCHES.c.game_id == m.c.game_id, MATCHES.c.map_id == m.c.map_id,
        MATCHES.c.rounds == m.c.rounds, MATCHES.c.id != m.c.id,
        func.coalesce(MATCHES.c.main_role, "") == func.coalesce(m.c.main_role, ""),
    )
    query = (
        select(
            MATCHES.c.id.label("match"), MATCHES.c.key,
            PARTICIPANTS.c.name.label("participant"), SEATS.c.role, SEATS.c.best,
        )
        .select_from(m)
        .join(MATCHES, same)
        .join(SEATS, and_(SEATS.c.match_id == MATCHES.c.id, SEATS.c.main))
        .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
        .where(m.c.id == match_id, MATCHES.c.status == "done")
        .order_by(MATCHES.c.id)
    )
    frame = read_frame(engine, query)
    frame["key"] = [short_key(k) for k in frame["key"]]
    return frame


# ------------------------------------------------------------------------------ games
