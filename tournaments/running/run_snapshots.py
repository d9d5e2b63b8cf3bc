"""Rating snapshots while a tournament runs, so the dashboard's Ratings over time shows
progress inside a long run and its Leaderboard has intervals to show before the run ends.

`SnapshotTicker` stores a snapshot (`arena.tournaments.records.rating_store.store_snapshot`, the
same
as after a run) every `every_s` seconds when matches were stored since the last one. Rating
over many matches takes a while, so the pause grows to `COST_FACTOR` times the last
snapshot's duration: snapshots never take more than a small share of the run's CPU. A
failing snapshot is logged and never stops the run. Leaving the ticker waits for a snapshot in
flight (its thread cannot be cancelled), so the run's final snapshot is always the last one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from types import TracebackType

from arena.errors import ArenaError
from arena.storage import Store

log = logging.getLogger(__name__)

EVERY_S = 30.0
COST_FACTOR = 10.0
NO_SNAPSHOT = "no rating snapshot for this run"


def store_final_snapshot(store: Store, tournament: str, run_id: int) -> tuple[str, ...]:
    """Ratings over every match stored so far, after a run; a failure is returned as a note
    (the run still counts)."""
    from arena.tournaments.records.rating_store import store_snapshot

    try:
        store_snapshot(store, tournament, run_id=run_id)
    except ArenaError as error:
        return (f"{NO_SNAPSHOT}: {error}",)
    return ()


def done_matches(store: Store, tournament: str) -> int:
    return store.match_counts(tournament).get("done", 0)


def snapshot_now(store: Store, tournament: str) -> int:
    """Store a snapshot of `tournament` attributed to its running run (if any); its id."""
    from arena.tournaments.records.rating_store import store_snapshot

    running = store.live_runs(running_only=True, tournament=tournament, limit=1)
    run_id = running[0].progress.run_id if running else None
    return store_snapshot(store, tournament, run_id=run_id)


class SnapshotTicker:
    """`async with SnapshotTicker(store, name):` around a run stores snapshots during it."""

    def __init__(self, store: Store, tournament: str, every_s: float = EVERY_S) -> None:
        self._store, self._tournament = store, tournament
        self._every_s = every_s
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self.stored = 0  # snapshots stored so far

    async def __aenter__(self) -> SnapshotTicker:
        self._task = asyncio.create_task(self._loop(), name="arena-snapshot-ticker")
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        # Not `cancel()`: that would abandon a snapshot's thread, which could then store an
        # older rating after the run's final snapshot.
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _paused(self, seconds: float) -> bool:
        """Wait `seconds` or until the run ends; True when it ended."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), seconds)
        return self._stop.is_set()

    async def _loop(self) -> None:
        pause = self._every_s
        seen = await asyncio.to_thread(done_matches, self._store, self._tournament)
        while not await self._paused(pause):
            try:
                count = await asyncio.to_thread(done_matches, self._store, self._tournament)
                if count == seen:
                    continue
                began = time.monotonic()
                await asyncio.to_thread(snapshot_now, self._store, self._tournament)
                seen = count
                self.stored += 1
                pause = max(self._every_s, COST_FACTOR * (time.monotonic() - began))
            except Exception as error:  # a snapshot is a nicety during a run
                log.warning("could not store a rating snapshot during the run: %s", error)
                pause = max(pause, self._every_s)
