"""Runs, schedules and the live state of running tournaments (heartbeats, matches in
flight, judge pool health) for the Live and Tournaments pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pandas as pd
from sqlalchemy import Engine, case, func, select
from sqlmodel import col

from arena.events import Event
from arena.storage.numbers import run_number, run_number_of, snapshot_number_of
from arena.storage.read_model.frames import AnySelect, read_frame
from arena.storage.tables import (
    Match,
    RatingSnapshot,
    Run,
    Schedule,
    ScheduleRun,
    Seat,
    Tournament,
)


def runs(engine: Engine, tournament: str | None = None, status: str | None = None) -> pd.DataFrame:
    """Runs (newest first) with their stored matches: run (its number within its
    tournament), tournament, status, planned, pending, done, errors, forfeits, started_at,
    finished_at, last_match_at, host, pid, run_id (the database's id)."""
    done = func.sum(case((col(Match.status) == "done", 1), else_=0))
    errors = func.sum(case((col(Match.status) == "error", 1), else_=0))
    per_run = (
        select(col(Match.run_id), done.label("done"), errors.label("errors"),
               func.max(col(Match.finished_at)).label("last_match_at"))
        .group_by(col(Match.run_id))
        .subquery()
    )
    forfeits = (
        select(col(Match.run_id), func.count().label("forfeits"))
        .join(Seat, col(Seat.match_id) == col(Match.id))
        .where(col(Seat.forfeit))
        .group_by(col(Match.run_id))
        .subquery()
    )
    query: AnySelect = (
        select(
            run_number_of(col(Run.id), col(Run.tournament_id)).label("run"),
            col(Tournament.name).label("tournament"), col(Run.status),
            col(Run.planned), col(Run.pending), func.coalesce(per_run.c.done, 0).label("done"),
            func.coalesce(per_run.c.errors, 0).label("errors"),
            func.coalesce(forfeits.c.forfeits, 0).label("forfeits"),
            col(Run.started_at), col(Run.finished_at), per_run.c.last_match_at,
            col(Run.config_sha256), col(Run.host), col(Run.pid), col(Run.id).label("run_id"),
        )
        .join(Tournament, col(Tournament.id) == col(Run.tournament_id))
        .outerjoin(per_run, per_run.c.run_id == col(Run.id))
        .outerjoin(forfeits, forfeits.c.run_id == col(Run.id))
        .order_by(col(Run.id).desc())
    )
    if tournament:
        query = query.where(col(Tournament.name) == tournament)
    if status:
        query = query.where(col(Run.status) == status)
    return read_frame(engine, query)


def recent_matches_per_minute(engine: Engine, run_id: int, window_s: float = 300.0) -> float:
    """Matches of run `run_id` finished per minute over the last `window_s` seconds of it."""
    with engine.connect() as conn:
        last = conn.execute(
            select(func.max(col(Match.finished_at))).where(col(Match.run_id) == run_id)
        ).scalar()
        if last is None:
            return 0.0
        start = last - timedelta(seconds=window_s)
        row = conn.execute(
            select(func.count(), func.min(col(Match.started_at))).where(
                col(Match.run_id) == run_id, col(Match.finished_at) >= start
            )
        ).one()
    n, first = int(row[0]), row[1]
    span = max((last - max(first, start)).total_seconds(), 1.0) if first else window_s
    return 60.0 * n / span


def schedules(engine: Engine) -> pd.DataFrame:
    query = select(
        col(Schedule.name), col(Schedule.cron), col(Schedule.interval_s), col(Schedule.enabled),
        col(Schedule.tournament_file), col(Schedule.last_run_at), col(Schedule.next_run_at),
        col(Schedule.lease_owner), col(Schedule.lease_until),
    ).order_by(col(Schedule.next_run_at), col(Schedule.name))
    return read_frame(engine, query)


def schedule_runs(engine: Engine, limit: int = 200) -> pd.DataFrame:
    """The schedules' runs, newest first, with the tournament run each made and the rating
    snapshot it stored, both numbered within their tournament (run 3 of nightly)."""
    query = (
        select(
            col(ScheduleRun.id), col(ScheduleRun.schedule), col(ScheduleRun.trigger),
            col(ScheduleRun.status), col(ScheduleRun.written), col(ScheduleRun.seed),
            col(Tournament.name).label("tournament"),
            run_number_of(col(Run.id), col(Run.tournament_id)).label("tournament_run"),
            snapshot_number_of(col(RatingSnapshot.id), col(RatingSnapshot.tournament_id))
            .label("snapshot"),
            col(ScheduleRun.started_at), col(ScheduleRun.finished_at), col(ScheduleRun.error),
        )
        .outerjoin(Run, col(Run.id) == col(ScheduleRun.tournament_run_id))
        .outerjoin(Tournament, col(Tournament.id) == col(Run.tournament_id))
        .outerjoin(RatingSnapshot, col(RatingSnapshot.id) == col(ScheduleRun.snapshot_id))
        .order_by(col(ScheduleRun.id).desc())
        .limit(limit)
    )
    return read_frame(engine, query)


# ------------------------------------------------------------------------------ live

LIVE_COLUMNS = ["run", "run_id", "tournament", "status", "phase", "maps_done", "maps_total",
                "finished", "total", "done", "errors", "forfeits", "in_flight",
                "matches_per_min", "eta_s", "stale", "host", "pid", "started_at", "updated_at"]


def live_progress(engine: Engine, tournament: str | None = None) -> pd.DataFrame:
    """Run heartbeats (latest first) written by the executor (`arena.storage.live`): run
    (its number within its tournament), run_id (the database's), tournament, status, phase
    (preparing: making maps, maps_done of maps_total; playing), finished (of the schedule),
    total, errors, forfeits, in_flight, matches_per_min (since play began), eta_s, stale
    (says running, stopped reporting)."""
    from arena.storage.live import live_runs

    rows = [
        {"run": r.number, "run_id": r.progress.run_id, "tournament": r.tournament,
         "status": r.progress.status,
         "phase": r.progress.phase, "maps_done": r.progress.maps_done,
         "maps_total": r.progress.maps_total, "finished": r.finished,
         "total": r.progress.total, "done": r.progress.done,
         "errors": r.progress.errors, "forfeits": r.progress.forfeits,
         "in_flight": r.progress.in_flight, "matches_per_min": r.progress.matches_per_min,
         "eta_s": r.progress.eta_s, "stale": r.stale, "host": r.progress.host,
         "pid": r.progress.pid, "started_at": r.progress.started_at,
         "updated_at": r.progress.updated_at}
        for r in live_runs(engine, tournament=tournament, limit=20)
    ]
    return pd.DataFrame(rows, columns=LIVE_COLUMNS)


def live_matches(engine: Engine) -> pd.DataFrame:
    """Matches being played now: tournament, run (its number within the tournament), key
    (the plan key its stored row will have), game, seats, round (k/R), elapsed_s."""
    from arena.storage.live import live_runs, matches_in_flight

    now = datetime.now(UTC)
    runs = {r.progress.run_id: r for r in live_runs(engine, running_only=True)}
    rows = [
        {"tournament": runs[m.run_id].tournament if m.run_id in runs else "",
         "run": runs[m.run_id].number if m.run_id in runs else m.run_id, "key": m.key,
         "game": m.game,
         "seats": "; ".join(f"{role}: {who}" for role, who in m.seats),
         "round": f"{m.round}/{m.rounds}",
         "elapsed_s": round((now - m.started_at).total_seconds(), 1)}
        for m in matches_in_flight(engine)
    ]
    return pd.DataFrame(rows, columns=["tournament", "run", "key", "game", "seats", "round",
                                       "elapsed_s"])


def live_judges(engine: Engine, run_ids: Sequence[int]) -> pd.DataFrame:
    """The judge pool's latest health per run (`run_ids`: the database's ids): tournament,
    run (its number within the tournament), queue depth, mean batch size, cache hit rate,
    tokens/s."""
    from arena.storage.live import judge_pool_health

    rows = []
    for run in run_ids:
        h = judge_pool_health(engine, int(run))
        named = run_number(engine, int(run))
        if h is not None and named is not None:
            rows.append({"tournament": named[0], "run": named[1], "queue_depth": h.queue_depth,
                         "mean_batch_size": h.mean_batch_size,
                         "cache_hit_rate": h.cache_hit_rate, "tokens_per_s": h.tokens_per_s,
                         "requests": h.requests, "updated_at": h.updated_at})
    return pd.DataFrame(rows, columns=["tournament", "run", "queue_depth", "mean_batch_size",
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
        found = conn.execute(select(col(Match.id)).where(col(Match.key) == key)).scalar()
    return None if found is None else int(found)


def live_events(engine: Engine, key: str) -> tuple[Event, ...]:
    """The latest events of the match in flight with plan key `key`, as its live row holds
    them (redacted, bounded); empty when none."""
    from arena.storage.live import live_match_events

    return live_match_events(engine, key)


def live_match(engine: Engine, key: str) -> pd.DataFrame:
    """The in-flight row of the match with plan key `key` (empty when none)."""
    frame = live_matches(engine)
    return frame[frame["key"] == key]
