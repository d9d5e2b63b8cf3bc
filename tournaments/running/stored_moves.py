"""Playing a stored match again from its transcript (`arena rescore`): every seat answers
with the moves it made then, and no player is ever called.

A match's transcript holds each move as its `ElicitResponse` (the move as stored, after
cutting), in order, with the round and line of the elicit and, on the `ElicitRequest` before
it, the attempt (a retry after a failed `ensure` is attempt 2, ...). Played again under
another judge, the game runs by its own rules, so the same request may not come in the same
place:

- the first attempt at an elicit takes the seat's next stored first attempt at that line in
  that round (stored retries the new judge no longer asks for are passed over);
- a retry takes the next stored move only when it is that retry of that elicit;
- where nothing is stored (the seat forfeited there, or the new judge fails an `ensure` the
  old one passed), the seat has no move: it forfeits, as the rules say of a seat that gives
  none (`NO_STORED_MOVE` in the reason).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from arena.errors import PermanentPlayerError
from arena.events import ElicitRequest, ElicitResponse, Event, RoundStarted
from arena.protocols.player import MoveRequest

NO_STORED_MOVE = "no stored move for this request (rescoring never calls a player)"


@dataclass(frozen=True)
class StoredMove:
    round: int
    line: int
    attempt: int
    values: Mapping[str, str]


def stored_moves(events: Iterable[Event]) -> dict[str, list[StoredMove]]:
    """Each role's moves, in the order it made them."""
    attempt: dict[str | None, int] = {}
    found: dict[str, list[StoredMove]] = defaultdict(list)
    for event in events:
        if isinstance(event, ElicitRequest):
            attempt[event.player] = event.attempt
        elif isinstance(event, ElicitResponse) and event.player is not None:
            found[event.player].append(
                StoredMove(event.round, event.line, attempt.get(event.player, 1),
                           dict(event.values))
            )
    return dict(found)


@dataclass
class RoundClock:
    """The round being played, followed from the match's events (an NPC's requests say
    round 1 in every round: it plays without memory)."""

    round: int = 1

    def __call__(self, event: Event) -> None:
        if isinstance(event, RoundStarted):
            self.round = event.round


@dataclass
class StoredMovesPlayer:
    """A seat that plays back `moves` (module docstring)."""

    role: str
    moves: list[StoredMove]
    clock: RoundClock
    name: str = "stored-moves"
    _next: dict[int, int] = field(default_factory=dict)  # round -> index of the next move

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        now = self.clock.round
        start = self._next.get(now, 0)
        if request.attempt == 1:
            chosen = next(
                (i for i in range(start, len(self.moves))
                 if self.moves[i].round == now and self.moves[i].line == request.line
                 and self.moves[i].attempt == 1),
                None,
            )
        else:  # a retry: only the stored retry that comes right after the last move played
            here = self.moves[start] if start < len(self.moves) else None
            same = here is not None and (here.round, here.line, here.attempt) == (
                now, request.line, request.attempt)
            chosen = start if same else None
        if chosen is None or set(self.moves[chosen].values) != set(request.registers):
            raise PermanentPlayerError(NO_STORED_MOVE)
        self._next[now] = chosen + 1
        return dict(self.moves[chosen].values)
