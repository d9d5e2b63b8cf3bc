"""The Live page reads the heartbeats a running tournament writes to the database."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from arena.storage import Store, sqlite_url
from arena.storage.live import MatchInFlight, RunProgress, judge_health, write_live
from arena.storage.match_keys import short_key
from tests.dashboard.conftest import OpenApp, no_exception
from tests.dashboard.fixture_db import XSS_MOVE


def copy_db(url: str, directory: Path) -> str:
    source = Path(url.removeprefix("sqlite:///"))
    with sqlite3.connect(source) as conn:  # fold the WAL into the file before copying it
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copy(source, directory / "live.db")
    return sqlite_url(directory / "live.db")


def test_a_running_tournament_shows_progress_in_flight_and_judge_health(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    url = copy_db(arena_db, tmp_path)
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            run_id, tournament_id = conn.exec_driver_sql(
                "SELECT r.id, r.tournament_id FROM runs r JOIN tournaments t ON "
                "t.id = r.tournament_id WHERE t.name = 'nightly' ORDER BY r.id DESC LIMIT 1").one()
        progress = RunProgress(run_id=run_id, tournament_id=tournament_id, status="running",
                               total=40, done_before=15, done=9, errors=1, forfeits=2,
                               in_flight=1, matches_per_min=12.5, eta_s=75.0, host="box",
                               pid=4242, started_at=datetime.now(UTC))
        flight = MatchInFlight(run_id=run_id, key="k1", game="hidden",
                               seats=(("alice", XSS_MOVE), ("bob", "npc")), round=1, rounds=2,
                               started_at=datetime.now(UTC))
        health = judge_health(run_id, {"requests": 100.0, "cache_hits": 25.0,
                                       "queue_depth": 3.0, "mean_batch_size": 7.5,
                                       "tokens_per_s": 900.0, "batches": 12.0})
        write_live(store.engine, progress, [flight], health)
    finally:
        store.close()
    at = open_app(None, {"tournament": "nightly"}, url=url)  # Live is the default page
    no_exception(at)
    assert at.title[0].value == "Live"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Finished"] == "24/40" and metrics["ETA"] == "1m15s"
    assert metrics["Errors"] == "1" and metrics["Forfeits"] == "2"
    assert at.toggle(key="live_paused").value is False
    tables = [d.value for d in at.dataframe]
    flight_table = next(t for t in tables if "elapsed_s" in t.columns)
    assert flight_table.iloc[0]["round"] == "1/2"
    assert XSS_MOVE in flight_table.iloc[0]["seats"]  # a name shown as a cell, not markup
    assert flight_table.iloc[0]["follow"].startswith("replay?") and "key=k1" in \
        flight_table.iloc[0]["follow"]
    judge = next(t for t in tables if "cache_hit_rate" in t.columns)
    assert judge.iloc[0]["cache_hit_rate"] == 0.25 and judge.iloc[0]["queue_depth"] == 3
    at.toggle(key="live_paused").set_value(True).run()
    no_exception(at)
    assert any("(paused)" in c.value for c in at.caption)


def test_no_running_tournament_says_how_to_start_one(open_app: OpenApp) -> None:
    at = open_app("views/live.py", {"tournament": "nightly"})
    no_exception(at)
    assert any("No tournament is running now" in i.value for i in at.info)


def test_the_replay_follows_a_match_in_flight_and_opens_a_stored_one(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    url = copy_db(arena_db, tmp_path)
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            run_id, tournament_id = conn.exec_driver_sql(
                "SELECT id, tournament_id FROM runs ORDER BY id DESC LIMIT 1").one()
            stored_key = conn.exec_driver_sql("SELECT key FROM matches ORDER BY id").scalar()
        progress = RunProgress(run_id=run_id, tournament_id=tournament_id, status="running",
                               total=5, done_before=4)
        flight = MatchInFlight(run_id=run_id, key="in-flight-key", game="zerosum",
                               seats=(("black", "alpha"), ("white", "beta")), round=2,
                               rounds=3, started_at=datetime.now(UTC))
        write_live(store.engine, progress, [flight])
    finally:
        store.close()
    at = open_app("views/replay.py", {"key": "in-flight-key"}, url=url)
    no_exception(at)
    assert any("being played" in i.value for i in at.info)
    assert at.dataframe[0].value.iloc[0]["round"] == "2/3"
    at = open_app("views/replay.py", {"key": stored_key}, url=url)
    no_exception(at)
    # the stored match opens under its short key (arena matches shows the same)
    assert at.query_params["match"] == short_key(str(stored_key)) and "key" not in at.query_params
    at = open_app("views/replay.py", {"key": "never-played"}, url=url)
    assert any("No match with this key" in w.value for w in at.warning)


def test_the_replay_shows_the_moves_of_a_match_in_flight(
    open_app: OpenApp, arena_db: str, tmp_path: Path
) -> None:
    from arena.events import EVENT_ADAPTER

    url = copy_db(arena_db, tmp_path)
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            found = conn.exec_driver_sql(
                "SELECT id, tournament_id FROM runs ORDER BY id DESC").first()
        assert found is not None
        run_id, tournament_id = found
        progress = RunProgress(run_id=run_id, tournament_id=tournament_id, status="running",
                               total=5, done_before=4)
        move = EVENT_ADAPTER.validate_python({
            "type": "elicit_response", "round": 1, "line": 2, "player": "black", "cut": False,
            "values": {"t": "a move played just now"}})
        flight = MatchInFlight(run_id=run_id, key="in-flight-key", game="zerosum",
                               seats=(("black", "alpha"), ("white", "beta")), round=1,
                               rounds=3, started_at=datetime.now(UTC), events=(move,))
        write_live(store.engine, progress, [flight])
    finally:
        store.close()
    at = open_app("views/replay.py", {"key": "in-flight-key"}, url=url)
    no_exception(at)
    assert any("referee view only" in i.value for i in at.info)
    cells = [str(v) for d in at.dataframe for v in d.value.to_numpy().ravel()]
    assert "a move played just now" in cells
    assert all(s.label != "View as" for s in at.selectbox)  # no seat view in flight
