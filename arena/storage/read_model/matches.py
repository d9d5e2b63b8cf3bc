"""Matches and their seats: the Matches table, scored seats for the Xent measure and
Playability, participant summaries and head-to-head counts (the dashboard turns scored seats
into rating records with `arena.tournaments.records.from_store`'s rules:
`arena.dashboard.data.records`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from sqlalchemy import Engine, and_, case, func, select, true
from sqlalchemy.orm import aliased
from sqlmodel import col

from arena.scoring import TIE_TOLERANCE_BITS
from arena.storage.match_keys import short_key
from arena.storage.read_model.filters import Filters
from arena.storage.read_model.frames import (
    MATCH_TABLE_LIMIT,
    AnySelect,
    joined_matches,
    match_conditions,
    read_driver_frame,
    read_frame,
)
from arena.storage.tables import Game, JudgeRecord, Match, Participant, Seat, Tournament


def matches(
    engine: Engine,
    filters: Filters,
    *,
    participant: str | None = None,
    role: str | None = None,
    status: str | None = None,
    map_index: int | None = None,
    score_range: tuple[float, float] | None = None,
    limit: int = MATCH_TABLE_LIMIT,
) -> pd.DataFrame:
    """Matches (newest first, at most `limit`), one row each: its id (``match``), short
    key (``key``, as `arena matches` shows it), and a ``seats`` summary
    ("role: participant best" per seat). Participant, role and score range select matches
    having a seat that fits them all."""
    conditions = match_conditions(filters)
    if status:
        conditions.append(col(Match.status) == status)
    if map_index is not None:
        conditions.append(col(Match.map_index) == map_index)
    if participant or role or score_range:
        seat = select(col(Seat.match_id)).join(
            Participant, col(Participant.id) == col(Seat.participant_id)
        )
        if participant:
            seat = seat.where(col(Participant.name) == participant)
        if role:
            seat = seat.where(col(Seat.role) == role)
        if score_range:
            seat = seat.where(col(Seat.best).between(*score_range))
        conditions.append(col(Match.id).in_(seat))
    query = joined_matches(
        select(
            col(Match.id).label("match"), col(Match.key), col(Tournament.name).label("tournament"),
            col(Game.name).label("game"), col(Match.map_index).label("map"), col(Match.mode),
            col(Match.status), col(Match.rounds), col(Match.finished_at), col(Match.duration_s),
            col(JudgeRecord.spec).label("judge"), col(Match.error),
        )
    ).where(and_(*conditions)).order_by(col(Match.id).desc()).limit(limit)
    frame = read_frame(engine, query)
    frame["key"] = [short_key(k) for k in frame["key"]]  # the key `arena matches` shows
    seats = seat_rows(engine, [int(i) for i in frame["match"]]) if len(frame) else pd.DataFrame()
    summary: dict[int, str] = {}
    if len(seats):
        for match_id, group in seats.groupby("match", sort=False):
            summary[int(str(match_id))] = "; ".join(
                f"{r.role}: {r.participant}{'' if r.main else ' (npc)'} "
                f"{'forfeit' if r.best is None or r.forfeit else f'{r.best:.2f}'}"
                for r in group.itertuples()
            )
    frame.insert(5, "seats", [summary.get(int(m), "") for m in frame["match"]])
    return frame


def match_count(engine: Engine, filters: Filters) -> int:
    query = joined_matches(select(func.count()).select_from(Match)).where(
        and_(*match_conditions(filters))
    )
    with engine.connect() as conn:
        return int(conn.execute(query).scalar() or 0)


def seat_rows(engine: Engine, match_ids: Sequence[int]) -> pd.DataFrame:
    """Seats of the given matches: match, role, participant, spec, main, best, forfeit."""
    frames = []
    chunk = 500  # under every backend's limit on bound parameters
    for start in range(0, len(match_ids), chunk):
        ids = list(match_ids[start : start + chunk])
        query: AnySelect = (
            select(
                col(Seat.match_id).label("match"), col(Seat.role), col(Participant.name).label(
                    "participant"), col(Participant.spec), col(Seat.main), col(Seat.best),
                col(Seat.forfeit), col(Seat.round_scores_json),
            )
            .join(Participant, col(Participant.id) == col(Seat.participant_id))
            .where(col(Seat.match_id).in_(ids))
            .order_by(col(Seat.match_id), col(Seat.id))
        )
        frames.append(read_frame(engine, query))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def scored_seats(engine: Engine, filters: Filters, rated_only: bool = False) -> pd.DataFrame:
    """One row per seat of every done match that `filters` select: match, key, game,
    game_version, map_id, mode, rounds, role, participant, main, best, forfeit,
    round_scores_json (what `arena.tournaments.records.from_store` makes records of).
    `rated_only` leaves NPC seats out (normalisation never reads them)."""
    query = joined_matches(
        select(
            col(Match.id).label("match"), col(Match.key), col(Game.name).label("game"),
            col(Game.version).label("game_version"), col(Match.map_id), col(Match.mode),
            col(Match.rounds), col(Seat.role), col(Participant.name).label("participant"),
            col(Seat.main), col(Seat.best), col(Seat.forfeit), col(Seat.round_scores_json),
        )
        .select_from(Match)
        .join(Seat, col(Seat.match_id) == col(Match.id))
        .join(Participant, col(Participant.id) == col(Seat.participant_id))
    ).where(and_(col(Match.status) == "done", *match_conditions(filters)))
    if rated_only:
        query = query.where(col(Seat.main) == true())
    return read_driver_frame(engine, query.order_by(col(Match.id), col(Seat.id)))


# ------------------------------------------------------------------------------ participants


def participant_summary(engine: Engine, filters: Filters) -> pd.DataFrame:
    """Per rated participant and role: matches, mean and best match score, forfeits."""
    query = joined_matches(
        select(
            col(Participant.name).label("participant"), col(Seat.role),
            func.count().label("matches"), func.avg(col(Seat.best)).label("mean_score"),
            func.max(col(Seat.best)).label("best_score"),
            func.sum(case((col(Seat.forfeit), 1), else_=0)).label("forfeits"),
        )
        .select_from(Match)
        .join(Seat, col(Seat.match_id) == col(Match.id))
        .join(Participant, col(Participant.id) == col(Seat.participant_id))
    ).where(and_(col(Match.status) == "done", col(Seat.main), *match_conditions(filters)))
    return read_frame(engine, query.group_by(col(Participant.name), col(Seat.role)))


def head_to_head(engine: Engine, filters: Filters) -> pd.DataFrame:
    """Win/draw/loss of participant `a` against `b` over the true pairwise comparisons: both
    rated seats of the same match (ties within 1e-6 bits are draws; a forfeit loses)."""
    a, b = aliased(Seat, name="a"), aliased(Seat, name="b")
    pa, pb = aliased(Participant, name="pa"), aliased(Participant, name="pb")
    score_a = case((col(a.forfeit), None), else_=col(a.best))
    score_b = case((col(b.forfeit), None), else_=col(b.best))
    win = case(
        (and_(score_a.is_not(None), score_b.is_(None)), 1),
        (score_a - score_b > TIE_TOLERANCE_BITS, 1),
        else_=0,
    )
    loss = case(
        (and_(score_a.is_(None), score_b.is_not(None)), 1),
        (score_b - score_a > TIE_TOLERANCE_BITS, 1),
        else_=0,
    )
    query = joined_matches(
        select(
            col(pa.name).label("a"), col(pb.name).label("b"), func.count().label("comparisons"),
            func.sum(win).label("wins"), func.sum(loss).label("losses"),
        )
        .select_from(Match)
        .join(a, col(a.match_id) == col(Match.id))
        .join(b, and_(col(b.match_id) == col(Match.id), col(b.id) != col(a.id)))
        .join(pa, col(pa.id) == col(a.participant_id))
        .join(pb, col(pb.id) == col(b.participant_id))
    ).where(
        and_(col(Match.status) == "done", col(a.main), col(b.main), col(pa.name) != col(pb.name),
             *match_conditions(filters))
    )
    frame = read_frame(engine, query.group_by(col(pa.name), col(pb.name)))
    if len(frame):
        frame["draws"] = frame["comparisons"] - frame["wins"] - frame["losses"]
        frame["win_rate"] = (frame["wins"] + 0.5 * frame["draws"]) / frame["comparisons"]
    return frame
