"""Pure read queries of the dashboard: ``(engine, filters, ...) -> DataFrame`` (or plain
records). Aggregation happens in SQL, so pages stay fast over 100 000 matches; nothing here
imports Streamlit (the cached layer is `dashboard.cache`), the runtime, or writes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any

import pandas as pd
from sqlalchemy import Engine, Select, and_, case, func, select, true
from sqlalchemy.sql import ColumnElement

from arena.events import Event, event_from_json
from arena.storage import tables as t
from arena.storage.queries import (  # the table handles have one home
    EVENTS,
    GAMES,
    JUDGES,
    MAPS,
    MATCHES,
    PARTICIPANTS,
    SEATS,
    TOURNAMENTS,
)
from dashboard.filters import Filters
from tournaments.ratings.records import MatchRecord, SeatRecord

RUNS = t.table_of(t.Run)
SNAPSHOTS = t.table_of(t.RatingSnapshot)
SCHEDULES = t.table_of(t.Schedule)
SCHEDULE_RUNS = t.table_of(t.ScheduleRun)

MATCH_TABLE_LIMIT = 2000  # rows the Matches page lists at most (newest first)


def _frame(engine: Engine, query: Select[Any]) -> pd.DataFrame:
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


def _driver_frame(engine: Engine, query: Select[Any]) -> pd.DataFrame:
    """`_frame` through the database driver directly, without SQLAlchemy's per-value result
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


def _match_conditions(filters: Filters) -> list[ColumnElement[bool]]:
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


def _joined(query: Select[Any]) -> Select[Any]:
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
    return _frame(engine, query)


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
    frame = _frame(engine, query)
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
    """Matches (newest first, at most `limit`), one row each, with a ``seats`` summary
    ("role: participant best" per seat). Participant, role and score range select matches
    having a seat that fits them all."""
    conditions = _match_conditions(filters)
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
    query = _joined(
        select(
            MATCHES.c.id.label("match"), TOURNAMENTS.c.name.label("tournament"),
            GAMES.c.name.label("game"), MATCHES.c.map_index.label("map"), MATCHES.c.mode,
            MATCHES.c.status, MATCHES.c.rounds, MATCHES.c.finished_at, MATCHES.c.duration_s,
            JUDGES.c.spec.label("judge"), MATCHES.c.error,
        )
    ).where(and_(*conditions)).order_by(MATCHES.c.id.desc()).limit(limit)
    frame = _frame(engine, query)
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
    query = _joined(select(func.count()).select_from(MATCHES)).where(
        and_(*_match_conditions(filters))
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
        frames.append(_frame(engine, query))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def scored_seats(engine: Engine, filters: Filters, rated_only: bool = False) -> pd.DataFrame:
    """One row per seat of every done match that `filters` select: match, game, map_id,
    mode, rounds, role, participant, main, best, forfeit, round_scores_json. `rated_only`
    leaves NPC seats out (normalisation never reads them)."""
    query = _joined(
        select(
            MATCHES.c.id.label("match"), GAMES.c.name.label("game"), MATCHES.c.map_id,
            MATCHES.c.mode, MATCHES.c.rounds, SEATS.c.role,
            PARTICIPANTS.c.name.label("participant"), SEATS.c.main, SEATS.c.best,
            SEATS.c.forfeit, SEATS.c.round_scores_json,
        )
        .select_from(MATCHES)
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
    ).where(and_(MATCHES.c.status == "done", *_match_conditions(filters)))
    if rated_only:
        query = query.where(SEATS.c.main == true())
    return _driver_frame(engine, query.order_by(MATCHES.c.id, SEATS.c.id))


def match_records(seats: pd.DataFrame) -> list[MatchRecord]:
    """Rating records (`tournaments.ratings`) from `scored_seats` rows (ordered by match)."""
    if seats.empty:
        return []
    columns = [seats[c].tolist() for c in (
        "match", "game", "map_id", "mode", "rounds", "role", "participant", "main", "best",
        "forfeit", "round_scores_json")]
    records: list[MatchRecord] = []
    current: list[SeatRecord] = []
    head: tuple[Any, ...] = ()
    for match, game, map_id, mode, rounds, role, who, main, best, forfeit, scores in zip(
        *columns, strict=True
    ):
        if current and match != head[0]:
            records.append(_record(head, current))
            current = []
        head = (match, game, map_id, mode, rounds)
        missing = best is None or best != best  # NULL, or NaN once pandas holds it
        current.append(SeatRecord(
            role=role, participant=who, score=None if missing else float(best),
            forfeit=bool(forfeit) or missing, round_scores=tuple(json.loads(scores)),
            npc=not bool(main),
        ))
    records.append(_record(head, current))
    return records


def _record(head: tuple[Any, ...], seats: list[SeatRecord]) -> MatchRecord:
    match, game, map_id, mode, rounds = head
    return MatchRecord(
        match_id=str(match), game=game, map_id=str(map_id), seats=tuple(seats),
        mode="eval" if mode == "eval" else "head_to_head", rounds=int(rounds),
        order=float(match),
    )


# ------------------------------------------------------------------------------ participants


def participant_summary(engine: Engine, filters: Filters) -> pd.DataFrame:
    """Per rated participant and role: matches, mean and best match score, forfeits."""
    query = _joined(
        select(
            PARTICIPANTS.c.name.label("participant"), SEATS.c.role,
            func.count().label("matches"), func.avg(SEATS.c.best).label("mean_score"),
            func.max(SEATS.c.best).label("best_score"),
            func.sum(case((SEATS.c.forfeit, 1), else_=0)).label("forfeits"),
        )
        .select_from(MATCHES)
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
    ).where(and_(MATCHES.c.status == "done", SEATS.c.main, *_match_conditions(filters)))
    return _frame(engine, query.group_by(PARTICIPANTS.c.name, SEATS.c.role))


def head_to_head(engine: Engine, filters: Filters) -> pd.DataFrame:
    """Win/draw/loss of participant `a` against `b` over the true pairwise comparisons: both
    rated seats of the same match (ties within 1e-6 bits are draws; a forfeit loses)."""
    from tournaments.ratings import TIE_TOLERANCE_BITS

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
    query = _joined(
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
             *_match_conditions(filters))
    )
    frame = _frame(engine, query.group_by(pa.c.name, pb.c.name))
    if len(frame):
        frame["draws"] = frame["comparisons"] - frame["wins"] - frame["losses"]
        frame["win_rate"] = (frame["wins"] + 0.5 * frame["draws"]) / frame["comparisons"]
    return frame


