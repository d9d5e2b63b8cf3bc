"""Live state of running tournaments and schedulers (schema v4): written by the executor and
the scheduler, read by the dashboard, possibly in another process or on another machine.

Writes replace whole rows (a run's heartbeat, its judge's health, its matches in flight) in
one short transaction; the executor calls them at most about once a second
(`arena.tournaments.running.live_reporter`). Reads return plain frozen dataclasses.

A heartbeat is `stale` when it says running but was not updated for `STALE_AFTER_S`: the
process was killed (or its machine lost) without marking the run finished.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, insert, select
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel, col

from arena.events import EVENT_ADAPTER, Event
from arena.redaction import redact_tree
from arena.storage import tables as t
from arena.storage.engine import write_engine
from arena.storage.numbers import run_number_of
from arena.storage.tables import LiveJudge, LiveMatch, LiveRun, LiveScheduler, Schedule, Tournament

RUNNING = "running"
PREPARING = "preparing"  # a run's phases: making its maps, then playing its matches
PLAYING = "playing"
STALE_AFTER_S = 60.0
# A match in flight keeps its latest events in its live row (schema v9), bounded: at most
# LIVE_EVENTS events, each string cut at LIVE_TEXT_CHARS, LIVE_CHARS characters in all (the
# oldest go first). The whole transcript is stored when the match ends.
LIVE_EVENTS = 100
LIVE_TEXT_CHARS = 4_000
LIVE_CHARS = 50_000


# ------------------------------------------------------------------------------ records


@dataclass(frozen=True)
class RunProgress:
    """A run's heartbeat. `total` counts the whole schedule; `done_before` matches were
    stored before this run started and `done` by it."""

    run_id: int
    tournament_id: int
    status: str
    total: int
    done_before: int
    done: int = 0
    errors: int = 0
    forfeits: int = 0
    in_flight: int = 0
    matches_per_min: float = 0.0
    eta_s: float | None = None
    host: str = ""
    pid: int = 0
    started_at: datetime | None = None
    updated_at: datetime | None = None
    phase: str = ""  # PREPARING (making maps) or PLAYING; "" when unknown (before v8)
    maps_done: int = 0
    maps_total: int = 0


@dataclass(frozen=True)
class LiveRunRecord:
    progress: RunProgress
    tournament: str
    stale: bool  # says running, but its process stopped writing (killed?)
    number: int = 0  # the run's number within its tournament (run 1 of live)

    @property
    def finished(self) -> int:
        """Matches of the schedule stored so far (before and during this run)."""
        return self.progress.done_before + self.progress.done

    @property
    def remaining(self) -> int:
        return max(self.progress.total - self.finished, 0)


@dataclass(frozen=True)
class MatchInFlight:
    run_id: int
    key: str
    game: str
    seats: tuple[tuple[str, str], ...]  # (role, participant)
    round: int  # 0 before its first round
    rounds: int
    started_at: datetime
    events: tuple[Event, ...] = ()  # its latest events so far (bounded: `LIVE_EVENTS`)


@dataclass(frozen=True)
class JudgeHealth:
    run_id: int
    queue_depth: int
    mean_batch_size: float
    cache_hit_rate: float
    tokens_per_s: float
    requests: int
    batches: int
    stats: Mapping[str, float]
    updated_at: datetime


@dataclass(frozen=True)
class SchedulerBeat:
    owner: str
    status: str
    schedules: int
    running: int
    started_at: datetime
    updated_at: datetime
    stale: bool


@dataclass(frozen=True)
class NextRun:
    schedule: str
    next_run_at: datetime | None
    last_run_at: datetime | None
    enabled: bool
    running_owner: str | None  # the process holding its lease now, if any


# ------------------------------------------------------------------------------ writes


def judge_health(run_id: int, stats: Mapping[str, float]) -> JudgeHealth:
    """A judge pool's metrics (`JudgePool.metrics()`) as the row the dashboard shows."""
    requests = float(stats.get("requests", 0.0))
    hits = float(stats.get("cache_hits", 0.0))
    return JudgeHealth(
        run_id=run_id,
        queue_depth=int(stats.get("queue_depth", 0.0)),
        mean_batch_size=float(stats.get("mean_batch_size", 0.0)),
        cache_hit_rate=hits / requests if requests else 0.0,
        tokens_per_s=float(stats.get("tokens_per_s", 0.0)),
        requests=int(requests),
        batches=int(stats.get("batches", 0.0)),
        stats={k: float(v) for k, v in stats.items()},
        updated_at=t.utcnow(),
    )


