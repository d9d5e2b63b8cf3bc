"""What the filters and the catalogue pages list: tournaments, games, judges, snapshots,
date ranges, the games table and per-role score distributions.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pandas as pd
from sqlalchemy import Engine, and_, case, func, select

from arena.storage.queries import (  # the table handles have one home
    GAMES,
    JUDGES,
    MATCHES,
    PARTICIPANTS,
    SEATS,
    TOURNAMENTS,
)
from arena.storage.read_model.filters import Filters
from arena.storage.read_model.frames import (
    RUNS,
    SNAPSHOTS,
    joined_matches,
    match_conditions,
    read_frame,
)


def tournaments(engine: Engine) -> pd.DataFrame:
    """Every tournament: name, mode, created, matches (done / error), runs, last run status."""
    done = func.sum(case((MATCHES.c.status == "done", 1), else_=0))
    errors = func.sum(case((MATCHES.c.status == "error", 1), else_=0))
    counts = (
        select(MATCHES.c.tournament_id, done.label("done"), errors.label("errors"),
               func.max(MATCHES.c.finished_at).label("last_match"))
        .group_by(MATCHES.c.tournament_id)
        .subquery()
    )
    last_run = (
        select(RUNS.c.tournament_id, func.max(RUNS.c.id).label("run_id"),
               func.count().label("runs"))
        .group_by(RUNS.c.tournament_id)
        .subquery()
    )
    query = (
        select(
            TOURNAMENTS.c.name, TOURNAMENTS.c.mode, TOURNAMENTS.c.created_at,
            func.coalesce(counts.c.done, 0).label("done"),
            func.coalesce(counts.c.errors, 0).label("errors"),
            func.coalesce(last_run.c.runs, 0).label("runs"),
            RUNS.c.status.label("last_run_status"), counts.c.last_match,
            TOURNAMENTS.c.config_json,
        )
        .outerjoin(counts, counts.c.tournament_id == TOURNAMENTS.c.id)
        .outerjoin(last_run, last_run.c.tournament_id == TOURNAMENTS.c.id)
        .outerjoin(RUNS, RUNS.c.id == last_run.c.run_id)
        .order_by(TOURNAMENTS.c.id.desc())
    )
    return read_frame(engine, query)


def game_names(engine: Engine, tournament: str | None) -> list[str]:
    query = select(GAMES.c.name).distinct().order_by(GAMES.c.name)
    if tournament:
        query = (
            query.join(MATCHES, MATCHES.c.game_id == GAMES.c.id)
            .join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id)
            .where(TOURNAMENTS.c.name == tournament)
        )
    with engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(query)]


def judge_specs(engine: Engine, tournament: str | None) -> list[str]:
    query = select(JUDGES.c.spec).distinct().order_by(JUDGES.c.spec)
    if tournament:
        query = (
            query.join(MATCHES, MATCHES.c.judge_id == JUDGES.c.id)
            .join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id)
            .where(TOURNAMENTS.c.name == tournament)
        )
    with engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(query)]


def snapshots(engine: Engine, tournament: str | None) -> pd.DataFrame:
    """Rating snapshots (newest first): id, created_at, method, matches rated, run id."""
    query = (
        select(SNAPSHOTS.c.id, SNAPSHOTS.c.created_at, SNAPSHOTS.c.method, SNAPSHOTS.c.payload_json)
        .outerjoin(TOURNAMENTS, TOURNAMENTS.c.id == SNAPSHOTS.c.tournament_id)
        .order_by(SNAPSHOTS.c.id.desc())
    )
    if tournament:
        query = query.where(TOURNAMENTS.c.name == tournament)
    frame = read_frame(engine, query)
    payloads = [json.loads(p) for p in frame.pop("payload_json")] if len(frame) else []
    frame["matches"] = [p.get("matches") for p in payloads]
    frame["run_id"] = [p.get("run_id") for p in payloads]
    return frame


def snapshot_payload(engine: Engine, snapshot_id: int) -> dict[str, Any] | None:
    with engine.connect() as conn:
        text = conn.execute(
            select(SNAPSHOTS.c.payload_json).where(SNAPSHOTS.c.id == snapshot_id)
        ).scalar()
    return None if text is None else dict(json.loads(str(text)))


def run_config_sha(engine: Engine, run_id: int | None) -> str:
    if run_id is None:
        return ""
    with engine.connect() as conn:
        found = conn.execute(select(RUNS.c.config_sha256).where(RUNS.c.id == run_id)).scalar()
    return "" if found is None else str(found)


def date_range(engine: Engine, tournament: str | None) -> tuple[datetime | None, datetime | None]:
    query = select(func.min(MATCHES.c.finished_at), func.max(MATCHES.c.finished_at))
    if tournament:
        query = query.join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id).where(
            TOURNAMENTS.c.name == tournament
        )
    with engine.connect() as conn:
        low, high = conn.execute(query).one()
    return low, high


# ------------------------------------------------------------------------------ matches


def games(engine: Engine, tournament: str | None) -> pd.DataFrame:
    """Stored games (every version): name, version, dialect, code_sha256, filename, source,
    matches played (in the tournament, when one is given)."""
    counts = select(MATCHES.c.game_id, func.count().label("matches")).group_by(MATCHES.c.game_id)
    if tournament:
        counts = counts.join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id).where(
            TOURNAMENTS.c.name == tournament
        )
    sub = counts.subquery()
    query = (
        select(
            GAMES.c.name, GAMES.c.version, GAMES.c.dialect, GAMES.c.code_sha256,
            GAMES.c.filename, GAMES.c.source, func.coalesce(sub.c.matches, 0).label("matches"),
        )
        .outerjoin(sub, sub.c.game_id == GAMES.c.id)
        .order_by(GAMES.c.name, GAMES.c.version)
    )
    frame = read_frame(engine, query)
    return frame[frame["matches"] > 0] if tournament and len(frame) else frame


def role_scores(engine: Engine, filters: Filters) -> pd.DataFrame:
    """Per game, role and participant: match count and mean best score (rated seats and NPCs)."""
    query = joined_matches(
        select(
            GAMES.c.name.label("game"), SEATS.c.role, PARTICIPANTS.c.name.label("participant"),
            SEATS.c.main, SEATS.c.best,
        )
        .select_from(MATCHES)
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
    ).where(and_(MATCHES.c.status == "done", SEATS.c.best.is_not(None),
                 *match_conditions(filters)))
    return read_frame(engine, query)


# ------------------------------------------------------------------------------ runs, schedules