# ------------------------------------------------------------------------------ snapshots


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
    a, b = _frame(engine, specs), _frame(engine, judges)
    a.insert(0, "kind", "spec")
    b.insert(0, "kind", "judge")
    return pd.concat([a, b], ignore_index=True)


# ------------------------------------------------------------------------------ replay


@dataclass(frozen=True)
class MatchDetail:
    """One stored match for the replay page."""

    id: int
    tournament: str
    game: str
    game_version: str
    dialect: str
    code: str
    map_id: int
    map_index: int
    map_seed: int
    map_texts: dict[str, str]
    play_seed: int
    mode: str
    main_role: str | None
    rounds: int
    status: str
    error: str | None
    judge: str
    judge_model: str
    finished_at: datetime
    seats: pd.DataFrame
    events: list[Event]


def match_detail(engine: Engine, match_id: int) -> MatchDetail | None:
    """Everything the replay shows of match `match_id`, or None when there is no such match."""
    query = (
        select(
            MATCHES, TOURNAMENTS.c.name.label("tournament"), GAMES.c.name.label("game"),
            GAMES.c.version.label("game_version"), GAMES.c.source,
            MAPS.c.seed.label("map_seed"), MAPS.c.stories_json,
            JUDGES.c.spec.label("judge"), JUDGES.c.model.label("judge_model"),
        )
        .join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id)
        .join(GAMES, GAMES.c.id == MATCHES.c.game_id)
        .join(MAPS, MAPS.c.id == MATCHES.c.map_id)
        .join(JUDGES, JUDGES.c.id == MATCHES.c.judge_id)
        .where(MATCHES.c.id == match_id)
    )
    with engine.connect() as conn:
        row = conn.execute(query).mappings().first()
        if row is None:
            return None
        payloads = conn.execute(
            select(EVENTS.c.payload).where(EVENTS.c.match_id == match_id).order_by(EVENTS.c.seq)
        ).scalars()
        events = [event_from_json(p) for p in payloads]
    return MatchDetail(
        id=int(row["id"]), tournament=row["tournament"], game=row["game"],
        game_version=row["game_version"], dialect=row["dialect"], code=row["source"],
        map_id=int(row["map_id"]), map_index=int(row["map_index"]),
        map_seed=int(row["map_seed"]), map_texts=dict(json.loads(row["stories_json"])),
        play_seed=int(row["play_seed"]), mode=row["mode"], main_role=row["main_role"],
        rounds=int(row["rounds"]), status=row["status"], error=row["error"],
        judge=row["judge"], judge_model=row["judge_model"], finished_at=row["finished_at"],
        seats=seat_rows(engine, [match_id]), events=events,
    )