def write_live(
    engine: Engine,
    progress: RunProgress,
    in_flight: Sequence[MatchInFlight] | None = None,
    judge: JudgeHealth | None = None,
) -> None:
    """Replace the run's heartbeat, and (when given) its matches in flight and judge health,
    in one transaction."""
    row = {
        "tournament_id": progress.tournament_id,
        "status": progress.status,
        "total": progress.total,
        "done_before": progress.done_before,
        "done": progress.done,
        "errors": progress.errors,
        "forfeits": progress.forfeits,
        "in_flight": progress.in_flight,
        "matches_per_min": progress.matches_per_min,
        "eta_s": progress.eta_s,
        "host": progress.host,
        "pid": progress.pid,
        "started_at": progress.started_at or t.utcnow(),
        "updated_at": t.utcnow(),
        "phase": progress.phase or None,
        "maps_done": progress.maps_done,
        "maps_total": progress.maps_total,
    }
    with write_engine(engine).begin() as conn:
        _upsert(conn, LiveRun, "run_id", progress.run_id, row)
        if in_flight is not None:
            conn.execute(delete(LiveMatch).where(col(LiveMatch.run_id) == progress.run_id))
            if in_flight:
                conn.execute(insert(LiveMatch), [_match_row(m) for m in in_flight])
        if judge is not None:
            _upsert(conn, LiveJudge, "run_id", judge.run_id, _judge_row(judge))


def write_scheduler_beat(
    engine: Engine, owner: str, *, status: str, schedules: int, running: int,
    started_at: datetime,
) -> None:
    """Replace the heartbeat of scheduler process `owner`."""
    row = {
        "status": status,
        "schedules": schedules,
        "running": running,
        "started_at": started_at,
        "updated_at": t.utcnow(),
    }
    with write_engine(engine).begin() as conn:
        _upsert(conn, LiveScheduler, "owner", owner, row)


def _upsert(
    conn: Connection, model: type[SQLModel], key: str, ident: object, row: Mapping[str, object]
) -> None:
    """UPDATE the row keyed `ident`, INSERT it when there is none (portable: the caller
    holds the write lock, so nobody inserts in between on SQLite; a run's or scheduler's
    row has a single writer on every backend)."""
    table = t.table_of(model)  # by the key's name: any live table
    updated = conn.execute(table.update().where(table.c[key] == ident).values(**row)).rowcount
    if updated == 0:
        conn.execute(table.insert().values(**{key: ident}, **row))


def _match_row(match: MatchInFlight) -> dict[str, object]:
    seats = [{"role": role, "participant": who} for role, who in match.seats]
    return {
        "run_id": match.run_id,
        "key": match.key,
        "game": match.game,
        "seats_json": json.dumps(seats),
        "round": match.round,
        "rounds": match.rounds,
        "started_at": match.started_at,
        "events_json": encode_live_events(match.events) if match.events else None,
    }


def _cut(value: object) -> object:
    if isinstance(value, str):
        if len(value) > LIVE_TEXT_CHARS:
            return value[:LIVE_TEXT_CHARS] + f" [... {len(value) - LIVE_TEXT_CHARS:,} more]"
        return value
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut(v) for v in value]
    return value


def encode_live_events(events: Sequence[Event]) -> str:
    """A match's latest events as its live row stores them: every string redacted
    (`redact_tree`) and cut, at most `LIVE_EVENTS` events and about `LIVE_CHARS` characters
    (the newest kept)."""
    kept: list[str] = []
    size = 2
    for event in reversed(events[-LIVE_EVENTS:]):
        text = json.dumps(_cut(redact_tree(event.model_dump(mode="json"))),
                          ensure_ascii=False, separators=(",", ":"))
        if size + len(text) + 1 > LIVE_CHARS and kept:
            break
        kept.append(text)
        size += len(text) + 1
    return "[" + ",".join(reversed(kept)) + "]"


def decode_live_events(text: str | None) -> tuple[Event, ...]:
    """The events `encode_live_events` stored (an unreadable one is skipped)."""
    if not text:
        return ()
    out = []
    for item in json.loads(text):
        try:
            out.append(EVENT_ADAPTER.validate_python(item))
        except ValueError:
            continue
    return tuple(out)


def _judge_row(judge: JudgeHealth) -> dict[str, object]:
    return {
        "queue_depth": judge.queue_depth,
        "mean_batch_size": judge.mean_batch_size,
        "cache_hit_rate": judge.cache_hit_rate,
        "tokens_per_s": judge.tokens_per_s,
        "requests": judge.requests,
        "batches": judge.batches,
        "stats_json": json.dumps(dict(judge.stats), sort_keys=True),
        "updated_at": judge.updated_at,
    }


# ------------------------------------------------------------------------------ reads


