"""The HF judge's sampling queue: rows from concurrent `generate` calls, drawn in blocks.

Every caller's rows join one queue (a tournament prepares many maps at once, each map its
own call). A dispatcher forms blocks (`arena.judges.hf.sampling.plan_blocks`'s rule: rows of
one prompt length, first come first drawn) and runs each on a free slot: a CPU replica has
one slot per sampling lane, a GPU one slot. A block that is not full waits up to `gather_s`
after its oldest row arrived for company, then runs as it is: a block costs about the same
with 1 row as with 16, so a short wait for rows already on their way is cheap. Which rows
share a block never changes a row's tokens (see `arena.judges.hf.sampling`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field

from arena.judges.hf.sampling import SAMPLE_ROWS, SampleRow

# Seconds a partial block waits for more rows (concurrent map preparations arrive within a
# few milliseconds of each other; one block of the bundled judge takes ~0.3 s).
GATHER_S = 0.02

# Draws a block's rows on a slot: runs in the slot's executor, returns each row's tokens.
BlockRunner = Callable[[Sequence[SampleRow]], list[list[int]]]


@dataclass
class SampleSlots:
    """Where blocks run: `executor` with room for `capacity` blocks at once, and the work."""

    executor: Executor
    capacity: int
    run: BlockRunner
    busy: int = 0


@dataclass(eq=False)
class _Waiting:
    row: SampleRow
    future: asyncio.Future[list[int]]
    arrived: float = field(default_factory=time.monotonic)


class _LoopQueue:
    """The queue and dispatcher of one event loop (a judge may serve several in turn)."""

    def __init__(
        self, slots: Sequence[SampleSlots], width: int, gather_s: float, stats: dict[str, int]
    ) -> None:
        self.slots, self.width, self.gather_s, self.stats = slots, width, gather_s, stats
        self.waiting: list[_Waiting] = []
        self.changed = asyncio.Event()
        self.dispatcher: asyncio.Task[None] | None = None
        self.blocks: set[asyncio.Task[None]] = set()

    def submit(self, rows: Sequence[SampleRow]) -> list[asyncio.Future[list[int]]]:
        loop = asyncio.get_running_loop()
        items = [_Waiting(r, loop.create_future()) for r in rows]
        self.waiting.extend(items)
        self.changed.set()
        if self.dispatcher is None or self.dispatcher.done():
            self.dispatcher = loop.create_task(self._dispatch(), name="judge-sampling")
        return [i.future for i in items]

    async def _dispatch(self) -> None:
        while True:
            self.waiting = [w for w in self.waiting if not w.future.done()]  # cancelled callers
            if not self.waiting:
                return
            free = [s for s in self.slots if s.busy < s.capacity]
            if not free:
                await self._wait(None)
                continue
            oldest = len(self.waiting[0].row.prompt_ids)
            block = [w for w in self.waiting if len(w.row.prompt_ids) == oldest][: self.width]
            left = self.waiting[0].arrived + self.gather_s - time.monotonic()
            if len(block) < self.width and left > 0:
                await self._wait(left)
                continue
            taken = set(map(id, block))
            self.waiting = [w for w in self.waiting if id(w) not in taken]
            slot = min(free, key=lambda s: s.busy / s.capacity)
            slot.busy += 1
            self.stats["blocks"] += 1
            self.stats["rows"] += len(block)
            task = asyncio.get_running_loop().create_task(self._run(slot, block))
            self.blocks.add(task)
            task.add_done_callback(self.blocks.discard)

    async def _wait(self, timeout: float | None) -> None:
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout)

    async def _run(self, slot: SampleSlots, block: list[_Waiting]) -> None:
        rows = [w.row for w in block]
        try:
            tokens = await asyncio.get_running_loop().run_in_executor(
                slot.executor, slot.run, rows
            )
        except Exception as error:
            for w in block:
                if not w.future.done():
                    w.future.set_exception(error)
        else:
            for w, ids in zip(block, tokens, strict=True):
                if not w.future.done():
                    w.future.set_result(ids)
        finally:
            slot.busy -= 1
            self.changed.set()


class SampleQueue:
    """`draw(rows)`: each row's tokens, drawn in blocks with the rows of concurrent calls."""

    def __init__(
        self, slots: Sequence[SampleSlots], width: int = SAMPLE_ROWS, gather_s: float = GATHER_S
    ) -> None:
        self._slots, self._width, self._gather_s = list(slots), width, gather_s
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopQueue] = (
            weakref.WeakKeyDictionary()
        )
        self.stats = {"blocks": 0, "rows": 0}  # blocks run, and the real rows in them

    async def draw(self, rows: Sequence[SampleRow]) -> list[list[int]]:
        if not rows:
            return []
        loop = asyncio.get_running_loop()
        queue = self._queues.get(loop)
        if queue is None:
            queue = self._queues[loop] = _LoopQueue(
                self._slots, self._width, self._gather_s, self.stats
            )
        futures = queue.submit(rows)
        try:
            return [await f for f in futures]
        finally:  # a cancelled caller's rows leave the queue (a running block finishes)
            for f in futures:
                f.cancel()
