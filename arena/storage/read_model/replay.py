"""One match in full for the Replay page, and the matches comparable with it (same game,
role and map).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

import pandas as pd
from sqlalchemy import Engine, and_, func, select
from sqlalchemy.orm import aliased
from sqlmodel import col

from arena.events import Event
from arena.storage.event_codec import decode_events
from arena.storage.match_keys import match_id_for_ref, short_key
from arena.storage.read_model.frames import (
    AnySelect,
    read_frame,
)
from arena.storage.read_model.matches import seat_rows
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


_MAX_ID_DIGITS = 18  # below 2**63: every database's BIGINT holds it


def match_ref(engine: Engine, ref: str) -> int | None:
    """The id of the match a link names: by its short (or full) key, or, for links made
    before keys, by its numeric id; None when it names no match."""
    ref = ref.strip()
    if not ref.isprintable():  # a NUL or control character names no match (and PostgreSQL
        return None  # refuses a NUL in any text it is asked to compare)
    found = match_id_for_ref(engine, ref)
    # An id is at most 18 ASCII digits: a longer one (?match=<20 digits>) overflows the
    # database's integer and names no match; '²' is a digit to `isdigit` but not to `int`.
    if found is None and ref.isascii() and ref.isdigit() and len(ref) <= _MAX_ID_DIGITS:
        with engine.connect() as conn:
            found = conn.execute(select(col(Match.id)).where(col(Match.id) == int(ref))).scalar()
    return None if found is None else int(found)


def match_detail(engine: Engine, match_id: int) -> MatchDetail | None:
    """Everything the replay shows of match `match_id`, or None when there is no such match."""
    query: AnySelect = (
        select(
            Match, col(Tournament.name).label("tournament"), col(Game.name).label("game"),
            col(Game.version).label("game_version"), col(Game.source),
            col(GameMap.seed).label("map_seed"), col(GameMap.stories_json),
            col(JudgeRecord.spec).label("judge"), col(JudgeRecord.model).label("judge_model"),
        )
        .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .join(Game, col(Game.id) == col(Match.game_id))
        .join(GameMap, col(GameMap.id) == col(Match.map_id))
        .join(JudgeRecord, col(JudgeRecord.id) == col(Match.judge_id))
        .where(col(Match.id) == match_id)
    )
    with engine.connect() as conn:
        row = conn.execute(query).mappings().first()
        if row is None:
            return None
        payloads = conn.execute(
            select(col(EventRecord.payload))
            .where(col(EventRecord.match_id) == match_id)
            .order_by(col(EventRecord.seq))
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
    m = aliased(Match, name="m")
    same = and_(
        col(Match.game_id) == col(m.game_id), col(Match.map_id) == col(m.map_id),
        col(Match.rounds) == col(m.rounds), col(Match.id) != col(m.id),
        func.coalesce(col(Match.main_role), "") == func.coalesce(col(m.main_role), ""),
    )
    query: AnySelect = (
        select(
            col(Match.id).label("match"), col(Match.key),
            col(Participant.name).label("participant"), col(Seat.role), col(Seat.best),
        )
        .select_from(m)
        .join(Match, same)
        .join(Seat, and_(col(Seat.match_id) == col(Match.id), col(Seat.main)))
        .join(Participant, col(Participant.id) == col(Seat.participant_id))
        .where(col(m.id) == match_id, col(Match.status) == "done")
        .order_by(col(Match.id))
    )
    frame = read_frame(engine, query)
    frame["key"] = [short_key(k) for k in frame["key"]]
    return frame


# ------------------------------------------------------------------------------ games