def comparable_matches(engine: Engine, match_id: int) -> pd.DataFrame:
    """Other done matches of the same game, map, main role and rounds (the eval-mode
    comparisons of SCORING.md section 2): match, participant, best."""
    m = MATCHES.alias("m")
    same = and_(
        MATCHES.c.game_id == m.c.game_id, MATCHES.c.map_id == m.c.map_id,
        MATCHES.c.rounds == m.c.rounds, MATCHES.c.id != m.c.id,
        func.coalesce(MATCHES.c.main_role, "") == func.coalesce(m.c.main_role, ""),
    )
    query = (
        select(
            MATCHES.c.id.label("match"), PARTICIPANTS.c.name.label("participant"),
            SEATS.c.role, SEATS.c.best,
        )
        .select_from(m)
        .join(MATCHES, same)
        .join(SEATS, and_(SEATS.c.match_id == MATCHES.c.id, SEATS.c.main))
        .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
        .where(m.c.id == match_id, MATCHES.c.status == "done")
        .order_by(MATCHES.c.id)
    )
    return _frame(engine, query)


# ------------------------------------------------------------------------------ games


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
    frame = _frame(engine, query)
    return frame[frame["matches"] > 0] if tournament and len(frame) else frame


def role_scores(engine: Engine, filters: Filters) -> pd.DataFrame:
    """Per game, role and participant: match count and mean best score (rated seats and NPCs)."""
    query = _joined(
        select(
            GAMES.c.name.label("game"), SEATS.c.role, PARTICIPANTS.c.name.label("participant"),
            SEATS.c.main, SEATS.c.best,
        )
        .select_from(MATCHES)
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .join(PARTICIPANTS, PARTICIPANTS.c.id == SEATS.c.participant_id)
    ).where(and_(MATCHES.c.status == "done", SEATS.c.best.is_not(None),
                 *_match_conditions(filters)))
    return _frame(engine, query)


# ------------------------------------------------------------------------------ runs, schedules


def runs(engine: Engine, tournament: str | None = None, status: str | None = None) -> pd.DataFrame:
    """Runs (newest first) with their stored matches: run, tournament, status, planned,
    pending, done, errors, forfeits, started_at, finished_at, last_match_at, host, pid."""
    done = func.sum(case((MATCHES.c.status == "done", 1), else_=0))
    errors = func.sum(case((MATCHES.c.status == "error", 1), else_=0))
    per_run = (
        select(MATCHES.c.run_id, done.label("done"), errors.label("errors"),
               func.max(MATCHES.c.finished_at).label("last_match_at"))
        .group_by(MATCHES.c.run_id)
        .subquery()
    )
    forfeits = (
        select(MATCHES.c.run_id, func.count().label("forfeits"))
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .where(SEATS.c.forfeit)
        .group_by(MATCHES.c.run_id)
        .subquery()
    )
    query = (
        select(
            RUNS.c.id.label("run"), TOURNAMENTS.c.name.label("tournament"), RUNS.c.status,
            RUNS.c.planned, RUNS.c.pending, func.coalesce(per_run.c.done, 0).label("done"),
            func.coalesce(per_run.c.errors, 0).label("errors"),
            func.coalesce(forfeits.c.forfeits, 0).label("forfeits"),
            RUNS.c.started_at, RUNS.c.finished_at, per_run.c.last_match_at,
            RUNS.c.config_sha256, RUNS.c.host, RUNS.c.pid,
        )
        .join(TOURNAMENTS, TOURNAMENTS.c.id == RUNS.c.tournament_id)
        .outerjoin(per_run, per_run.c.run_id == RUNS.c.id)
        .outerjoin(forfeits, forfeits.c.run_id == RUNS.c.id)
        .order_by(RUNS.c.id.desc())
    )
    if tournament:
        query = query.where(TOURNAMENTS.c.name == tournament)
    if status:
        query = query.where(RUNS.c.status == status)
    return _frame(engine, query)


def recent_matches_per_minute(engine: Engine, run_id: int, window_s: float = 300.0) -> float:
    """Matches of run `run_id` finished per minute over the last `window_s` seconds of it."""
    with engine.connect() as conn:
        last = conn.execute(
            select(func.max(MATCHES.c.finished_at)).where(MATCHES.c.run_id == run_id)
        ).scalar()
        if last is None:
            return 0.0
        start = last - timedelta(seconds=window_s)
        row = conn.execute(
            select(func.count(), func.min(MATCHES.c.started_at)).where(
                MATCHES.c.run_id == run_id, MATCHES.c.finished_at >= start
            )
        ).one()
    n, first = int(row[0]), row[1]
    span = max((last - max(first, start)).total_seconds(), 1.0) if first else window_s
    return 60.0 * n / span


def schedules(engine: Engine) -> pd.DataFrame:
    query = select(
        SCHEDULES.c.name, SCHEDULES.c.cron, SCHEDULES.c.interval_s, SCHEDULES.c.enabled,
        SCHEDULES.c.tournament_file, SCHEDULES.c.last_run_at, SCHEDULES.c.next_run_at,
        SCHEDULES.c.lease_owner, SCHEDULES.c.lease_until,
    ).order_by(SCHEDULES.c.next_run_at, SCHEDULES.c.name)
    return _frame(engine, query)


