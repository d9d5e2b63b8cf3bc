"""Rating snapshots: a small table with JSON payloads.

Ratings are recomputed from stored matches (pure functions); a snapshot keeps one result
so the dashboard can show history without refitting. Schedules are `arena.storage.schedules`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, insert, select
from sqlmodel import col

from arena.storage import tables as t
from arena.storage.engine import write_engine
from arena.storage.tables import RatingSnapshot, Tournament


@dataclass(frozen=True)
class RatingSnapshotRecord:
    id: int
    tournament: str | None
    method: str
    payload: Mapping[str, Any]
    created_at: datetime


def save_rating_snapshot(
    engine: Engine, tournament_id: int | None, method: str, payload: Mapping[str, Any]
) -> int:
    """Store one rating result (`payload` must be JSON-serialisable); returns its id."""
    with write_engine(engine).begin() as conn:
        result = conn.execute(
            insert(RatingSnapshot),
            {
                "tournament_id": tournament_id,
                "method": method,
                "payload_json": json.dumps(payload, sort_keys=True),
                "created_at": t.utcnow(),
            },
        )
        key = result.inserted_primary_key
        return 0 if key is None else int(key[0])


def rating_snapshots(
    engine: Engine, tournament: str | None = None, method: str | None = None, limit: int = 20
) -> list[RatingSnapshotRecord]:
    """The latest snapshots first, optionally of one tournament and method."""
    query = (
        select(RatingSnapshot, col(Tournament.name))
        .outerjoin(Tournament, col(Tournament.id) == col(RatingSnapshot.tournament_id))
        .order_by(col(RatingSnapshot.id).desc())
        .limit(limit)
    )
    if tournament is not None:
        query = query.where(col(Tournament.name) == tournament)
    if method is not None:
        query = query.where(col(RatingSnapshot.method) == method)
    with engine.connect() as conn:
        return [
            RatingSnapshotRecord(
                r["id"], r["name"], r["method"], json.loads(r["payload_json"]), r["created_at"]
            )
            for r in conn.execute(query).mappings()
        ]
