"""A match in flight shows its moves as they happen (issue 18, "Replay as reading"): while
it plays, its live row holds its latest events (moves, rewards, round ends), redacted and
bounded; they go with the row once the match is stored."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.events import ElicitResponse, Event
from arena.plugins.registry import Registry
from arena.storage import Store, sqlite_url
from arena.storage.live import (
    LIVE_CHARS,
    LIVE_EVENTS,
    LIVE_TEXT_CHARS,
    decode_live_events,
    encode_live_events,
    live_match_events,
    matches_in_flight,
)
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.running.executors.engine import run_tournament
from arena.tournaments.running.prepare import prepare_tournament
from tests.tournaments import arena_fixtures as fx

SLOW = """
name = "slow"
judge = "ngram"
npc = "npc"
maps = 1
rounds = 6
seed = 7
[[participants]]
name = "npc"
player = "sleepy?words=2&delay=0.5"
npc_only = true
[[participants]]
name = "alpha"
player = "sleepy?words=3&delay=0.5"
[[games]]
game = "condense.xgl"
"""


async def test_a_match_in_flight_shows_its_moves_until_it_is_stored(tmp_path: Path) -> None:
    registry: Registry = fx.registry()
    path = fx.tournament_file(tmp_path, SLOW)
    prepared = prepare_tournament(load_tournament(path, registry), registry, str(path))
    store = Store.open(sqlite_url(tmp_path / "live.db"))
    try:
        run = asyncio.create_task(run_tournament(
            prepared, registry=registry, judge=registry.create_judge("ngram"), store=store))
        seen: list[tuple[str, tuple[Event, ...]]] = []
        while not run.done():
            await asyncio.sleep(0.2)
            flying = await asyncio.to_thread(matches_in_flight, store.engine, with_events=True)
            for match in flying:
                if any(e.type == "elicit_response" for e in match.events):
                    seen.append((match.key, match.events))
        summary = await run
        assert summary.written >= 1
        assert seen, "no move of a match in flight reached the live state"
        key, events = seen[0]
        moves = [e for e in events if isinstance(e, ElicitResponse)]
        assert moves and all(v for e in moves for v in e.values.values())
        assert live_match_events(store.engine, key) == ()  # stored: its live row is gone
        assert matches_in_flight(store.engine) == []
        assert key in store.done_keys(1)  # the only tournament of this database
        counts = [sum(e.type == "elicit_response" for e in ev) for k, ev in seen if k == key]
        assert counts == sorted(counts) and counts[0] < counts[-1]  # move by move
        assert counts[0] < 6  # seen before the match ended, not only at its end
    finally:
        store.close()


def test_live_events_are_redacted_and_bounded() -> None:
    from arena.events import EVENT_ADAPTER

    secret = "sk-" + "A1b2C3d4" * 6
    event = EVENT_ADAPTER.validate_python({
        "type": "elicit_response", "round": 1, "line": 3, "player": "black",
        "cut": False, "values": {"s": f"key {secret} " + "x" * (LIVE_TEXT_CHARS * 2)},
    })
    text = encode_live_events([event] * (LIVE_EVENTS + 50))
    assert secret not in text
    assert len(text) <= LIVE_CHARS  # long moves: the character budget keeps the newest
    back = decode_live_events(text)
    assert 0 < len(back) < LIVE_EVENTS
    assert all(isinstance(e, ElicitResponse) for e in back)
    assert all(len(v) < LIVE_TEXT_CHARS + 40 for e in back if isinstance(e, ElicitResponse)
               for v in e.values.values())
    short = event.model_copy(update={"values": {"s": "move"}})
    assert len(decode_live_events(encode_live_events([short] * (LIVE_EVENTS + 50)))) \
        == LIVE_EVENTS


def test_a_version_8_database_gains_the_live_events_column(tmp_path: Path) -> None:
    from sqlalchemy import inspect, text

    from arena.storage import create_db_engine
    from arena.storage.migrations import CURRENT_VERSION, schema_version

    url = sqlite_url(tmp_path / "v8.db")
    Store.open(url).close()
    engine = create_db_engine(url)
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE live_matches DROP COLUMN events_json"))
        conn.execute(text("UPDATE schema_version SET version = 8"))
    engine.dispose()
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            assert schema_version(conn) == CURRENT_VERSION == 10
            columns = {c["name"] for c in inspect(conn).get_columns("live_matches")}
        assert "events_json" in columns
    finally:
        store.close()
