"""Ratings over time: snapshot history and when each participant (spec) was first seen.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd
from sqlalchemy import Engine, func, select
from sqlmodel import col

from arena.storage.numbers import snapshot_number_of
from arena.storage.read_model.frames import AnySelect, read_frame
from arena.storage.rows import row_id
from arena.storage.tables import JudgeRecord, Match, Participant, RatingSnapshot, Seat, Tournament


@dataclass(frozen=True)
class SnapshotView:
    id: int
    created_at: datetime
    payload: dict[str, Any]


def snapshot_history(engine: Engine, tournament: str | None) -> pd.DataFrame:
    """Every snapshot's rows, oldest first: snapshot (its id), number (within its
    tournament), created_at, participant, rating, ci_low, ci_high, rank_low, rank_high,
    n_comparisons, provisional."""
    query = (
        select(
            col(RatingSnapshot.id),
            snapshot_number_of(col(RatingSnapshot.id), col(RatingSnapshot.tournament_id)),
            col(RatingSnapshot.created_at), col(RatingSnapshot.payload_json),
        )
        .outerjoin(Tournament, col(Tournament.id) == col(RatingSnapshot.tournament_id))
        .order_by(col(RatingSnapshot.id))
    )
    if tournament:
        query = query.where(col(Tournament.name) == tournament)
    rows: list[dict[str, Any]] = []
    with engine.connect() as conn:
        for ident, number, created, text in conn.execute(query):
            payload = json.loads(text)
            for row in payload.get("rows", []):
                rows.append({"snapshot": row_id(ident), "number": int(number),
                             "created_at": created, **row})
    return pd.DataFrame(rows)


def first_seen(engine: Engine, tournament: str | None) -> pd.DataFrame:
    """When each participant spec and each judge first played in the tournament: rows
    (kind, name, detail, first_match_at), for marks on the ratings-over-time chart."""
    conditions = [col(Tournament.name) == tournament] if tournament else []
    specs: AnySelect = (
        select(
            col(Participant.name), col(Participant.spec).label("detail"),
            func.min(col(Match.finished_at)).label("first_match_at"),
        )
        .select_from(Match)
        .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .join(Seat, col(Seat.match_id) == col(Match.id))
        .join(Participant, col(Participant.id) == col(Seat.participant_id))
        .where(*conditions)
        .group_by(col(Participant.name), col(Participant.spec))
    )
    judges: AnySelect = (
        select(
            col(JudgeRecord.spec).label("name"), col(JudgeRecord.model).label("detail"),
            func.min(col(Match.finished_at)).label("first_match_at"),
        )
        .select_from(Match)
        .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
        .join(JudgeRecord, col(JudgeRecord.id) == col(Match.judge_id))
        .where(*conditions)
        .group_by(col(JudgeRecord.spec), col(JudgeRecord.model))
    )
    a, b = read_frame(engine, specs), read_frame(engine, judges)
    a.insert(0, "kind", "spec")
    b.insert(0, "kind", "judge")
    return pd.concat([a, b], ignore_index=True)


# ------------------------------------------------------------------------------ replay
