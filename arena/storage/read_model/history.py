"""Ratings over time: snapshot history and when each participant (spec) was first seen.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd
from sqlalchemy import Engine, func, select

from arena.storage.queries import (  # the table handles have one home
    JUDGES,
    MATCHES,
    PARTICIPANTS,
    SEATS,
    TOURNAMENTS,
)
from arena.storage.read_model.frames import (
    SNAPSHOTS,
    read_frame,
)


@dataclass(frozen=True)
class SnapshotView:
    id: int
    created_at: datetime
    payload: dict[str, Any]


def snapshot_history(engine: Engine, tournament: str | None) -> pd.DataFrame:
    """Every snapshot's rows, oldest first: snapshot, created_at, participant, rating,
    ci_low, ci_high, rank_low, rank_high, n_comparisons, provisional."""
    query = (
        select(SNAPSHOTS.c.id, SNAPSHOTS.c.created_at, SNAPSHOTS.c.payload_json)
        .outerjoin(TOURNAMENTS, TOURNAMENTS.c.id == SNAPSHOTS.c.tournament_id)
        .order_by(SNAPSHOTS.c.id)
    )
    if tournament:
        query = query.where(TOURNAMENTS.c.name == tournament)
    rows: list[dict[str, Any]] = []
    with engine.connect() as conn:
        for ident, created, text in conn.execute(query):
            payload = json.loads(text)
            for row in payload.get("rows", []):
                rows.append({"snapshot": int(ident), "created_at": created, **row})
    return pd.DataFrame(rows)


def first_seen(engine: Engine, tournament: str | None) -> pd.DataFrame:
    """When each participant spec and each judge first played in the tournament: rows
    (kind, name, detail, first_match_at), for marks on the ratings-over-time chart."""
    conditions = [TOURNAMENTS.c.name == tournament] if tournament else []
    specs = (
        select(
            PARTICIPANTS.c.name, PARTICIPANTS.c.spec.label("detail"),
            func.min(MATCHES.c.finished_at).label("first_match_at"),
        )
        .select_from(MATCHES)
        .join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id)
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
        .where(*conditions)
        .group_by(PARTICIPANTS.c.name, PARTICIPANTS.c.spec)
    )
    judges = (
        select(
            JUDGES.c.spec.label("name"), JUDGES.c.model.label("detail"),
            func.min(MATCHES.c.finished_at).label("first_match_at"),
        )
        .select_from(MATCHES)
        .join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id)
        .join(JUDGES, JUDGES.c.id == MATCHES.c.judge_id)
        .where(*conditions)
        .group_by(JUDGES.c.spec, JUDGES.c.model)
    )
    a, b = read_frame(engine, specs), read_frame(engine, judges)
    a.insert(0, "kind", "spec")
    b.insert(0, "kind", "judge")
    return pd.concat([a, b], ignore_index=True)


# ------------------------------------------------------------------------------ replay
