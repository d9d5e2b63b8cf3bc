"""Stopping a long command politely: SIGTERM (what `kill`, systemd, Docker and CI runners
send) is handled exactly like Ctrl-C, so a stopped run keeps its finished matches and is
marked interrupted instead of dying half-way like under `kill -9`.

This must hold even where SIGINT is ignored: a shell script's background job (`cmd &`)
starts with SIGINT ignored, so forwarding SIGTERM to the SIGINT handler would do nothing,
and `asyncio.run` only cancels its main task on SIGINT when SIGINT has Python's default
handler. Hence `run_stoppable`, which every long-running command uses instead of
`asyncio.run`: it cancels the main task on SIGTERM always, and on SIGINT unless SIGINT is
ignored (Ctrl-C in the script's terminal keeps not reaching its background jobs, as the
shell intends)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Coroutine, Iterator
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")


def _as_ctrl_c(_signum: int, frame: FrameType | None) -> None:
    # Whoever handles Ctrl-C now (Python's default raises KeyboardInterrupt) handles this
    # too; with SIGINT ignored or left to the OS, raise KeyboardInterrupt ourselves.
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM behaves like Ctrl-C (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _as_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Stopper:
    """The first stop signal cancels the main task (it cleans up, then the run raises
    KeyboardInterrupt); a second one raises KeyboardInterrupt at once, as Ctrl-C twice does
    under `asyncio.run`."""

    def __init__(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
        self.loop, self.task, self.signals = loop, task, 0

    def __call__(self, _signum: int, _frame: FrameType | None) -> None:
        self.signals += 1
        if self.signals == 1 and not self.task.done():
            self.task.cancel()
            self.loop.call_soon_threadsafe(lambda: None)  # wake a loop asleep in select()
            return
        raise KeyboardInterrupt


@contextlib.contextmanager
def _handled(signals: list[signal.Signals], handler: Callable[[int, FrameType | None], None]
             ) -> Iterator[None]:
    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def run_stoppable(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` that SIGTERM stops like Ctrl-C in every case: the main task is
    cancelled, its cleanup runs, then KeyboardInterrupt is raised. SIGINT does the same
    unless it was ignored when the command started."""
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(main)
    with asyncio.Runner() as runner:
        loop = runner.get_loop()
        task = loop.create_task(main)
        stop = _Stopper(loop, task)
        signals = [signal.SIGTERM]
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signals.append(signal.SIGINT)
        with _handled(signals, stop):
            try:
                return loop.run_until_complete(task)
            except asyncio.CancelledError:
                if stop.signals and task.uncancel() == 0:
                    raise KeyboardInterrupt from None
                raise


def raise_if_cancelled() -> None:
    """In long synchronous work inside a running task (reading a large file in the event
    loop), stop at once when the task was asked to stop: SIGTERM cancels the main task
    (`run_stoppable`), but a cancel only lands at the next `await`. Outside a task: no-op."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no running event loop
        return
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
