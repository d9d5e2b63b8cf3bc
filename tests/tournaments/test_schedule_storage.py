"""Storage of recurring schedules (schema v2): the v1 -> v2 migration, the lease that lets
one process at a time run a schedule, and the run history."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect, text

from arena.storage import CURRENT_VERSION, Store, create_db_engine, migrate, sqlite_url
from arena.storage.migrations import schema_version
from arena.storage.schedule_runs import (
    ABANDONED,
    acquire_lease,
    finish_schedule_run,
    release_lease,
    renew_lease,
    schedule_runs,
    start_schedule_run,
)
from arena.storage.schedules import save_schedule, schedules


def test_a_version_1_database_is_upgraded_keeping_its_schedules(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "v1.db")
    Store.open(url).close()
    engine = create_db_engine(url)
    with engine.begin() as conn:  # turn it into exactly the version 1 schema
        for column in ("interval_s", "lease_owner", "lease_until"):
            conn.execute(text(f"ALTER TABLE schedules DROP COLUMN {column}"))
        conn.execute(text("DROP TABLE schedule_runs"))
        conn.execute(text("UPDATE schema_version SET version = 1"))
        conn.execute(text(
            "INSERT INTO schedules (name, cron, tournament_file, args_json, enabled, created_at) "
            "VALUES ('nightly', '0 3 * * *', 'demo.toml', '{}', 1, '2024-01-01 00:00:00')"
        ))
    assert migrate(engine) == 1
    with engine.connect() as conn:
        assert schema_version(conn) == CURRENT_VERSION >= 2
        columns = {c["name"] for c in inspect(conn).get_columns("schedules")}
        assert {"interval_s", "lease_owner", "lease_until"} <= columns
        assert inspect(conn).has_table("schedule_runs")
    (found,) = schedules(engine)
    assert (found.name, found.cron, found.interval_s, found.lease_owner) == ("nightly", "0 3 * * *", None, None)
    assert acquire_lease(engine, "nightly", "me", 60)  # the new columns work
    engine.dispose()


def test_one_process_at_a_time_holds_a_schedule_lease(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "lease.db"))
    engine = store.engine
    save_schedule(engine, "fast", "", "t.toml", interval_s=2.0)
    assert not acquire_lease(engine, "missing", "a", 60)
    assert acquire_lease(engine, "fast", "a", 60)
    assert not acquire_lease(engine, "fast", "b", 60)
    assert not acquire_lease(engine, "fast", "a", 60)  # not re-entrant either
    assert renew_lease(engine, "fast", "a", 60) and not renew_lease(engine, "fast", "b", 60)
    release_lease(engine, "fast", "b")  # not b's to release
    assert not acquire_lease(engine, "fast", "b", 60)
    release_lease(engine, "fast", "a")
    assert acquire_lease(engine, "fast", "b", 60)
    (found,) = schedules(engine)
    assert found.lease_owner == "b" and found.interval_s == 2.0
    store.close()


def test_an_expired_lease_is_taken_over_and_its_run_marked_abandoned(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "expired.db"))
    engine = store.engine
    save_schedule(engine, "nightly", "0 3 * * *", "t.toml")
    assert acquire_lease(engine, "nightly", "dead", -1)  # already expired: a killed holder
    dead = start_schedule_run(engine, "nightly", "dead", "scheduled", seed=5)
    assert acquire_lease(engine, "nightly", "alive", 60)
    live = start_schedule_run(engine, "nightly", "alive", "manual", seed=6)
    finish_schedule_run(engine, live, "done", written=4)
    runs = schedule_runs(engine, "nightly")
    assert [(r.id, r.owner, r.status, r.seed) for r in runs] == [
        (dead, "dead", ABANDONED, 5), (live, "alive", "done", 6)
    ]
    assert runs[0].finished_at is not None and runs[1].written == 4
    assert [r.id for r in schedule_runs(engine, limit=1)] == [live]
    store.close()
