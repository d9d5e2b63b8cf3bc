"""`arena scheduler`: a long-running process that starts recurring tournament runs on time.

- Our `schedules` table is the source of truth, not an APScheduler job store: the service
  reads it at start and every `sync_s` seconds, and adds, re-times or removes its in-memory
  jobs, so schedules added, changed or removed while it runs are picked up, and a restart
  loses nothing.
- One APScheduler job per schedule with `max_instances=1` and `coalesce=True`: while a run
  is going, its schedule's next fire times are skipped (never a second run alongside),
  and fire times missed while busy collapse into one. The next fire time is written to
  the table; a scheduler that finds it passed (none was running then) runs the schedule
  once at start.
- Across processes the schedule's database lease (`arena.tournaments.services.recurring.runner`)
  guards:
  a second scheduler on the same database, or `arena schedule run-now`, skips a schedule
  that is running elsewhere.
- SIGINT/SIGTERM: no new runs start; runs in flight are cancelled (their finished matches
  stay stored, the run is recorded as interrupted, the lease released), then it exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger

from arena.errors import ArenaError
from arena.plugins.registry import Registry
from arena.storage import Store
from arena.storage.schedules import ScheduleRecord
from arena.storage.tables import utcnow
from arena.tournaments.services.recurring.runner import (
    LEASE_S,
    SCHEDULED,
    process_owner,
    run_schedule,
)
from arena.tournaments.services.recurring.schedules import describe_trigger, trigger_for

log = logging.getLogger(__name__)

SYNC_S = 30.0


def _fingerprint(record: ScheduleRecord) -> tuple[object, ...]:
    """What decides a schedule's fire times: a change re-times its job."""
    return (record.cron, record.interval_s, record.args.get("timezone"))


class SchedulerService:
    """Keeps an `AsyncIOScheduler` in step with the schedules table and runs the jobs."""

    def __init__(
        self,
        store: Store,
        registry: Registry,
        *,
        sync_s: float = SYNC_S,
        lease_s: float = LEASE_S,
        owner: str | None = None,
    ) -> None:
        self.store, self.registry = store, registry
        self.sync_s, self.lease_s = sync_s, lease_s
        self.owner = owner or process_owner()
        self._scheduler = AsyncIOScheduler(
            job_defaults={"max_instances": 1, "coalesce": True, "misfire_grace_time": None}
        )
        self._jobs: dict[str, tuple[object, ...]] = {}  # schedule name -> fingerprint
        self._active: set[asyncio.Task[object]] = set()
        self._started = utcnow()

    async def serve(self, stop: asyncio.Event) -> None:
        """Run until `stop` is set, then cancel runs in flight and return."""
        self._scheduler.start()
        log.info("scheduler %s started; reading schedules every %gs", self.owner, self.sync_s)
        try:
            while not stop.is_set():
                try:
                    await self.sync()
                    await self._beat("running")
                except Exception:  # e.g. the database is briefly unreachable: retry later
                    log.exception("could not read the schedules; retrying in %gs", self.sync_s)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.sync_s)
        finally:
            self._scheduler.shutdown(wait=False)
            await self._cancel_runs()
            with contextlib.suppress(Exception):  # the database may be what stopped us
                await self._beat("stopped")
            log.info("scheduler %s stopped", self.owner)

    async def _beat(self, status: str) -> None:
        """This process's heartbeat for dashboards (next fire times are in the schedules)."""
        await self.store.write_scheduler_beat.in_thread(
            self.owner, status=status,
            schedules=len(self._jobs), running=len(self._active), started_at=self._started,
        )

    async def sync(self) -> None:
        """Bring the jobs in line with the schedules table."""
        found = await self.store.schedules.in_thread()
        wanted = {s.name: s for s in found if s.enabled}
        for name in list(self._jobs):
            if name not in wanted:
                self._scheduler.remove_job(name)
                del self._jobs[name]
                log.info("schedule %s removed or disabled", name)
        for name, record in wanted.items():
            fingerprint = _fingerprint(record)
            if self._jobs.get(name) == fingerprint:
                continue
            try:
                trigger = trigger_for(record)
            except ArenaError as error:
                log.error("schedule %s has a bad trigger, skipped: %s", name, error)
                continue
            if name in self._jobs:
                self._scheduler.reschedule_job(name, trigger=trigger)
            else:
                self._add_job(record, trigger)
            self._jobs[name] = fingerprint
            upcoming = getattr(self._scheduler.get_job(name), "next_run_time", None)
            await self.store.note_next_run.in_thread(name, upcoming)
            log.info("schedule %s: %s, next run %s", name, describe_trigger(record), upcoming)

    def _add_job(self, record: ScheduleRecord, trigger: BaseTrigger) -> None:
        """A job for the schedule; it fires at once when a fire time passed while no
        scheduler was running (one catch-up run, however many were missed)."""
        options: dict[str, Any] = {}
        missed = record.next_run_at
        now = datetime.now(UTC)
        if missed is not None and missed.replace(tzinfo=missed.tzinfo or UTC) <= now:
            log.info("schedule %s missed its run at %s; running it now", record.name, missed)
            options["next_run_time"] = now
        self._scheduler.add_job(
            self._fire, trigger, args=[record.name], id=record.name, name=record.name, **options
        )

    def job_names(self) -> list[str]:
        return sorted(self._jobs)

    async def _fire(self, name: str) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._active.add(task)
        try:
            done = await run_schedule(
                self.store, name, registry=self.registry, owner=self.owner,
                trigger=SCHEDULED, lease_s=self.lease_s,
            )
            if done is not None:
                log.info(
                    "schedule %s: run %d %s (%d match(es) stored, seed %d)%s", name, done.id,
                    done.status, done.written, done.seed,
                    f": {done.error}" if done.error else "",
                )
        except asyncio.CancelledError:  # shutdown; the run recorded itself as interrupted
            log.info("schedule %s: run interrupted by shutdown", name)
        except Exception:  # never let one schedule stop the others
            log.exception("schedule %s: run could not start", name)
        finally:
            if task is not None:
                self._active.discard(task)

    async def _cancel_runs(self) -> None:
        await asyncio.sleep(0)  # let the scheduler's shutdown callback run first
        while self._active:
            running = list(self._active)
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
            self._active.difference_update(running)


@contextlib.contextmanager
def _stop_on_signals(stop: asyncio.Event) -> Iterator[None]:
    loop = asyncio.get_running_loop()
    handled = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # e.g. not main thread
            loop.add_signal_handler(sig, stop.set)
            handled.append(sig)
    try:
        yield
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)


async def serve_until_signal(
    db: str | None,
    *,
    registry: Registry,
    sync_s: float = SYNC_S,
    lease_s: float = LEASE_S,
) -> None:
    """Open the database and run the scheduler until SIGINT or SIGTERM."""
    store = Store.open(db)
    try:
        service = SchedulerService(
            store, registry, sync_s=sync_s, lease_s=lease_s
        )
        stop = asyncio.Event()
        with _stop_on_signals(stop):
            await service.serve(stop)
    finally:
        store.close()
