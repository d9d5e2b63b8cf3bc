"""The executor's live heartbeat: progress, matches in flight and judge pool health written
to the database (`arena.storage.live`) so a dashboard elsewhere can follow a run.

The executor only updates counters in memory (no I/O on its path); one background task
writes them at most once per `interval_s`, in a worker thread, and only when something
changed, or every `beat_s` regardless so a reader can tell a live run from a killed one.
A failing heartbeat write is logged and retried later: it never stops a run.

A match with a person's seat (`human:web`, the play page) shows its round but none of its
events while it plays: the Live page is the referee's view, and a person who opened the
dashboard must not read there what their own seat does not see (the story their partner
describes). Its events are stored with the match, for the Replay, once it ends.

The heartbeat says the run's phase: making maps (k of N) until the first map is ready, then
playing (maps k of N still counted while the rest are made); the rate and ETA count only the
time since play began (`arena.tournaments.running.progress.MatchClock`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections import deque
from dataclasses import dataclass, replace

from arena.events import Event
from arena.specs import parse_spec
from arena.storage import FinishedMatch, Store
from arena.storage.live import (
    LIVE_EVENTS,
    PLAYING,
    PREPARING,
    MatchInFlight,
    RunProgress,
    judge_health,
)
from arena.storage.records import MATCH_ERROR
from arena.storage.tables import utcnow
from arena.tournaments.planning.pairings import MatchPlan
from arena.tournaments.running.progress import JudgeMetrics, MatchClock

log = logging.getLogger(__name__)

INTERVAL_S = 1.0
BEAT_S = 10.0


@dataclass
class _Counts:
    done: int = 0
    errors: int = 0
    forfeits: int = 0


class LiveReporter:
    """Collects a run's progress; `start()` writes it and starts the writer task, `close()`
    stops the task and writes the final state (call `finish(status)` first)."""

    def __init__(
        self,
        store: Store,
        *,
        run_id: int,
        tournament_id: int,
        total: int,
        done_before: int,
        metrics: JudgeMetrics | None = None,
        interval_s: float = INTERVAL_S,
        beat_s: float = BEAT_S,
    ) -> None:
        self._store = store
        self._run_id, self._tournament_id = run_id, tournament_id
        self._total, self._done_before = total, done_before
        self._metrics = metrics
        self._interval_s, self._beat_s = interval_s, beat_s
        self._counts = _Counts()
        self._in_flight: dict[str, MatchInFlight] = {}
        self._events: dict[str, deque[Event]] = {}  # each match's latest (LIVE_EVENTS)
        self._private: set[str] = set()  # matches with a person's seat: no live events
        self._status = "running"
        self._started_at = utcnow()
        self._clock = MatchClock()
        self._phase = PREPARING
        self._maps = (0, 0)
        self._changed = True
        self._task: asyncio.Task[None] | None = None
        self._failures = 0

    # ------------------------------------------------------------------ executor side

    def preparing(self, done: int, total: int) -> None:
        """`done` of the `total` maps of this run are ready (play may have begun)."""
        self._maps = (done, total)
        self._changed = True

    def playing(self) -> None:
        """A first map is ready: matches start (more maps may follow); the clock starts."""
        self._phase = PLAYING
        self._clock.playing()
        self._changed = True

    def match_started(self, plan: MatchPlan) -> None:
        seats = tuple((s.role, s.participant) for s in plan.seats)
        if any(_is_person(s.spec) for s in plan.seats):
            self._private.add(plan.key)
        self._in_flight[plan.key] = MatchInFlight(
            self._run_id, plan.key, plan.game, seats, 0, plan.rounds, utcnow()
        )
        self._changed = True

    def on_event(self, event: Event, key: str) -> None:
        """Follow a match in flight: its round and its latest events (written with the next
        heartbeat, so at most once per `interval_s`)."""
        found = self._in_flight.get(key)
        if found is None:
            return
        if key not in self._private:
            self._events.setdefault(key, deque(maxlen=LIVE_EVENTS)).append(event)
            self._changed = True
        if event.round > found.round:
            self._in_flight[key] = MatchInFlight(
                found.run_id, found.key, found.game, found.seats, event.round, found.rounds,
                found.started_at,
            )
            self._changed = True

    def match_ended(self, key: str) -> None:
        self._in_flight.pop(key, None)
        self._events.pop(key, None)
        self._private.discard(key)
        self._changed = True

    def stored(self, match: FinishedMatch, written: bool) -> None:
        if written:
            self._counts.done += 1
            self._clock.stored()
            self._counts.errors += match.status == MATCH_ERROR
            self._counts.forfeits += sum(s.forfeit for s in match.seats)
            self._changed = True

    def finish(self, status: str) -> None:
        self._status = status
        self._in_flight.clear()
        self._events.clear()
        self._changed = True

    # ------------------------------------------------------------------ writer task

    async def start(self) -> None:
        await self._write()  # the run shows at once, before maps are made
        self._task = asyncio.create_task(self._loop(), name="arena-live-reporter")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._write()

    async def _loop(self) -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(self._interval_s)
            if self._changed or time.monotonic() - last >= self._beat_s:
                await self._write()
                last = time.monotonic()

    def progress(self) -> RunProgress:
        counts = self._counts
        remaining = max(self._total - self._done_before - counts.done, 0)
        return RunProgress(
            run_id=self._run_id, tournament_id=self._tournament_id, status=self._status,
            total=self._total, done_before=self._done_before, done=counts.done,
            errors=counts.errors, forfeits=counts.forfeits, in_flight=len(self._in_flight),
            matches_per_min=60.0 * self._clock.per_s(), eta_s=self._clock.eta_s(remaining),
            host=socket.gethostname(), pid=os.getpid(), started_at=self._started_at,
            phase=self._phase, maps_done=self._maps[0], maps_total=self._maps[1],
        )

    async def _write(self) -> None:
        self._changed = False
        progress = self.progress()
        flying = [replace(m, events=tuple(self._events.get(k, ()))) for k, m in
                  self._in_flight.items()]
        judge = None
        if self._metrics is not None:
            try:
                judge = judge_health(self._run_id, self._metrics())
            except Exception:  # statistics are a nicety; never let them stop a run
                judge = None
        try:
            await self._store.write_live.in_thread(progress, flying, judge)
        except Exception as error:  # e.g. the database is busy past its timeout
            self._changed = True
            self._failures += 1
            if self._failures == 1:
                log.warning("could not write the run's live progress (will retry): %s", error)


def _is_person(spec: str) -> bool:
    """Whether a seat is played by a person in the browser (`human:web?name=...`)."""
    parsed = parse_spec(spec)
    return parsed.name == "human" and parsed.arg == "web"
