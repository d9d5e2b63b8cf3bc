"""Small real players and a match driver for runtime tests (no mocks: these are genuine
implementations of the Player protocol)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.lang.limits import DEFAULT_LIMITS, ResourceLimits
from arena.lang.loader import load_game
from arena.protocols.judge import Judge
from arena.protocols.player import GameView, MoveRequest, Player
from arena.runtime.maps import GameMap, JudgeStorySource, resolve_map
from arena.runtime.match import MatchConfig, MatchResult, play_match
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy, Seat
from arena.runtime.seeds import public_seed_key


@dataclass
class ListPlayer:
    """Plays the given moves in order (cycling), one per requested register, and records
    every request it receives."""

    moves: Sequence[object]
    requests: list[MoveRequest] = field(default_factory=list)
    _next: int = 0

    @property
    def name(self) -> str:
        return "list"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        self.requests.append(request)
        reply: dict[str, object] = {}
        for register in request.registers:
            move = self.moves[self._next % len(self.moves)]
            self._next += 1
            if isinstance(move, BaseException):
                raise move
            reply[register] = move
        return reply  # type: ignore[return-value]


@dataclass
class SlowPlayer:
    delay: float

    @property
    def name(self) -> str:
        return "slow"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        await asyncio.sleep(self.delay)
        return {r: "late" for r in request.registers}


async def run_game(
    source: str,
    players: Mapping[str, object],
    judge: Judge,
    *,
    dialect: str | None = None,
    rounds: int = 1,
    seed: int = 0,
    main: Sequence[str] | None = None,
    ensure_budget: int | None = 10,
    instruction_budget: int = 10_000,
    policy: MovePolicy | None = None,
    game_map: GameMap | None = None,
    seed_key: bytes | None = None,
    rebuild: Mapping[str, Callable[[], Player]] | None = None,
    limits: ResourceLimits = DEFAULT_LIMITS,
) -> MatchResult:
    """Play `source`; NPCs in `rebuild` get a new player from it every round. The seed key
    defaults to the public key of `seed`, so tests replay."""
    program = load_game(source, filename="test.xgl", dialect=dialect, limits=limits)
    makers = rebuild or {}
    seats = {
        role: Seat(
            role=role,
            player=p,  # type: ignore[arg-type]
            main=main is None or role in main,
            rebuild=makers.get(role),
        )
        for role, p in players.items()
    }
    view = GameView(name="test", code=source, dialect=program.dialect)
    if game_map is None:
        game_map = await resolve_map(program, seed, JudgeStorySource(judge))
    config = MatchConfig(
        rounds=rounds,
        play_seed=seed,
        seed_key=public_seed_key(seed) if seed_key is None else seed_key,
        limits=RoundLimits(ensure_budget, instruction_budget, limits),
        policy=policy or MovePolicy(timeout_s=5.0, retries=2),
    )
    return await play_match(program, view, game_map, seats, judge, config)


def events_of(result: MatchResult, kind: str) -> list:  # type: ignore[type-arg]
    return [e for e in result.events if e.type == kind]
