"""Opening a database read-only for viewers: writes are refused by SQLite and by a real
PostgreSQL server, and every unusable database gets one clear sentence."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from arena.storage import StorageError, Store, sqlite_url
from arena.storage.read_only import open_read_only
from tests.storage.postgres_server import postgres_server

WRITE = "INSERT INTO tournaments (name, mode, config_json, created_at) VALUES ('x', 'eval', '{}', '2026-01-01')"


def _tournaments(url: str) -> int:
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM tournaments")).scalar_one())
    finally:
        store.close()


def test_sqlite_opened_read_only_refuses_writes_and_reads_while_a_writer_holds_it(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "a.db")
    writer = Store.open(url)
    writer.ensure_tournament("kept", "eval", "{}")
    engine = open_read_only(url)
    with writer.engine.begin() as held:  # a running tournament's open write transaction
        held.execute(text(WRITE.replace("'x'", "'pending'")))
        with engine.connect() as conn:  # WAL: the reader is not blocked, sees committed rows
            assert conn.execute(text("SELECT name FROM tournaments")).scalars().all() == ["kept"]
    with pytest.raises(DBAPIError, match=r"readonly|read-only|query_only"), engine.begin() as conn:
        conn.execute(text(WRITE))
    engine.dispose()
    writer.close()
    assert _tournaments(url) == 2


@pytest.mark.postgres
def test_postgres_opened_read_only_refuses_writes() -> None:
    with postgres_server() as url:
        Store.open(url).close()
        engine = open_read_only(url)
        try:
            with engine.connect() as conn:
                assert conn.execute(text("SHOW default_transaction_read_only")).scalar() == "on"
            with pytest.raises(DBAPIError, match="read-only transaction"), engine.begin() as conn:
                conn.execute(text(WRITE))
            with pytest.raises(DBAPIError, match="read-only transaction"), engine.connect() as conn:
                conn.execute(text("CREATE TABLE intruder (x int)"))
        finally:
            engine.dispose()
        assert _tournaments(url) == 0


def _message(url: str) -> str:
    with pytest.raises(StorageError) as caught:
        open_read_only(url)
    return str(caught.value)


def test_unusable_databases_get_one_clear_sentence(tmp_path: Path) -> None:
    missing = tmp_path / "nope.db"
    assert "No arena database at" in _message(sqlite_url(missing)) and "does not exist" in _message(sqlite_url(missing))
    assert not missing.exists()  # never created
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    assert "is not an arena database (it is not an SQLite file)" in _message(sqlite_url(notes))
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE things (x)")
    assert "is not an arena database (it has no arena tables)" in _message(sqlite_url(other))
    old = sqlite_url(tmp_path / "old.db")
    Store.open(old).close()
    with sqlite3.connect(tmp_path / "old.db") as conn:
        conn.execute("UPDATE schema_version SET version = 2")
    assert "schema version 2, older than this arena's" in _message(old)
    with sqlite3.connect(tmp_path / "old.db") as conn:
        conn.execute("UPDATE schema_version SET version = 99")
    assert "schema version 99, newer than this arena's" in _message(old)
    assert "Bad database URL" in _message("not a url://")
    assert "Cannot read the database" in _message("postgresql+psycopg://nobody@127.0.0.1:1/none")
