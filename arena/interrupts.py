"""Stopping a long command politely: SIGTERM (what `kill`, systemd, Docker and CI runners
send) is handled exactly like Ctrl-C, so a stopped run keeps its finished matches and is
marked interrupted instead of dying half-way like under `kill -9`."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


def _as_ctrl_c(_signum: int, _frame: FrameType | None) -> None:
    # Whoever handles SIGINT now (asyncio.run cancels its main task, else Python raises
    # KeyboardInterrupt) handles this too.
    signal.raise_signal(signal.SIGINT)


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
