"""Recurring-run schedules (cron syntax or an interval) that the scheduler reads at start
and updates after each run; their leases and run history are `arena.storage.schedule_runs`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update
from sqlmodel import col

from arena.storage import tables as t
from arena.storage.engine import write_engine
from arena.storage.tables import Schedule


@dataclass(frozen=True)
class ScheduleRecord:
    name: str
    cron: str
    tournament_file: str
    args: Mapping[str, Any]
    enabled: bool
    last_run_at: datetime | None
    next_run_at: datetime | None
    interval_s: float | None = None  # set for interval schedules (then `cron` is "")
    lease_owner: str | None = None  # the process running it now, until `lease_until`
    lease_until: datetime | None = None


def save_schedule(
    engine: Engine,
    name: str,
    cron: str,
    tournament_file: str,
    args: Mapping[str, Any] | None = None,
    enabled: bool = True,
    interval_s: float | None = None,
) -> None:
    """Create or replace the schedule `name` (its run times and lease are kept). An
    interval schedule has `interval_s` set and an empty `cron`."""
    values = {
        "cron": cron,
        "tournament_file": tournament_file,
        "args_json": json.dumps(dict(args or {}), sort_keys=True),
        "enabled": enabled,
        "interval_s": interval_s,
    }
    with write_engine(engine).begin() as conn:
        found = conn.execute(select(col(Schedule.id)).where(col(Schedule.name) == name)).scalar()
        if found is None:
            conn.execute(insert(Schedule), {"name": name, "created_at": t.utcnow(), **values})
        else:
            conn.execute(update(Schedule).where(col(Schedule.id) == found).values(**values))


def mark_schedule_run(
    engine: Engine, name: str, last_run_at: datetime, next_run_at: datetime | None
) -> None:
    with write_engine(engine).begin() as conn:
        conn.execute(
            update(Schedule)
            .where(col(Schedule.name) == name)
            .values(last_run_at=last_run_at, next_run_at=next_run_at)
        )


def schedules(engine: Engine) -> list[ScheduleRecord]:
    with engine.connect() as conn:
        rows = conn.execute(select(Schedule).order_by(col(Schedule.name))).mappings()
        return [
            ScheduleRecord(
                r["name"], r["cron"], r["tournament_file"], json.loads(r["args_json"]),
                bool(r["enabled"]), r["last_run_at"], r["next_run_at"], r["interval_s"],
                r["lease_owner"], r["lease_until"],
            )
            for r in rows
        ]


def delete_schedule(engine: Engine, name: str) -> bool:
    with write_engine(engine).begin() as conn:
        return conn.execute(delete(Schedule).where(col(Schedule.name) == name)).rowcount > 0
