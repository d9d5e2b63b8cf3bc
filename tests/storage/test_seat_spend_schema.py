"""Schema version 10 (issue 33 item 4): seats carry what their player spent. A version 9
database is upgraded in place, its old seats read as "not measured"."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from arena.storage import Store, sqlite_url
from arena.storage.migrations import CURRENT_VERSION, SEAT_SPEND
from tests.tournaments.test_storage import make_ids, match


def test_a_version_9_database_gains_the_spend_columns_and_keeps_its_seats(
    tmp_path: Path,
) -> None:
    url = sqlite_url(tmp_path / "v9.db")
    store = Store.open(url)
    store.save_matches([match(make_ids(store), "k1")])
    with store.engine.begin() as conn:  # back to version 9: the seats had no spend columns
        for column in SEAT_SPEND:
            conn.execute(text(f"ALTER TABLE seats DROP COLUMN {column}"))
        conn.execute(text("UPDATE schema_version SET version = 9"))
    store.close()

    upgraded = Store.open(url)
    try:
        with upgraded.engine.connect() as conn:
            assert conn.execute(text("SELECT version FROM schema_version")).scalar() == 10
            columns = {r[1] for r in conn.execute(text("PRAGMA table_info(seats)"))}
            rows = conn.execute(text(f"SELECT role, best, {', '.join(SEAT_SPEND)} FROM seats"))
            seats = sorted(tuple(r) for r in rows)
        assert CURRENT_VERSION == 10 and set(SEAT_SPEND) <= columns
        assert seats == [("alice", 1.5, *[None] * 5), ("bob", -1.5, *[None] * 5)]
        costs = {row[0]: row for row in upgraded.seat_spend("t")}
        assert costs["alice"][1:3] == (1, 0)  # one rated seat, its spend not measured
    finally:
        upgraded.close()