def _aware(moment: datetime) -> datetime:
    """SQLite hands timestamps back without a zone; they are UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _is_stale(status: str, updated_at: datetime, now: datetime, after_s: float) -> bool:
    return status == RUNNING and now - _aware(updated_at) > timedelta(seconds=after_s)


def live_runs(
    engine: Engine,
    *,
    running_only: bool = False,
    tournament: str | None = None,
    limit: int = 50,
    now: datetime | None = None,
    stale_after_s: float = STALE_AFTER_S,
) -> list[LiveRunRecord]:
    """Run heartbeats, the latest run first (`running_only`: those still running, stale or
    not)."""
    query = (
        select(
            LiveRun, col(Tournament.name),
            run_number_of(col(LiveRun.run_id), col(LiveRun.tournament_id)).label("number"),
        )
        .join(Tournament, col(Tournament.id) == col(LiveRun.tournament_id))
        .order_by(col(LiveRun.run_id).desc())
        .limit(limit)
    )
    if running_only:
        query = query.where(col(LiveRun.status) == RUNNING)
    if tournament is not None:
        query = query.where(col(Tournament.name) == tournament)
    moment = now or datetime.now(UTC)
    with engine.connect() as conn:
        rows = conn.execute(query).mappings().all()
    out = []
    for r in rows:
        progress = RunProgress(
            run_id=r["run_id"], tournament_id=r["tournament_id"], status=r["status"],
            total=r["total"], done_before=r["done_before"], done=r["done"],
            errors=r["errors"], forfeits=r["forfeits"], in_flight=r["in_flight"],
            matches_per_min=r["matches_per_min"], eta_s=r["eta_s"], host=r["host"],
            pid=r["pid"], started_at=_aware(r["started_at"]), updated_at=_aware(r["updated_at"]),
            phase=r["phase"] or "", maps_done=r["maps_done"] or 0,
            maps_total=r["maps_total"] or 0,
        )
        stale = _is_stale(r["status"], r["updated_at"], moment, stale_after_s)
        out.append(LiveRunRecord(progress, r["name"], stale, int(r["number"] or 0)))
    return out


def matches_in_flight(
    engine: Engine, run_id: int | None = None, *, with_events: bool = False
) -> list[MatchInFlight]:
    """Matches being played (of one run, or of every run), the oldest first (`with_events`:
    with their latest events)."""
    query = select(LiveMatch).order_by(col(LiveMatch.started_at), col(LiveMatch.id))
    if run_id is not None:
        query = query.where(col(LiveMatch.run_id) == run_id)
    with engine.connect() as conn:
        rows = conn.execute(query).mappings().all()
    return [
        MatchInFlight(
            run_id=r["run_id"], key=r["key"], game=r["game"],
            seats=tuple((s["role"], s["participant"]) for s in json.loads(r["seats_json"])),
            round=r["round"], rounds=r["rounds"], started_at=_aware(r["started_at"]),
            events=decode_live_events(r["events_json"]) if with_events else (),
        )
        for r in rows
    ]


def live_match_events(engine: Engine, key: str) -> tuple[Event, ...]:
    """The latest events of the match in flight with plan key `key` (empty when it is not
    in flight, or no event was written yet)."""
    query = select(col(LiveMatch.events_json)).where(col(LiveMatch.key) == key)
    with engine.connect() as conn:
        found = conn.execute(query.order_by(col(LiveMatch.id).desc())).first()
    return () if found is None else decode_live_events(found[0])


def judge_pool_health(engine: Engine, run_id: int) -> JudgeHealth | None:
    """The judge pool's latest health during run `run_id` (None when never written)."""
    with engine.connect() as conn:
        r = conn.execute(select(LiveJudge).where(col(LiveJudge.run_id) == run_id)).mappings()
        row = r.first()
    if row is None:
        return None
    return JudgeHealth(
        run_id=row["run_id"], queue_depth=row["queue_depth"],
        mean_batch_size=row["mean_batch_size"], cache_hit_rate=row["cache_hit_rate"],
        tokens_per_s=row["tokens_per_s"], requests=row["requests"], batches=row["batches"],
        stats=json.loads(row["stats_json"]), updated_at=_aware(row["updated_at"]),
    )


def scheduler_beats(
    engine: Engine, *, now: datetime | None = None, stale_after_s: float = STALE_AFTER_S
) -> list[SchedulerBeat]:
    """Heartbeats of scheduler processes, the latest first."""
    moment = now or datetime.now(UTC)
    query = select(LiveScheduler).order_by(col(LiveScheduler.updated_at).desc())
    with engine.connect() as conn:
        rows = conn.execute(query).mappings().all()
    return [
        SchedulerBeat(
            owner=r["owner"], status=r["status"], schedules=r["schedules"],
            running=r["running"], started_at=_aware(r["started_at"]),
            updated_at=_aware(r["updated_at"]),
            stale=_is_stale(r["status"], r["updated_at"], moment, stale_after_s),
        )
        for r in rows
    ]


def next_runs(engine: Engine) -> list[NextRun]:
    """Recurring schedules by their next fire time (soonest first; unknown times last)."""
    query = select(
        col(Schedule.name), col(Schedule.next_run_at), col(Schedule.last_run_at),
        col(Schedule.enabled), col(Schedule.lease_owner), col(Schedule.lease_until),
    )
    moment = datetime.now(UTC)
    with engine.connect() as conn:
        rows = conn.execute(query).mappings().all()
    found = []
    for r in rows:
        until = r["lease_until"]
        holder = r["lease_owner"] if until is not None and _aware(until) > moment else None
        found.append(
            NextRun(
                schedule=r["name"],
                next_run_at=None if r["next_run_at"] is None else _aware(r["next_run_at"]),
                last_run_at=None if r["last_run_at"] is None else _aware(r["last_run_at"]),
                enabled=bool(r["enabled"]),
                running_owner=holder,
            )
        )
    far = datetime.max.replace(tzinfo=UTC)
    return sorted(found, key=lambda n: (n.next_run_at or far, n.schedule))
