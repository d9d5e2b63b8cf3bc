"""Live state for dashboards: a real run writes its heartbeat, matches in flight and judge
pool health, and a reader in another connection sees them change while it plays."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import inspect

from arena.judges.ngram import NgramJudge
from arena.judges.pool.judge_pool import JudgePool
from arena.storage import Store, sqlite_url
from arena.storage.live import (
    MatchInFlight,
    RunProgress,
    judge_pool_health,
    live_runs,
    matches_in_flight,
    next_runs,
    write_live,
)
from arena.storage.migrations import migrate
from arena.storage.read_only import open_read_only
from arena.storage.schedules import mark_schedule_run, save_schedule
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.running.executors.engine import run_tournament
from arena.tournaments.running.prepare import prepare_tournament
from tests.tournaments import arena_fixtures as fx

# Two matches at a time, alpha's moves take 0.5 s: about 4 s, several heartbeats.
SLOW = fx.SMALL.replace('player = "sleepy?words=3"', 'player = "sleepy?words=3&delay=0.5"').replace("global = 4", "global = 2")


async def test_a_running_tournament_is_visible_to_a_reader_while_it_plays(tmp_path: Path) -> None:
    path = fx.tournament_file(tmp_path, SLOW)
    db = sqlite_url(tmp_path / "live.db")
    Store.open(db).close()
    reader = open_read_only(db)
    seen_flying: list[MatchInFlight] = []
    seen_done: set[int] = set()

    async def watch() -> None:
        while True:
            runs = await asyncio.to_thread(live_runs, reader)
            if runs:
                seen_done.add(runs[0].progress.done)
                seen_flying.extend(await asyncio.to_thread(matches_in_flight, reader, runs[0].progress.run_id))
            await asyncio.sleep(0.1)

    registry = fx.registry()
    prepared = prepare_tournament(load_tournament(path), registry)
    judge = JudgePool(NgramJudge())  # a pooled judge, as model-backed judges are
    store = Store.open(db)
    watcher = asyncio.create_task(watch())
    try:
        summary = await run_tournament(prepared, registry=registry, judge=judge, store=store)
    finally:
        watcher.cancel()
        await judge.aclose()
        store.close()
    assert summary.written == 12
    # While it played: matches in flight with their game, seats and round, and a count that rose.
    assert seen_flying, f"no match was ever seen in flight {seen_done}"
    assert {m.game for m in seen_flying} <= {"condense", "duel"}
    assert any(m.round >= 1 for m in seen_flying)
    assert all(m.rounds in (1, 2) and 1 <= len(m.seats) <= 2 for m in seen_flying)
    assert any(role == "black" and who in ("alpha", "beta") for m in seen_flying for role, who in m.seats)
    assert len(seen_done) >= 2 and 0 < max(seen_done) <= 12
    # At the end: the final state, nothing left in flight, the judge pool's health.
    (run,) = live_runs(reader)
    p = run.progress
    assert (run.tournament, p.status, p.total, p.done_before, p.done, p.errors, p.in_flight) == ("small", "done", 12, 0, 12, 0, 0)
    assert run.finished == 12 and run.remaining == 0 and not run.stale
    assert p.matches_per_min > 0 and p.eta_s == 0.0 and p.updated_at is not None
    assert matches_in_flight(reader) == []
    judge = judge_pool_health(reader, p.run_id)
    assert judge is not None and judge.requests > 0 and judge.batches > 0
    assert 0.0 <= judge.cache_hit_rate <= 1.0 and judge.mean_batch_size >= 1.0
    assert "queue_depth" in judge.stats
    reader.dispose()


def test_a_heartbeat_that_stopped_is_stale_and_schedules_come_soonest_first(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "s.db"))
    engine = store.engine
    tournament = store.ensure_tournament("t", "eval", "{}")
    run_id = store.start_run(tournament, planned=10, pending=10, config_sha256="x", version="0")
    write_live(engine, RunProgress(run_id, tournament, "running", total=10, done_before=3, done=2, forfeits=1))
    later = datetime.now(UTC) + timedelta(minutes=5)
    (fresh,) = live_runs(engine)
    (old,) = live_runs(engine, now=later)
    assert (fresh.stale, old.stale, fresh.finished, fresh.remaining) == (False, True, 5, 5)
    assert live_runs(engine, running_only=True) and not live_runs(engine, tournament="other")
    write_live(engine, RunProgress(run_id, tournament, "done", total=10, done_before=3, done=7))
    assert not live_runs(engine, now=later)[0].stale and not live_runs(engine, running_only=True)
    for name in ("late", "soon", "never"):
        save_schedule(engine, name, "0 3 * * *", "t.toml")
    now = datetime.now(UTC)
    mark_schedule_run(engine, "late", now, now + timedelta(hours=5))
    mark_schedule_run(engine, "soon", now, now + timedelta(hours=1))
    assert [n.schedule for n in next_runs(engine)] == ["soon", "late", "never"]
    store.close()


def test_version_3_databases_get_the_live_tables_on_upgrade(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "v3.db"))
    with store.engine.begin() as conn:
        for table in ("live_runs", "live_matches", "live_judges", "live_schedulers"):
            conn.exec_driver_sql(f"DROP TABLE {table}")
        conn.exec_driver_sql("UPDATE schema_version SET version = 3")
    assert migrate(store.engine) == 3
    names = set(inspect(store.engine).get_table_names())
    assert {"live_runs", "live_matches", "live_judges", "live_schedulers"} <= names
    store.close()
