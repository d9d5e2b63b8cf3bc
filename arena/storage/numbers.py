"""Runs and rating snapshots counted within their tournament ("run 1 of live" for its first
run, whatever other tournaments stored before it): display ordinals computed from the ids,
which count across every tournament of the database. Nothing stores them: the n-th run of
a tournament is the one with n runs of that tournament at or below its id.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import aliased
from sqlmodel import col

from arena.storage.tables import RatingSnapshot, Run, Tournament


def run_number_of(run_id: Any, tournament_id: Any) -> Any:
    """A SQL expression: the number within its tournament of the run `run_id` of the
    tournament `tournament_id` (columns of the enclosing query)."""
    other = aliased(Run)
    return (
        select(func.count())
        .where(col(other.tournament_id) == tournament_id, col(other.id) <= run_id)
        .scalar_subquery()
    )


def snapshot_number_of(snapshot_id: Any, tournament_id: Any) -> Any:
    """A SQL expression: the number within its tournament of the snapshot `snapshot_id`."""
    other = aliased(RatingSnapshot)
    return (
        select(func.count())
        .where(col(other.tournament_id) == tournament_id, col(other.id) <= snapshot_id)
        .scalar_subquery()
    )


def run_number(engine: Engine, run_id: int) -> tuple[str, int] | None:
    """The tournament of run `run_id` and the run's number within it (None: no such run)."""
    query = (
        select(col(Tournament.name), run_number_of(col(Run.id), col(Run.tournament_id)))
        .select_from(Run)
        .join(Tournament, col(Tournament.id) == col(Run.tournament_id))
        .where(col(Run.id) == run_id)
    )
    with engine.connect() as conn:
        row = conn.execute(query).first()
    return None if row is None else (str(row[0]), int(row[1]))


def snapshot_number(engine: Engine, snapshot_id: int) -> int | None:
    """The number of snapshot `snapshot_id` within its tournament (None: no such one)."""
    query = select(
        snapshot_number_of(col(RatingSnapshot.id), col(RatingSnapshot.tournament_id))
    ).where(col(RatingSnapshot.id) == snapshot_id)
    with engine.connect() as conn:
        found = conn.execute(query).scalar()
    return None if found is None else int(found)
