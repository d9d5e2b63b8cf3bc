"""How much one person or one address may ask of the play server: matches started per
minute and at once, new names per minute, open sockets. Each refusal is one sentence that
says how long to wait or what to close."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

MINUTE_S = 60.0


@dataclass(frozen=True)
class Caps:
    """The limits (the organiser sets them with `arena play-server` options)."""

    starts_per_minute: int = 6  # matches one person may start in any minute
    running_per_person: int = 3  # page matches of one person unfinished at once
    running: int = 100  # page matches unfinished at once, everyone's together
    names_per_minute: int = 10  # new names joined from one address in any minute
    sockets: int = 64  # open sockets, all together
    sockets_per_address: int = 16  # open sockets from one address (a quarter of all)
    hello_s: float = 10.0  # a socket that has not said who it is by then is closed


class Window:
    """At most `limit` events per key in any `seconds` (a sliding window). Keys whose
    events have all expired are dropped, so memory follows the active keys only."""

    def __init__(self, limit: int, seconds: float = MINUTE_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.seconds = seconds
        self.clock = clock
        self._events: dict[str, deque[float]] = {}

    def wait(self, key: str) -> float:
        """Seconds until `key` may act again (0 when it may now)."""
        now = self.clock()
        for old in [k for k, q in self._events.items() if q and q[-1] <= now - self.seconds]:
            del self._events[old]
        events = self._events.get(key)
        if events is None:
            return 0.0
        while events and events[0] <= now - self.seconds:
            events.popleft()
        if len(events) < self.limit:
            return 0.0
        return events[0] + self.seconds - now

    def take(self, key: str) -> float:
        """Record one event for `key` if it may act (returns 0), else the wait in seconds
        (nothing recorded)."""
        wait = self.wait(key)
        if wait > 0:
            return wait
        self._events.setdefault(key, deque()).append(self.clock())
        return 0.0


def seconds_text(wait: float) -> str:
    seconds = max(1, math.ceil(wait))
    return f"{seconds} second{'s' if seconds != 1 else ''}"
