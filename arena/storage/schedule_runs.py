"""Leases and run history of recurring schedules (schema v2).

A schedule is run by at most one process at a time, whichever process started it (a
scheduler, another scheduler on the same database, `arena schedule run-now`):
`acquire_lease` is one conditional UPDATE, atomic on every backend, that succeeds only when
nobody holds the schedule's lease or the holder's lease has expired (it was killed or
hangs). The holder renews the lease while it runs and releases it at the end. Each run is a
row of `schedule_runs` with its start and finish times, seed and outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, insert, or_, select, update
from sqlmodel import col

from arena.storage import tables as t
from arena.storage.engine import write_engine
from arena.storage.tables import Schedule, ScheduleRun

RUNNING = "running"
ABANDONED = "abandoned"  # its process lost the lease (killed, or hung past the lease)


@dataclass(frozen=True)
class ScheduleRunRecord:
    id: int
    schedule: str
    owner: str
    trigger: str
    seed: int
    status: str
    tournament_run_id: int | None
    snapshot_id: int | None
    written: int
    error: str | None
    started_at: datetime
    finished_at: datetime | None


def acquire_lease(engine: Engine, name: str, owner: str, seconds: float) -> bool:
    """Take the lease of schedule `name` for `seconds`; False when another process holds an
    unexpired lease (or there is no such schedule). Runs left `running` by an expired
    holder are marked abandoned."""
    now = t.utcnow()
    free = or_(
        col(Schedule.lease_owner).is_(None),
        col(Schedule.lease_until).is_(None),
        col(Schedule.lease_until) < now,
    )
    with write_engine(engine).begin() as conn:
        taken = conn.execute(
            update(Schedule)
            .where(col(Schedule.name) == name, free)
            .values(lease_owner=owner, lease_until=now + timedelta(seconds=seconds))
        ).rowcount
        if taken != 1:
            return False
        # We hold the lease now, so any run still marked running has lost its process.
        conn.execute(
            update(ScheduleRun)
            .where(col(ScheduleRun.schedule) == name, col(ScheduleRun.status) == RUNNING)
            .values(status=ABANDONED, finished_at=now)
        )
        return True


def renew_lease(engine: Engine, name: str, owner: str, seconds: float) -> bool:
    """Extend `owner`'s lease by `seconds` from now; False when it no longer holds it."""
    until = t.utcnow() + timedelta(seconds=seconds)
    with write_engine(engine).begin() as conn:
        held = col(Schedule.lease_owner) == owner
        query = update(Schedule).where(col(Schedule.name) == name, held)
        return conn.execute(query.values(lease_until=until)).rowcount == 1


def release_lease(engine: Engine, name: str, owner: str) -> None:
    """Give the lease back (a no-op when `owner` does not hold it)."""
    with write_engine(engine).begin() as conn:
        conn.execute(
            update(Schedule)
            .where(col(Schedule.name) == name, col(Schedule.lease_owner) == owner)
            .values(lease_owner=None, lease_until=None)
        )


def note_next_run(engine: Engine, name: str, when: datetime | None) -> None:
    """Record when the schedule fires next (a restarted scheduler catches up on a fire
    time that passed while none was running)."""
    with write_engine(engine).begin() as conn:
        conn.execute(update(Schedule).where(col(Schedule.name) == name).values(next_run_at=when))


def start_schedule_run(engine: Engine, name: str, owner: str, trigger: str, seed: int) -> int:
    """A new `running` row for a run of `name`; returns its id."""
    with write_engine(engine).begin() as conn:
        result = conn.execute(
            insert(ScheduleRun).values(
                schedule=name, owner=owner, trigger=trigger, seed=seed, status=RUNNING,
                written=0, started_at=t.utcnow(),
            )
        )
        key = result.inserted_primary_key
        if key is None:
            raise RuntimeError("the database returned no id for a new schedule run")
        return int(key[0])


def finish_schedule_run(
    engine: Engine,
    run_id: int,
    status: str,
    *,
    tournament_run_id: int | None = None,
    snapshot_id: int | None = None,
    written: int = 0,
    error: str | None = None,
) -> None:
    with write_engine(engine).begin() as conn:
        conn.execute(
            update(ScheduleRun)
            .where(col(ScheduleRun.id) == run_id)
            .values(
                status=status, tournament_run_id=tournament_run_id, snapshot_id=snapshot_id,
                written=written, error=error, finished_at=t.utcnow(),
            )
        )


def schedule_runs(
    engine: Engine, name: str | None = None, limit: int | None = None, run_id: int | None = None
) -> list[ScheduleRunRecord]:
    """Runs of schedule `name` (or of all schedules; or the one with id `run_id`), oldest
    first; `limit`: only the latest N."""
    query = select(ScheduleRun).order_by(col(ScheduleRun.id).desc())
    if name is not None:
        query = query.where(col(ScheduleRun.schedule) == name)
    if run_id is not None:
        query = query.where(col(ScheduleRun.id) == run_id)
    if limit is not None:
        query = query.limit(limit)
    with engine.connect() as conn:
        rows = list(conn.execute(query).mappings())
    return [
        ScheduleRunRecord(
            r["id"], r["schedule"], r["owner"], r["trigger"], r["seed"], r["status"],
            r["tournament_run_id"], r["snapshot_id"], r["written"], r["error"],
            r["started_at"], r["finished_at"],
        )
        for r in reversed(rows)
    ]
