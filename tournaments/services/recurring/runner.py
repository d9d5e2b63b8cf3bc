"""One run of a recurring schedule, from the scheduler or `arena schedule run-now`.

1. Take the schedule's database lease (`arena.storage.schedule_runs`); when another process
   holds it, nothing runs (`None` is returned): two processes never run one schedule at
   once. The lease is renewed while the run lasts and released at the end.
2. Pick the run's seed (`recurring` module docstring): a run that did not finish is resumed
   with its own seed; otherwise a fresh seed, or the file's with `seeds = "fixed"`.
3. Play the tournament file with that seed into the database, then store a rating snapshot
   over all the tournament's matches (`arena.tournaments.records.rating_store.store_snapshot`, so
   ratings accumulate across runs), and record the run (start, finish, status).

A failing run is recorded as `failed` with its error and does not raise, so one broken
schedule never stops the scheduler; cancellation (shutdown) records `interrupted`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.plugins.registry import Registry
from arena.redaction import redact
from arena.runtime.seeds import derive_seed
from arena.storage import Store
from arena.storage.schedule_runs import ScheduleRunRecord
from arena.storage.schedules import ScheduleRecord
from arena.storage.tables import utcnow
from arena.tournaments.planning.config import TournamentConfig, load_tournament
from arena.tournaments.records.rating_store import store_snapshot
from arena.tournaments.running.executors.engine import STOPPED, RunSummary
from arena.tournaments.services.recurring.schedules import find_schedule, next_run_time
from arena.tournaments.services.run_config import play_config

log = logging.getLogger(__name__)

LEASE_S = 60.0  # a killed holder blocks its schedule for at most this long
SCHEDULED, MANUAL = "scheduled", "manual"
DONE = "done"


def process_owner() -> str:
    """A name for this process in leases: host, pid and a random token."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def run_seed(base: int, policy: str, previous: Sequence[ScheduleRunRecord]) -> int:
    """The seed of the next run: the file's seed for the first run and with policy
    'fixed'; the last run's seed when it did not finish (resume it); else a new one."""
    if policy == "fixed" or not previous:
        return base
    last = previous[-1]
    if last.status != DONE:
        return last.seed
    done = sum(r.status == DONE for r in previous)
    return derive_seed("recurring", base, done)


@dataclass(frozen=True)
class _Plan:
    config: TournamentConfig
    seed: int


def _plan(store: Store, record: ScheduleRecord) -> _Plan:
    config = load_tournament(record.tournament_file, db=store)
    previous = store.schedule_runs(record.name)
    seed = run_seed(config.seed, str(record.args.get("seeds", "fresh")), previous)
    return _Plan(config.model_copy(update={"seed": seed}), seed)


@contextlib.asynccontextmanager
async def _leased(store: Store, name: str, owner: str, lease_s: float) -> AsyncIterator[bool]:
    """Hold the schedule's lease (renewed in the background) for the block; yields False
    without running anything when another process holds it."""
    if not await store.acquire_lease.in_thread(name, owner, lease_s):
        yield False
        return

    async def renew() -> None:
        while True:
            await asyncio.sleep(lease_s / 3)
            if not await store.renew_lease.in_thread(name, owner, lease_s):
                log.warning("schedule %s: lost its lease while running", name)

    renewing = asyncio.create_task(renew())
    try:
        yield True
    finally:
        renewing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewing
        await asyncio.shield(store.release_lease.in_thread(name, owner))


async def run_schedule(
    store: Store,
    name: str,
    *,
    registry: Registry,
    owner: str,
    trigger: str = SCHEDULED,
    lease_s: float = LEASE_S,
) -> ScheduleRunRecord | None:
    """Run schedule `name` once unless another process is running it (then None); returns
    the stored record of the run. `UnknownNameError` when there is no such schedule."""
    record = await asyncio.to_thread(find_schedule, store, name)
    async with _leased(store, name, owner, lease_s) as held:
        if not held:
            log.info("schedule %s: already running in another process; not started", name)
            return None
        return await _run(store, record, registry, owner, trigger)
    return None  # for type checkers: the block above always returns


async def _run(
    store: Store, record: ScheduleRecord, registry: Registry, owner: str, trigger: str
) -> ScheduleRunRecord:
    name = record.name
    started = utcnow()
    try:
        plan = await asyncio.to_thread(_plan, store, record)
    except ArenaError as error:  # e.g. the file was edited into a broken state
        run_id = await store.start_schedule_run.in_thread(name, owner, trigger, 0)
        await store.finish_schedule_run.in_thread(run_id, "failed", error=str(error))
        return await _stored(store, run_id)
    run_id = await store.start_schedule_run.in_thread(name, owner, trigger, plan.seed)
    log.info("schedule %s: run %d started (seed %d)", name, run_id, plan.seed)
    summary: RunSummary | None = None
    try:
        concurrency = record.args.get("concurrency")
        summary = await play_config(
            plan.config, store, registry, concurrency=int(concurrency) if concurrency else None,
            source=record.tournament_file,
        )
        snapshot = await asyncio.to_thread(
            store_snapshot, store, plan.config.name, run_id=summary.run_id
        )
        status = (DONE if summary.status in ("done", STOPPED) and not summary.errors
                  else "incomplete")
        await store.finish_schedule_run.in_thread(
            run_id, status, tournament_run_id=summary.run_id,
            snapshot_id=snapshot, written=summary.written,
        )
    except asyncio.CancelledError:
        await asyncio.shield(store.finish_schedule_run.in_thread(run_id, "interrupted"))
        raise
    except Exception as error:  # recorded; the scheduler goes on with other runs
        log.exception("schedule %s: run %d failed", name, run_id)
        text = redact(f"{type(error).__name__}: {error}")
        await store.finish_schedule_run.in_thread(
            run_id, "failed",
            tournament_run_id=None if summary is None else summary.run_id, error=text,
        )
    finished = utcnow()
    await store.mark_schedule_run.in_thread(name, started, next_run_time(record, finished))
    return await _stored(store, run_id)


async def _stored(store: Store, run_id: int) -> ScheduleRunRecord:
    (found,) = await store.schedule_runs.in_thread(run_id=run_id)
    return found
