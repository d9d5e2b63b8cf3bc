"""The moves waiting for people who play in the browser (`human:web` seats).

A `human:web` player (`arena.players.people.web`) queues each request here under the
person's name; the play server (`arena.dashboard.play`) shows a person their queue and
answers, for a connection holding that person's secret only (the desk trusts its caller
with the name). It lives in the core so both wings reach it without importing each other.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from arena.errors import PlayerError
from arena.protocols.judge import Judge
from arena.protocols.player import MoveRequest
from arena.specs import NAME_RE

MAX_NAME_CHARS = 32


def person_name_problem(name: str) -> str | None:
    """Why `name` cannot be a person's name (on the page, in `human:web?name=`), or None."""
    if not name:
        return "Enter a name, e.g. ada."
    if len(name) > MAX_NAME_CHARS or not NAME_RE.fullmatch(name):
        shown = name[:MAX_NAME_CHARS] + ("…" if len(name) > MAX_NAME_CHARS else "")
        return (f"The name {shown!r} is not allowed: use up to {MAX_NAME_CHARS} letters, "
                "digits, '_', '-' and '.', e.g. ada.")
    return None


@dataclass(eq=False)
class PendingMove:
    """One request waiting for a person. `id` is unguessable: knowing a person's name is
    not enough to answer their moves."""

    id: str
    person: str
    request: MoveRequest
    order: int
    future: asyncio.Future[dict[str, str]] = field(repr=False)
    judge: Judge | None = field(default=None, repr=False)  # the match's, to count tokens


Listener = Callable[[str], None]  # called with the person whose queue changed


class HumanDesk:
    """The moves waiting for people, by person, in the order they were asked."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._pending: dict[str, PendingMove] = {}
        self._listeners: list[Listener] = []
        self._counter = itertools.count()

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(person)` whenever a person's queue changes; returns an undo."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _changed(self, person: str) -> None:
        for listener in list(self._listeners):
            listener(person)

    def waiting(self, person: str) -> list[PendingMove]:
        """The person's moves still to play, oldest first."""
        return sorted(
            (p for p in self._pending.values() if p.person == person), key=lambda p: p.order
        )

    def people(self) -> list[str]:
        return sorted({p.person for p in self._pending.values()})

    async def ask(
        self, person: str, request: MoveRequest, judge: Judge | None = None
    ) -> dict[str, str]:
        """Queue `request` for `person` and wait for their answer (cancellable: a timeout
        takes it off the queue)."""
        pending = PendingMove(
            secrets.token_urlsafe(16), person, request, next(self._counter),
            self.loop.create_future(), judge,
        )
        self._pending[pending.id] = pending
        self._changed(person)
        try:
            return await pending.future
        finally:
            self._pending.pop(pending.id, None)
            self._changed(person)

    def answer(self, person: str, move_id: str, moves: Mapping[str, str]) -> None:
        """Give `person`'s answer to one of their waiting moves. Raises `PlayerError` for a
        move that is not theirs or no longer waiting, or moves for the wrong registers."""
        pending = self._pending.get(move_id)
        if pending is None or pending.person != person or pending.future.done():
            raise PlayerError("That move is no longer waiting (answered, or timed out).")
        wanted = pending.request.registers
        if set(moves) != set(wanted) or not all(isinstance(v, str) for v in moves.values()):
            raise PlayerError(f"Send one text for each of the registers {', '.join(wanted)}.")
        pending.future.set_result({r: moves[r] for r in wanted})


_DESKS: dict[asyncio.AbstractEventLoop, HumanDesk] = {}


def get_desk() -> HumanDesk:
    """The running event loop's desk, created on first use."""
    loop = asyncio.get_running_loop()
    for old in [k for k in _DESKS if k.is_closed()]:
        del _DESKS[old]
    desk = _DESKS.get(loop)
    if desk is None:
        desk = _DESKS[loop] = HumanDesk()
    return desk
