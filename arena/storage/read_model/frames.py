"""Shared pieces of the dashboard's read queries: result rows to DataFrames (fast paths),
the match filters as SQL conditions, and the data watermark the caches key on.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

import pandas as pd
from sqlalchemy import Engine, func, select
from sqlalchemy.sql import ColumnElement
from sqlmodel import col

from arena.storage.queries import AnySelect as AnySelect  # read-model queries use it
from arena.storage.read_model.filters import Filters
from arena.storage.tables import (
    Game,
    JudgeRecord,
    Match,
    RatingSnapshot,
    Run,
    ScheduleRun,
    Tournament,
)

MATCH_TABLE_LIMIT = 2000  # rows the Matches page lists at most (newest first)


def read_frame(engine: Engine, query: AnySelect) -> pd.DataFrame:
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


def read_driver_frame(engine: Engine, query: AnySelect) -> pd.DataFrame:
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
    """WHERE clauses on Match (joined with Tournament, Game, JudgeRecord) for `filters`."""
    out: list[ColumnElement[bool]] = []
    if filters.tournament:
        out.append(col(Tournament.name) == filters.tournament)
    if filters.games:
        out.append(col(Game.name).in_(filters.games))
    if filters.judge:
        out.append(col(JudgeRecord.spec) == filters.judge)
    if filters.since:
        out.append(col(Match.finished_at) >= datetime.combine(filters.since, time.min, tzinfo=UTC))
    if filters.until:
        end = datetime.combine(filters.until, time.min, tzinfo=UTC) + timedelta(days=1)
        out.append(col(Match.finished_at) < end)
    return out


def joined_matches(query: AnySelect) -> AnySelect:
    return (
        query.join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .join(Game, col(Game.id) == col(Match.game_id))
        .join(JudgeRecord, col(JudgeRecord.id) == col(Match.judge_id))
    )


# ------------------------------------------------------------------------------ watermark


def watermark(engine: Engine) -> tuple[int, int, int, int]:
    """A cheap fingerprint of what is stored (last match, snapshot, run and schedule-run id):
    cached queries are keyed by it, so new data shows at once and old data is reused."""
    with engine.connect() as conn:
        row = conn.execute(
            select(
                select(func.max(col(Match.id))).scalar_subquery(),
                select(func.max(col(RatingSnapshot.id))).scalar_subquery(),
                select(func.max(col(Run.id))).scalar_subquery(),
                select(func.max(col(ScheduleRun.id))).scalar_subquery(),
            )
        ).one()
    return tuple(int(v or 0) for v in row)  # type: ignore[return-value]


# ------------------------------------------------------------------------------ choices
