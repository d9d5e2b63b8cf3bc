"""Shared pieces of the dashboard's read queries: result rows to DataFrames (fast paths),
the match filters as SQL conditions, and the data watermark the caches key on.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

import pandas as pd
from sqlalchemy import Engine, Select, func, select
from sqlalchemy.sql import ColumnElement

from arena.storage import tables as t
from arena.storage.queries import (  # the table handles have one home
    GAMES,
    JUDGES,
    MATCHES,
    TOURNAMENTS,
)
from arena.storage.read_model.filters import Filters

RUNS = t.table_of(t.Run)
SNAPSHOTS = t.table_of(t.RatingSnapshot)
SCHEDULES = t.table_of(t.Schedule)
SCHEDULE_RUNS = t.table_of(t.ScheduleRun)

MATCH_TABLE_LIMIT = 2000  # rows the Matches page lists at most (newest first)


def read_frame(engine: Engine, query: Select[Any]) -> pd.DataFrame:
    with engine.connect() as conn:
        result = conn.execute(query)
        # plain tuples: pandas builds a frame from SQLAlchemy Row objects ~10x slower
        rows = result.fetchall()
        names = list(result.keys())
        if not rows:
            return pd.DataFrame(columns=names)
        # column lists: pandas builds a frame from SQLAlchemy Row objects ~10x slower, and
        # from row tuples ~2x slower
        return pd.DataFrame(dict(zip(names, map(list, zip(*rows, strict=True)), strict=True)))


def read_driver_frame(engine: Engine, query: Select[Any]) -> pd.DataFrame:
    """`read_frame` through the database driver directly, without SQLAlchemy's per-value result
    processing (a third of the time over 100 000 matches): booleans come back as the driver
    stores them (0/1 in SQLite) and times as text, so only for queries that read neither
    as such."""
    compiled = query.compile(dialect=engine.dialect, compile_kwargs={"render_postcompile": True})
    params: Any = (tuple(compiled.params[k] for k in compiled.positiontup or ())
                   if compiled.positional else compiled.params)
    with engine.connect() as conn:
        result = conn.exec_driver_sql(str(compiled), params)
        rows = result.fetchall()
        names = list(result.keys())
    if not rows:
        return pd.DataFrame(columns=names)
    return pd.DataFrame(dict(zip(names, map(list, zip(*rows, strict=True)), strict=True)))


def match_conditions(filters: Filters) -> list[ColumnElement[bool]]:
    """WHERE clauses on MATCHES (joined with TOURNAMENTS, GAMES, JUDGES) for `filters`."""
    out: list[ColumnElement[bool]] = []
    if filters.tournament:
        out.append(TOURNAMENTS.c.name == filters.tournament)
    if filters.games:
        out.append(GAMES.c.name.in_(filters.games))
    if filters.judge:
        out.append(JUDGES.c.spec == filters.judge)
    if filters.since:
        out.append(MATCHES.c.finished_at >= datetime.combine(filters.since, time.min, tzinfo=UTC))
    if filters.until:
        end = datetime.combine(filters.until, time.min, tzinfo=UTC) + timedelta(days=1)
        out.append(MATCHES.c.finished_at < end)
    return out


def joined_matches(query: Select[Any]) -> Select[Any]:
    return (
        query.join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id)
        .join(GAMES, GAMES.c.id == MATCHES.c.game_id)
        .join(JUDGES, JUDGES.c.id == MATCHES.c.judge_id)
    )


# ------------------------------------------------------------------------------ watermark


def watermark(engine: Engine) -> tuple[int, int, int, int]:
    """A cheap fingerprint of what is stored (last match, snapshot, run and schedule-run id):
    cached queries are keyed by it, so new data shows at once and old data is reused."""
    with engine.connect() as conn:
        row = conn.execute(
            select(
                select(func.max(MATCHES.c.id)).scalar_subquery(),
                select(func.max(SNAPSHOTS.c.id)).scalar_subquery(),
                select(func.max(RUNS.c.id)).scalar_subquery(),
                select(func.max(SCHEDULE_RUNS.c.id)).scalar_subquery(),
            )
        ).one()
    return tuple(int(v or 0) for v in row)  # type: ignore[return-value]


# ------------------------------------------------------------------------------ choices
