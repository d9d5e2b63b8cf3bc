"""Databases the dashboard cannot show get one clear sentence, never a traceback; a
database being written by a running tournament is shown as it is."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.storage import Store, sqlite_url
from tests.dashboard.conftest import OpenApp, no_exception


def only_error(at: object) -> str:
    no_exception(at)  # type: ignore[arg-type]
    errors = [e.value for e in at.error]  # type: ignore[attr-defined]
    assert len(errors) == 1, errors
    return str(errors[0])


def test_a_missing_file(open_app: OpenApp, tmp_path: Path) -> None:
    message = only_error(open_app(url=sqlite_url(tmp_path / "nothing.db")))
    assert "No arena database at" in message and "nothing.db" in message
    assert not (tmp_path / "nothing.db").exists()  # never created by a viewer


def test_a_file_that_is_not_a_database(open_app: OpenApp, tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("just some notes\n", encoding="utf-8")
    assert "is not an arena database" in only_error(open_app(url=sqlite_url(path)))


def test_an_sqlite_file_of_another_program(open_app: OpenApp, tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    assert "is not an arena database" in only_error(open_app(url=sqlite_url(path)))


def test_an_older_schema_version(open_app: OpenApp, tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "old.db")
    Store.open(url).close()
    with sqlite3.connect(tmp_path / "old.db") as conn:
        conn.execute("UPDATE schema_version SET version = 2")
    message = only_error(open_app(url=url))
    assert "schema version 2, older than" in message and "--upgrade" in message
    with sqlite3.connect(tmp_path / "old.db") as conn:  # the viewer did not upgrade it
        assert conn.execute("SELECT version FROM schema_version").fetchone() == (2,)


def test_an_empty_arena_database(open_app: OpenApp, tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "empty.db")
    Store.open(url).close()
    message = only_error(open_app(url=url))
    assert "holds no tournament yet" in message and "arena run" in message


def test_a_database_being_written_is_shown(open_app: OpenApp, arena_db: str) -> None:
    """A tournament holds the write lock (an open write transaction): WAL readers go on."""
    writer = sqlite3.connect(arena_db.removeprefix("sqlite:///"), isolation_level=None)
    try:
        assert writer.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE tournaments SET mode = mode")
        at = open_app("views/matches.py", {"tournament": "nightly"})
        no_exception(at)
        assert not at.error
        assert len(at.dataframe[0].value) == 30
        writer.execute("ROLLBACK")
    finally:
        writer.close()


@pytest.mark.parametrize("tournament", ["no-such-tournament"])
def test_an_unknown_tournament_in_a_link_is_shown_empty_with_the_stored_ones(
    open_app: OpenApp, tournament: str
) -> None:
    """A link names a tournament before its first match (issue 30): it is shown, empty,
    and the sidebar names the stored ones (a typo is seen at once)."""
    at = open_app("views/matches.py", {"tournament": tournament})
    no_exception(at)
    assert at.selectbox(key="f_tournament").value == tournament
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "is stored yet" in said and "nightly" in said and "duel" in said
