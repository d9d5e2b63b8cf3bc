"""What the filters and the catalogue pages list: tournaments, games, judges, snapshots,
date ranges, the games table and per-role score distributions.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pandas as pd
from sqlalchemy import Engine, and_, case, func, select
from sqlmodel import col

from arena.storage.numbers import snapshot_number_of
from arena.storage.read_model.filters import Filters
from arena.storage.read_model.frames import joined_matches, match_conditions, read_frame
from arena.storage.tables import (
    Game,
    JudgeRecord,
    Match,
    Participant,
    RatingSnapshot,
    Run,
    Seat,
    Tournament,
)


def tournaments(engine: Engine) -> pd.DataFrame:
    """Every tournament: name, mode, created, matches (done / error), runs, last run status."""
    done = func.sum(case((col(Match.status) == "done", 1), else_=0))
    errors = func.sum(case((col(Match.status) == "error", 1), else_=0))
    counts = (
        select(col(Match.tournament_id), done.label("done"), errors.label("errors"),
               func.max(col(Match.finished_at)).label("last_match"))
        .group_by(col(Match.tournament_id))
        .subquery()
    )
    last_run = (
        select(col(Run.tournament_id), func.max(col(Run.id)).label("run_id"),
               func.count().label("runs"))
        .group_by(col(Run.tournament_id))
        .subquery()
    )
    query = (
        select(
            col(Tournament.name), col(Tournament.mode), col(Tournament.created_at),
            func.coalesce(counts.c.done, 0).label("done"),
            func.coalesce(counts.c.errors, 0).label("errors"),
            func.coalesce(last_run.c.runs, 0).label("runs"),
            col(Run.status).label("last_run_status"), counts.c.last_match,
            col(Tournament.config_json),
        )
        .outerjoin(counts, counts.c.tournament_id == col(Tournament.id))
        .outerjoin(last_run, last_run.c.tournament_id == col(Tournament.id))
        .outerjoin(Run, col(Run.id) == last_run.c.run_id)
        .order_by(col(Tournament.id).desc())
    )
    return read_frame(engine, query)


def game_names(engine: Engine, tournament: str | None) -> list[str]:
    return _distinct_values(
        engine, col(Game.name), col(Match.game_id) == col(Game.id), tournament
    )


def judge_specs(engine: Engine, tournament: str | None) -> list[str]:
    return _distinct_values(
        engine, col(JudgeRecord.spec), col(Match.judge_id) == col(JudgeRecord.id), tournament
    )


def _distinct_values(
    engine: Engine, column: Any, match_join: Any, tournament: str | None
) -> list[str]:
    """The sorted distinct values of `column`, among those a match of `tournament` uses
    (`match_join`: how a match row reaches `column`'s table) when one is named."""
    query = select(column).distinct().order_by(column)
    if tournament:
        query = (
            query.join(Match, match_join)
            .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
            .where(col(Tournament.name) == tournament)
        )
    with engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(query)]


def snapshots(engine: Engine, tournament: str | None) -> pd.DataFrame:
    """Rating snapshots (newest first): id, number (within its tournament: #1 is its
    first), created_at, method, matches rated, run id."""
    query = (
        select(
            col(RatingSnapshot.id),
            snapshot_number_of(col(RatingSnapshot.id), col(RatingSnapshot.tournament_id))
            .label("number"),
            col(RatingSnapshot.created_at), col(RatingSnapshot.method),
            col(RatingSnapshot.payload_json),
        )
        .outerjoin(Tournament, col(Tournament.id) == col(RatingSnapshot.tournament_id))
        .order_by(col(RatingSnapshot.id).desc())
    )
    if tournament:
        query = query.where(col(Tournament.name) == tournament)
    frame = read_frame(engine, query)
    payloads = [json.loads(p) for p in frame.pop("payload_json")] if len(frame) else []
    frame["matches"] = [p.get("matches") for p in payloads]
    frame["run_id"] = [p.get("run_id") for p in payloads]
    return frame


def snapshot_payload(engine: Engine, snapshot_id: int) -> dict[str, Any] | None:
    with engine.connect() as conn:
        text = conn.execute(
            select(col(RatingSnapshot.payload_json)).where(col(RatingSnapshot.id) == snapshot_id)
        ).scalar()
    return None if text is None else dict(json.loads(str(text)))


def run_config_sha(engine: Engine, run_id: int | None) -> str:
    if run_id is None:
        return ""
    with engine.connect() as conn:
        found = conn.execute(select(col(Run.config_sha256)).where(col(Run.id) == run_id)).scalar()
    return "" if found is None else str(found)


def date_range(engine: Engine, tournament: str | None) -> tuple[datetime | None, datetime | None]:
    query = select(func.min(col(Match.finished_at)), func.max(col(Match.finished_at)))
    if tournament:
        query = query.join(Tournament, col(Tournament.id) == col(Match.tournament_id)).where(
            col(Tournament.name) == tournament
        )
    with engine.connect() as conn:
        low, high = conn.execute(query).one()
    return low, high


# ------------------------------------------------------------------------------ matches


def games(engine: Engine, tournament: str | None) -> pd.DataFrame:
    """Stored games (every version): name, version, dialect, code_sha256, filename, source,
    matches played (in the tournament, when one is given)."""
    counts = select(col(Match.game_id), func.count().label("matches")).group_by(col(Match.game_id))
    if tournament:
        counts = counts.join(Tournament, col(Tournament.id) == col(Match.tournament_id)).where(
            col(Tournament.name) == tournament
        )
    sub = counts.subquery()
    query = (
        select(
            col(Game.name), col(Game.version), col(Game.dialect), col(Game.code_sha256),
            col(Game.filename), col(Game.source), func.coalesce(sub.c.matches, 0).label("matches"),
        )
        .outerjoin(sub, sub.c.game_id == col(Game.id))
        .order_by(col(Game.name), col(Game.version))
    )
    frame = read_frame(engine, query)
    return frame[frame["matches"] > 0] if tournament and len(frame) else frame


def role_scores(engine: Engine, filters: Filters) -> pd.DataFrame:
    """Per game, role and participant: match count and mean best score (rated seats and NPCs)."""
    query = joined_matches(
        select(
            col(Game.name).label("game"), col(Seat.role),
            col(Participant.name).label("participant"),
            col(Seat.main), col(Seat.best),
        )
        .select_from(Match)
        .join(Seat, col(Seat.match_id) == col(Match.id))
        .join(Participant, col(Participant.id) == col(Seat.participant_id))
    ).where(and_(col(Match.status) == "done", col(Seat.best).is_not(None),
                 *match_conditions(filters)))
    return read_frame(engine, query)


# ------------------------------------------------------------------------------ runs, schedules