def schedule_runs(engine: Engine, limit: int = 200) -> pd.DataFrame:
    query = (
        select(
            SCHEDULE_RUNS.c.id, SCHEDULE_RUNS.c.schedule, SCHEDULE_RUNS.c.trigger,
            SCHEDULE_RUNS.c.status, SCHEDULE_RUNS.c.written, SCHEDULE_RUNS.c.seed,
            SCHEDULE_RUNS.c.tournament_run_id, SCHEDULE_RUNS.c.snapshot_id,
            SCHEDULE_RUNS.c.started_at, SCHEDULE_RUNS.c.finished_at, SCHEDULE_RUNS.c.error,
        )
        .order_by(SCHEDULE_RUNS.c.id.desc())
        .limit(limit)
    )
    return _frame(engine, query)


# ------------------------------------------------------------------------------ live

LIVE_COLUMNS = ["run", "tournament", "status", "finished", "total", "done", "errors", "forfeits",
                "in_flight", "matches_per_min", "eta_s", "stale", "host", "pid", "started_at",
                "updated_at"]


def live_progress(engine: Engine, tournament: str | None = None) -> pd.DataFrame:
    """Run heartbeats (latest first) written by the executor (`arena.storage.live`): run,
    tournament, status, finished (of the schedule), total, errors, forfeits, in_flight,
    matches_per_min, eta_s, stale (says running, stopped reporting)."""
    from arena.storage.live import live_runs

    rows = [
        {"run": r.progress.run_id, "tournament": r.tournament, "status": r.progress.status,
         "finished": r.finished, "total": r.progress.total, "done": r.progress.done,
         "errors": r.progress.errors, "forfeits": r.progress.forfeits,
         "in_flight": r.progress.in_flight, "matches_per_min": r.progress.matches_per_min,
         "eta_s": r.progress.eta_s, "stale": r.stale, "host": r.progress.host,
         "pid": r.progress.pid, "started_at": r.progress.started_at,
         "updated_at": r.progress.updated_at}
        for r in live_runs(engine, tournament=tournament, limit=20)
    ]
    return pd.DataFrame(rows, columns=LIVE_COLUMNS)


def live_matches(engine: Engine) -> pd.DataFrame:
    """Matches being played now: run, key (the plan key its stored row will have), game,
    seats, round (k/R), elapsed_s."""
    from arena.storage.live import matches_in_flight

    now = datetime.now(UTC)
    rows = [
        {"run": m.run_id, "key": m.key, "game": m.game,
         "seats": "; ".join(f"{role}: {who}" for role, who in m.seats),
         "round": f"{m.round}/{m.rounds}",
         "elapsed_s": round((now - m.started_at).total_seconds(), 1)}
        for m in matches_in_flight(engine)
    ]
    return pd.DataFrame(rows, columns=["run", "key", "game", "seats", "round", "elapsed_s"])


def live_judges(engine: Engine, run_ids: Sequence[int]) -> pd.DataFrame:
    """The judge pool's latest health per run: queue depth, mean batch size, cache hit rate,
    tokens/s."""
    from arena.storage.live import judge_pool_health

    rows = []
    for run in run_ids:
        h = judge_pool_health(engine, int(run))
        if h is not None:
            rows.append({"run": run, "queue_depth": h.queue_depth,
                         "mean_batch_size": h.mean_batch_size,
                         "cache_hit_rate": h.cache_hit_rate, "tokens_per_s": h.tokens_per_s,
                         "requests": h.requests, "updated_at": h.updated_at})
    return pd.DataFrame(rows, columns=["run", "queue_depth", "mean_batch_size",
                                       "cache_hit_rate", "tokens_per_s", "requests",
                                       "updated_at"])


def next_recurring(engine: Engine) -> pd.DataFrame:
    """Recurring schedules, soonest next fire time first, with the process running one now."""
    from arena.storage.live import next_runs

    rows = [{"schedule": n.schedule, "next_run_at": n.next_run_at, "last_run_at": n.last_run_at,
             "enabled": n.enabled, "running_on": n.running_owner or ""}
            for n in next_runs(engine)]
    return pd.DataFrame(rows, columns=["schedule", "next_run_at", "last_run_at", "enabled",
                                       "running_on"])


def match_id_for_key(engine: Engine, key: str) -> int | None:
    """The stored id of the match with plan key `key` (None while it is still being played)."""
    with engine.connect() as conn:
        found = conn.execute(select(MATCHES.c.id).where(MATCHES.c.key == key)).scalar()
    return None if found is None else int(found)


def live_match(engine: Engine, key: str) -> pd.DataFrame:
    """The in-flight row of the match with plan key `key` (empty when none)."""
    frame = live_matches(engine)
    return frame[frame["key"] == key]
