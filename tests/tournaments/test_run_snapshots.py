"""Rating snapshots during a run (issue 18, item 2): `arena run` (and `arena demo`) store
one every few seconds while matches are being stored, so the dashboard's Ratings over time
shows progress inside a run, and one at the end covering every match."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from pathlib import Path

import pytest

from arena.storage import Store, sqlite_url
from arena.storage.snapshots import rating_snapshots
from arena.tournaments.running import run_snapshots
from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx

SLOW = fx.SMALL.replace('player = "sleepy?words=3"', 'player = "sleepy?words=3&delay=0.4"') \
    .replace("maps = 2", "maps = 4").replace("global = 4", "global = 2")


async def test_a_run_stores_snapshots_while_it_plays_and_at_its_end(tmp_path: Path) -> None:
    path = fx.tournament_file(tmp_path, SLOW)
    db = sqlite_url(tmp_path / "s.db")
    summary = await run_file(path, db=db, registry=fx.registry(), snapshot=True,
                             snapshot_every_s=1.0)
    store = Store.open(db)
    try:
        snaps = list(reversed(rating_snapshots(store.engine, "small", limit=100)))
    finally:
        store.close()
    assert summary.written == 24 and summary.status == "done"
    counts = [int(s.payload["matches"]) for s in snaps]
    # At least one inside the run (the pause after one grows to 10 times what it cost),
    # and the final one.
    assert len(snaps) >= 2, counts
    assert counts == sorted(counts) and counts[0] < 24 and counts[-1] == 24
    assert all(s.payload["run_id"] == summary.run_id for s in snaps)
    inside = snaps[0]
    assert {r["participant"] for r in inside.payload["rows"]} <= {"alpha", "beta"}


async def test_without_snapshots_a_run_stores_none(tmp_path: Path) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)
    db = sqlite_url(tmp_path / "n.db")
    await run_file(path, db=db, registry=fx.registry(), snapshot_every_s=0.1)
    store = Store.open(db)
    try:
        assert rating_snapshots(store.engine, "small") == []
    finally:
        store.close()


async def test_leaving_the_ticker_waits_for_a_snapshot_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot's thread cannot be cancelled: a ticker that abandoned it let an older rating
    land after the run's final snapshot (seen in CI as counts 5, 24, 21)."""
    db = sqlite_url(tmp_path / "w.db")
    await run_file(fx.tournament_file(tmp_path, fx.SMALL), db=db, registry=fx.registry())
    counter = itertools.count()
    started = threading.Event()
    real = run_snapshots.snapshot_now

    def slow_snapshot(store: Store, tournament: str) -> int:
        started.set()
        time.sleep(0.3)
        return real(store, tournament)

    monkeypatch.setattr(run_snapshots, "done_matches", lambda store, name: next(counter))
    monkeypatch.setattr(run_snapshots, "snapshot_now", slow_snapshot)
    store = Store.open(db)
    try:
        async with run_snapshots.SnapshotTicker(store, "small", every_s=0.01) as ticker:
            while not started.is_set():
                await asyncio.sleep(0.01)
        assert ticker.stored == 1
        assert len(rating_snapshots(store.engine, "small", limit=10)) == 1
    finally:
        store.close()
