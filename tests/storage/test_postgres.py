"""The same storage on PostgreSQL (the several-machines setup): a tournament run, its
resume, concurrent writers from two processes and the ratings, against a real server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.storage import Store
from arena.storage.queries import stored_matches
from arena.tournaments.services.run_config import run_file
from tests.storage.postgres_server import available, postgres_server
from tests.tournaments import arena_fixtures as fx

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not available(), reason="PostgreSQL server binaries not installed"),
]


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    with postgres_server() as url:
        yield url


async def test_tournament_runs_and_resumes_on_postgres(tmp_path: Path, postgres_url: str) -> None:
    registry = fx.registry()
    path = fx.tournament_file(tmp_path, fx.SMALL)
    first = await run_file(path, db=postgres_url, registry=registry)
    assert (first.planned, first.written, first.errors) == (12, 12, 0)
    again = await run_file(path, db=postgres_url, registry=registry)
    assert (again.already_done, again.written) == (12, 0)
    store = Store.open(postgres_url)
    try:
        matches = stored_matches(store.engine, "small")
    finally:
        store.close()
    assert len({m.key for m in matches}) == 12
    assert all(m.event_count > 0 for m in matches)


def test_two_processes_write_one_tournament_without_duplicates(tmp_path: Path, postgres_url: str) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL.replace('name = "small"', 'name = "shared"'))
    script = (
        "import asyncio, sys\n"
        "from tests.tournaments import arena_fixtures as fx\n"
        "from arena.tournaments.services.run_config import run_file\n"
        "asyncio.run(run_file(sys.argv[1], db=sys.argv[2], registry=fx.registry()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    workers = [
        subprocess.Popen([sys.executable, "-c", script, str(path), postgres_url], env=env,
                         stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    for worker in workers:
        _, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
    store = Store.open(postgres_url)
    try:
        matches = stored_matches(store.engine, "shared")
    finally:
        store.close()
    keys = [m.key for m in matches]
    assert len(keys) == len(set(keys)) == 12


def test_ratings_from_postgres(tmp_path: Path, postgres_url: str) -> None:
    data = REPO.parent / "shared" / "data" / "gamebench_matches.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    imported = subprocess.run(
        [sys.executable, "-m", "arena.cli", "import", str(data), "--format", "gamebench",
         "--tournament", "gamebench-pg", "--db", postgres_url],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert imported.returncode == 0, imported.stderr
    rated = subprocess.run(
        [sys.executable, "-m", "arena.cli", "ratings", "--tournament", "gamebench-pg",
         "--scale", "log", "--json", "--db", postgres_url],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert rated.returncode == 0, rated.stderr
    import json

    rows = {r["participant"]: r["rating"] for r in json.loads(rated.stdout)}
    assert abs(rows["human"] - 1.76) < 0.15 and abs(rows["gpt-4"] - (-0.89)) < 0.15


def test_version_2_seed_columns_are_widened_on_upgrade(postgres_url: str) -> None:
    from sqlalchemy import text

    from arena.storage import CURRENT_VERSION, create_db_engine, migrate
    from arena.storage.migrations import schema_version

    def seed_types(conn) -> set[str]:  # type: ignore[no-untyped-def]
        rows = conn.execute(text(
            "SELECT data_type FROM information_schema.columns WHERE "
            "(table_name, column_name) IN (('maps','seed'), ('matches','play_seed'), "
            "('schedule_runs','seed'))"
        ))
        return {r[0] for r in rows}

    # A database of its own: the other tests' 63-bit seeds would not fit the old columns.
    admin = create_db_engine(postgres_url).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text("CREATE DATABASE upgrade_check"))
    admin.dispose()
    url = postgres_url.rsplit("/", 1)[0] + "/upgrade_check"
    Store.open(url).close()  # a current, empty database
    engine = create_db_engine(url)
    try:
        with engine.begin() as conn:  # make it look like version 2: 32-bit seeds
            for table, column in (("maps", "seed"), ("matches", "play_seed"), ("schedule_runs", "seed")):
                conn.execute(text(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE INTEGER"))
            conn.execute(text("UPDATE schema_version SET version = 2"))
            assert seed_types(conn) == {"integer"}
        migrate(engine)
        with engine.begin() as conn:
            assert schema_version(conn) == CURRENT_VERSION
            assert seed_types(conn) == {"bigint"}
    finally:
        engine.dispose()


async def test_numbers_within_a_tournament_and_the_live_board_on_postgres(
    tmp_path: Path, postgres_url: str
) -> None:
    """Runs and snapshots counted within their tournament, and the dashboard's live board
    read through the read-only read model equal to `arena ratings` (issue 30), on
    PostgreSQL."""
    from arena.dashboard.live_board import live_board
    from arena.storage.read_model import ReadModel
    from arena.tournaments.records.rating_store import rating_rows

    registry = fx.registry()
    for name in ("pg-first", "pg-second", "pg-second"):
        path = fx.tournament_file(tmp_path, fx.SMALL.replace('name = "small"',
                                                             f'name = "{name}"'))
        await run_file(path, db=postgres_url, registry=registry, snapshot=True)
    store = Store.open(postgres_url)
    reader = ReadModel.open(postgres_url)
    try:
        runs = reader.runs("pg-second")
        assert sorted(runs["run"]) == [1, 2] and min(runs["run_id"]) > 1
        assert store.run_number(int(runs["run_id"].max())) == ("pg-second", 2)
        snaps = reader.snapshots("pg-second")
        assert sorted(snaps["number"]) == [1, 2]
        assert store.snapshot_number(int(snaps["id"].max())) == 2
        assert sorted(reader.live_progress("pg-second")["run"]) == [1, 2]
        board = live_board(reader, "pg-second").set_index("participant")
        cli = {r["participant"]: r for r in rating_rows(store, ["pg-second"])}
        assert list(board.index) == list(cli)
        assert [board.loc[p, "rating"] for p in cli] == [cli[p]["rating"] for p in cli]
        assert [board.loc[p, "ci_low"] for p in cli] == [cli[p]["ci_low"] for p in cli]
    finally:
        reader.close()
        store.close()
