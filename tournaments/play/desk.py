"""The moves waiting for people who play in the browser (`human:web` seats): the play
server's `PeopleDesk`.

The server keeps one desk and lends it, with a note on the match (`HumanDesk.lend`), to the
players of every run it starts (`Registry.with_desk`, so it reaches a `human:web` player in
its `PlayerContext`); a player queues each request here under the person's name, and the
server shows a person their queue and answers, for a connection holding that person's
secret only (the desk trusts its caller with the name). One desk per server: a person sees
one queue across all their matches.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from arena.errors import PlayerError
from arena.protocols.judge import Judge
from arena.protocols.people import PeopleDesk
from arena.protocols.player import MoveRequest


@dataclass(frozen=True)
class MatchNote:
    """What the page may say about the match a move belongs to (nothing of its map's
    seed or story): the server's number for a page match (0 for a tournament file's), its
    tournament, who plays the other seats, and the seconds a move may take."""

    number: int = 0
    tournament: str = ""
    opponents: Mapping[str, str] = field(default_factory=dict)  # role -> player spec
    timeout_s: float | None = None
    new_map: bool = False  # a page match: a map drawn for it, new to everyone


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
    note: MatchNote = field(default_factory=MatchNote)
    asked_at: float = field(default_factory=time.monotonic)

    def seconds_left(self, now: float | None = None) -> float | None:
        """Seconds until the move times out (None: no timeout)."""
        if self.note.timeout_s is None:
            return None
        spent = (time.monotonic() if now is None else now) - self.asked_at
        return max(0.0, self.note.timeout_s - spent)


Listener = Callable[[str], None]  # called with the person whose queue changed


class HumanDesk:
    """The moves waiting for people, by person, in the order they were asked."""

    def __init__(self) -> None:
        self._pending: dict[str, PendingMove] = {}
        self._listeners: list[Listener] = []
        self._counter = itertools.count()

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(person)` whenever a person's queue changes; returns an undo."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def lend(self, note: MatchNote) -> PeopleDesk:
        """This desk as the players of one run see it: their moves carry `note`."""
        return _LentDesk(self, note)

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
        self, person: str, request: MoveRequest, judge: Judge | None = None,
        note: MatchNote | None = None,
    ) -> dict[str, str]:
        """Queue `request` for `person` and wait for their answer (cancellable: a timeout
        takes it off the queue)."""
        pending = PendingMove(
            secrets.token_urlsafe(16), person, request, next(self._counter),
            asyncio.get_running_loop().create_future(), judge, note or MatchNote(),
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


class _LentDesk:
    """The desk lent to one run's players: each move it queues carries the run's note."""

    def __init__(self, desk: HumanDesk, note: MatchNote) -> None:
        self._desk, self._note = desk, note

    async def ask(
        self, person: str, request: MoveRequest, judge: Judge | None = None
    ) -> dict[str, str]:
        return await self._desk.ask(person, request, judge, self._note)
