"""One writer for many concurrent matches.

Matches finish on the event loop; `MatchWriter.submit` queues them and a single writer
task stores them in a worker thread, several per transaction when they pile up. One
writer per process means matches never contend for the database lock with each other;
other processes wait on the busy timeout. The event loop never blocks on the database.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from types import TracebackType

from arena.storage.engine import StorageError
from arena.storage.records import MATCH_ERROR, FinishedMatch
from arena.storage.repo import Store

WrittenCallback = Callable[[FinishedMatch, bool], None]


class MatchWriter:
    """Async context manager: `submit()` finished matches; leaving the context (also on
    cancellation) stores every match already submitted, then stops the writer."""

    def __init__(
        self, store: Store, *, max_batch: int = 64, on_written: WrittenCallback | None = None
    ) -> None:
        self._store = store
        self._max_batch = max_batch
        self._on_written = on_written
        self._queue: asyncio.Queue[FinishedMatch | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None
        self.written = 0
        self.skipped = 0  # already stored as done under the same key
        self.transactions = 0
        self._submitted = 0
        self._handled = 0  # submitted matches stored (or found stored) so far
        self._progress = asyncio.Condition()

    async def __aenter__(self) -> MatchWriter:
        self._task = asyncio.create_task(self._run(), name="arena-match-writer")
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def submit(self, match: FinishedMatch) -> None:
        """Queue a finished match for storage (returns at once)."""
        if self._failure is not None:
            raise StorageError(f"Storing matches failed: {self._failure}") from self._failure
        if self._task is None or self._task.done():
            raise StorageError("The match writer is not running; use `async with MatchWriter`.")
        self._queue.put_nowait(match)
        self._submitted += 1

    async def flush(self) -> None:
        """Wait until every match submitted so far is stored (a run that picks its next
        matches from what is stored reads them all); raises if storing failed."""
        target = self._submitted
        async with self._progress:
            await self._progress.wait_for(
                lambda: self._handled >= target or self._failure is not None
                or self._task is None or self._task.done()
            )
        if self._failure is not None:
            raise StorageError(f"Storing matches failed: {self._failure}") from self._failure

    async def close(self) -> None:
        """Store everything submitted so far and stop; raises if storing failed."""
        task = self._task
        if task is not None and not task.done():
            self._queue.put_nowait(None)
            await asyncio.shield(task)
        if self._failure is not None:
            raise StorageError(f"Storing matches failed: {self._failure}") from self._failure

    async def _run(self) -> None:
        stopping = False
        while not stopping:
            item = await self._queue.get()
            batch: list[FinishedMatch] = []
            if item is None:
                stopping = True
            else:
                batch.append(item)
            while not stopping and len(batch) < self._max_batch and not self._queue.empty():
                extra = self._queue.get_nowait()
                if extra is None:
                    stopping = True
                else:
                    batch.append(extra)
            if not batch:
                continue
            try:
                results = await asyncio.to_thread(self._save, batch)
            except Exception as error:  # the database is unusable: stop taking matches
                self._failure = error
                await self._progressed(0)
                return
            for match, stored in results:
                if stored:
                    self.written += 1
                else:
                    self.skipped += 1
                if self._on_written is not None:
                    self._on_written(match, stored)
            await self._progressed(len(results))

    async def _progressed(self, handled: int) -> None:
        async with self._progress:
            self._handled += handled
            self._progress.notify_all()

    def _save(self, batch: Sequence[FinishedMatch]) -> list[tuple[FinishedMatch, bool]]:
        """In the worker thread: the batch in one transaction, or match by match when the
        batch fails, so one bad record costs only itself (stored as an error). Each match
        comes back as stored: a match stored as an error is reported as one (and counted
        in the run's summary)."""
        try:
            self.transactions += 1
            return list(zip(batch, self._store.save_matches(batch), strict=True))
        except Exception:
            if len(batch) == 1 and batch[0].status == MATCH_ERROR and not batch[0].events:
                raise
        results = []
        for match in batch:
            self.transactions += 1
            try:
                results.append((match, self._store.save_match(match)))
            except Exception as error:
                reason = f"storing the match failed: {type(error).__name__}: {error}"
                bare = dataclasses.replace(
                    match,
                    status=MATCH_ERROR,
                    error=reason.encode("utf-8", "backslashreplace").decode("utf-8"),
                    events=(),
                )
                results.append((bare, self._store.save_match(bare)))
        return results
