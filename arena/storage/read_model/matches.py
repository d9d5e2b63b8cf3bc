"""Matches and their seats: the Matches table, scored seats for the Xent measure and
Playability, participant summaries and head-to-head counts (the dashboard turns scored seats
into rating records itself: `arena.dashboard.data.records`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from sqlalchemy import Engine, String, and_, case, cast, func, select, true

from arena.scoring import TIE_TOLERANCE_BITS
from arena.storage.match_keys import short_key
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
    MATCH_TABLE_LIMIT,
    joined_matches,
    match_conditions,
    read_driver_frame,
    read_frame,
)


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
        conditions.append(MATCHES.c.status == status)
    if map_index is not None:
        conditions.append(MATCHES.c.map_index == map_index)
    if participant or role or score_range:
        seat = select(SEATS.c.match_id).join(
            PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id
        )
        if participant:
            seat = seat.where(PARTICIPANTS.c.name == participant)
        if role:
            seat = seat.where(SEATS.c.role == role)
        if score_range:
            seat = seat.where(SEATS.c.best.between(*score_range))
        conditions.append(MATCHES.c.id.in_(seat))
    query = joined_matches(
        select(
            MATCHES.c.id.label("match"), MATCHES.c.key, TOURNAMENTS.c.name.label("tournament"),
            GAMES.c.name.label("game"), MATCHES.c.map_index.label("map"), MATCHES.c.mode,
            MATCHES.c.status, MATCHES.c.rounds, MATCHES.c.finished_at, MATCHES.c.duration_s,
            JUDGES.c.spec.label("judge"), MATCHES.c.error,
        )
    ).where(and_(*conditions)).order_by(MATCHES.c.id.desc()).limit(limit)
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
    query = joined_matches(select(func.count()).select_from(MATCHES)).where(
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
        query = (
            select(
                SEATS.c.match_id.label("match"), SEATS.c.role, PARTICIPANTS.c.name.label(
                    "participant"), PARTICIPANTS.c.spec, SEATS.c.main, SEATS.c.best,
                SEATS.c.forfeit, SEATS.c.round_scores_json,
            )
            .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
            .where(SEATS.c.match_id.in_(ids))
            .order_by(SEATS.c.match_id, SEATS.c.id)
        )
        frames.append(read_frame(engine, query))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def scored_seats(
    engine: Engine, filters: Filters, rated_only: bool = False,
    match_ids: Sequence[int] | None = None,
) -> pd.DataFrame:
    """One row per seat of every done match that `filters` select: match, game, map_id,
    mode, rounds, role, participant, main, best, forfeit, round_scores_json. `rated_only`
    leaves NPC seats out (normalisation never reads them); `match_ids` keeps those matches
    only (the live leaderboard reads the matches it has not seen)."""
    query = joined_matches(
        select(
            MATCHES.c.id.label("match"), GAMES.c.name.label("game"), MATCHES.c.map_id,
            MATCHES.c.mode, MATCHES.c.rounds, SEATS.c.role,
            PARTICIPANTS.c.name.label("participant"), SEATS.c.main, SEATS.c.best,
            SEATS.c.forfeit, SEATS.c.round_scores_json,
        )
        .select_from(MATCHES)
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
    ).where(and_(MATCHES.c.status == "done", *match_conditions(filters)))
    if rated_only:
        query = query.where(SEATS.c.main == true())
    if match_ids is not None:
        query = query.where(MATCHES.c.id.in_(list(match_ids)))
    return read_driver_frame(engine, query.order_by(MATCHES.c.id, SEATS.c.id))


# ------------------------------------------------------------------------------ participants


def participant_summary(engine: Engine, filters: Filters) -> pd.DataFrame:
    """Per rated participant and role: matches, mean and best match score, forfeits."""
    query = joined_matches(
        select(
            PARTICIPANTS.c.name.label("participant"), SEATS.c.role,
            func.count().label("matches"), func.avg(SEATS.c.best).label("mean_score"),
            func.max(SEATS.c.best).label("best_score"),
            func.sum(case((SEATS.c.forfeit, 1), else_=0)).label("forfeits"),
        )
        .select_from(MATCHES)
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
    ).where(and_(MATCHES.c.status == "done", SEATS.c.main, *match_conditions(filters)))
    return read_frame(engine, query.group_by(PARTICIPANTS.c.name, SEATS.c.role))


def head_to_head(engine: Engine, filters: Filters) -> pd.DataFrame:
    """Win/draw/loss of participant `a` against `b` over the true pairwise comparisons: both
    rated seats of the same match (ties within 1e-6 bits are draws; a forfeit loses)."""
    a, b = SEATS.alias("a"), SEATS.alias("b")
    pa, pb = PARTICIPANTS.alias("pa"), PARTICIPANTS.alias("pb")
    score_a = case((a.c.forfeit, None), else_=a.c.best)
    score_b = case((b.c.forfeit, None), else_=b.c.best)
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
            pa.c.name.label("a"), pb.c.name.label("b"), func.count().label("comparisons"),
            func.sum(win).label("wins"), func.sum(loss).label("losses"),
        )
        .select_from(MATCHES)
        .join(a, a.c.match_id == MATCHES.c.id)
        .join(b, and_(b.c.match_id == MATCHES.c.id, b.c.id != a.c.id))
        .join(pa, pa.c.id == a.c.participant_id)
        .join(pb, pb.c.id == b.c.participant_id)
    ).where(
        and_(MATCHES.c.status == "done", a.c.main, b.c.main, pa.c.name != pb.c.name,
             *match_conditions(filters))
    )
    frame = read_frame(engine, query.group_by(pa.c.name, pb.c.name))
    if len(frame):
        frame["draws"] = frame["comparisons"] - frame["wins"] - frame["losses"]
        frame["win_rate"] = (frame["wins"] + 0.5 * frame["draws"]) / frame["comparisons"]
    return frame


# ------------------------------------------------------------------------------ snapshots


def done_match_ids(engine: Engine, tournament: str) -> list[tuple[int, str]]:
    """(id, finish time) of the done matches of `tournament`, by id: the finish time tells
    a match from another stored under the same id in a database made anew at the same path."""
    # The finish time as the database's text: no datetime object per match (100 000 of
    # them took most of this function's time).
    query = joined_matches(
        select(MATCHES.c.id, cast(MATCHES.c.finished_at, String)).select_from(MATCHES)
    ).where(and_(MATCHES.c.status == "done", *match_conditions(Filters(tournament=tournament))))
    with engine.connect() as conn:
        return sorted((int(i), str(when)) for i, when in conn.execute(query))
