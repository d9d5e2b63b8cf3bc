"""Match claims (schema v6): a run plays only the matches it claimed; another run's live
claims are skipped, expired or released ones are taken over, stored matches never claimed
again; matches record their executor and judge backend; a v5 database upgrades."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from sqlalchemy import inspect, text

from arena.storage import Store, claims, create_db_engine, sqlite_url
from arena.storage.migrations import CURRENT_VERSION, SEAT_SPEND, schema_version
from arena.storage.queries import stored_matches
from arena.storage.tables import utcnow
from tests.tournaments.test_storage import make_ids, match


def test_a_live_claim_is_skipped_and_an_expired_or_released_one_is_taken_over(
    tmp_path: Path,
) -> None:
    store = Store.open(sqlite_url(tmp_path / "c.db"))
    try:
        ids = make_ids(store)
        tid, engine = ids["tournament"], store.engine
        run_a, run_b = (
            store.start_run(tid, planned=3, pending=3, config_sha256="", version="")
            for _ in range(2)
        )
        assert claims.claim(engine, tid, run_a, ["k1", "k2"]) == ["k1", "k2"]
        assert claims.claim(engine, tid, run_b, ["k1", "k2", "k3"]) == ["k3"]
        assert claims.claim(engine, tid, run_a, ["k1"]) == ["k1"]  # its own: still its
        later = utcnow() + timedelta(seconds=claims.CLAIM_TTL_S + 1)
        assert claims.claim(engine, tid, run_b, ["k1"], now=later) == ["k1"]  # expired
        claims.release_runs(engine, [run_b])
        assert claims.claim(engine, tid, run_a, ["k3"]) == ["k3"]
        store.save_matches([match(ids, "k2")])  # stored as done by run a
        claims.release(engine, run_a)
        assert claims.claim(engine, tid, run_b, ["k2", "k3"]) == ["k3"]
    finally:
        store.close()


def test_matches_record_executor_and_judge_backend(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "p.db"))
    try:
        ids = make_ids(store)
        store.save_matches([replace(match(ids, "k1"), executor="ray", judge_backend="ray-actor")])
        found = stored_matches(store.engine, "t")
    finally:
        store.close()
    assert [(m.executor, m.judge_backend) for m in found] == [("ray", "ray-actor")]


def test_a_version_5_database_upgrades_to_the_current_schema_keeping_its_matches(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "old.db")
    store = Store.open(url)
    store.save_matches([match(make_ids(store), "k1")])
    store.close()
    engine = create_db_engine(url)  # back to version 5: no provenance, no claims
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE matches DROP COLUMN executor"))
        conn.execute(text("ALTER TABLE matches DROP COLUMN judge_backend"))
        conn.execute(text("DROP TABLE match_claims"))
        for table in ("scope_games", "scopes", "transfer_values", "finetune_verdicts"):
            conn.execute(text(f"DROP TABLE {table}"))  # version 7's tables
        for column in SEAT_SPEND:  # version 10's
            conn.execute(text(f"ALTER TABLE seats DROP COLUMN {column}"))
        conn.execute(text("UPDATE schema_version SET version = 5"))
    engine.dispose()
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            assert schema_version(conn) == CURRENT_VERSION == 10
            for table in ("match_claims", "finetune_verdicts", "transfer_values", "scopes"):
                assert inspect(conn).has_table(table)
            assert inspect(conn).has_table("scope_games")
        found = stored_matches(store.engine, "t")
        assert [(m.key, m.executor, m.judge_backend) for m in found] == [("k1", None, None)]
    finally:
        store.close()


def test_a_cancelled_claim_is_settled_before_the_run_releases_its_claims(tmp_path: Path) -> None:
    """The race CI once hit: a run cancelled while its claiming thread waits for the
    database must not have that thread commit claims after the run released them."""
    import asyncio
    import sqlite3

    from arena.tournaments.running.executors.engine import ClaimBook

    path = tmp_path / "c.db"
    store = Store.open(sqlite_url(path))
    try:
        ids = make_ids(store)
        tid, run = ids["tournament"], ids["run"]
        keys = ["k1", "k2", "k3"]
        blocker = sqlite3.connect(path, timeout=60)
        blocker.execute("BEGIN IMMEDIATE")  # holds the write lock: the claim thread waits

        async def scenario() -> None:
            book = ClaimBook(store, tid, run, keys, chunk=3)
            taking = asyncio.create_task(book.take("k1"))
            await asyncio.sleep(0.3)  # the claim is now blocked inside its thread
            taking.cancel()
            try:
                await taking
            except asyncio.CancelledError:
                pass
            else:
                raise AssertionError("take finished although the database was locked")
            blocker.rollback()  # the thread can commit its claims now
            await book.settle()
            claims.release(store.engine, run)

        asyncio.run(scenario())
        blocker.close()
        with store.engine.connect() as conn:
            held = conn.execute(
                text("SELECT count(*) FROM match_claims WHERE run_id IS NOT NULL")
            ).scalar()
        assert held == 0
        assert claims.claim(store.engine, tid, run + 1000, keys) == keys
    finally:
        store.close()
