"""`scripted:<m1>|<m2>|...` — a player that plays a fixed script of moves.

One move is consumed per requested register, in order, cycling back to the first move when
the script runs out; so `elicit(alice, t1, t2, 10)` consumes two moves and a retry after a
failed `ensure` consumes the next ones. With `?per_round=1` the script restarts at its first
move at the start of every round (default: it continues across rounds). As an NPC it is
built afresh every round, so its script always restarts there.

Two moves are escapes, for tests of the runtime's error handling:
- ``<raise>`` makes `move` raise `PlayerError` (the whole request fails);
- ``<none>`` returns None instead of a string for that register.

Limits: a move cannot contain ``|`` (it separates moves) or ``?`` (it starts the spec's
parameters), and the spec's outer whitespace is stripped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from arena.errors import ConfigError, PlayerError
from arena.plugins.plugin_types import PlayerContext
from arena.protocols.player import MoveRequest
from arena.specs import Spec

RAISE = "<raise>"
NONE = "<none>"


class ScriptedPlayer:
    """Plays `moves` in order, one per register, cycling."""

    def __init__(self, moves: list[str], *, per_round: bool = False, name: str = "scripted"):
        if not moves:
            raise ConfigError("A scripted player needs at least one move.")
        self._moves = list(moves)
        self._per_round = per_round
        self._name = name
        self._next = 0
        self._round: int | None = None

    @property
    def name(self) -> str:
        return self._name

    def _take(self) -> str:
        move = self._moves[self._next % len(self._moves)]
        self._next += 1
        return move

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        if self._per_round and request.round != self._round:
            self._next = 0
        self._round = request.round
        script = [self._take() for _ in request.registers]
        if RAISE in script:
            raise PlayerError(
                f"Scripted player '{self._name}' was scripted to fail ({RAISE}) "
                f"at round {request.round}, line {request.line}."
            )
        chosen = {
            register: None if move == NONE else move
            for register, move in zip(request.registers, script, strict=True)
        }
        # `<none>` deliberately breaks the protocol so tests can see the runtime reject it.
        return cast(Mapping[str, str], chosen)


def create_scripted_player(spec: Spec, ctx: PlayerContext) -> ScriptedPlayer:
    """Factory for `scripted:<m1>|<m2>|...[?per_round=1]`."""
    spec.expect_params({"per_round"}, "player")
    if not spec.arg:
        raise ConfigError(
            f"Player spec '{spec.raw}' has no moves. Write scripted:<move1>|<move2>, "
            "e.g. 'scripted:hello|world' ('scripted:|' plays empty moves)."
        )
    return ScriptedPlayer(
        spec.arg.split("|"), per_round=spec.bool_param("per_round", False), name=spec.raw
    )
