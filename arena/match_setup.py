"""Loading a game (registered name or file) and playing seeded matches with Python objects.

`arena play` assembles a match from CLI specs; the analysis tools need the same assembly
with a judge object they may wrap (clipping, caching), players they build themselves and
replay loops capped so that smoke runs stay fast.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.commands.play import load_game_source
from arena.errors import ConfigError
from arena.events import Event
from arena.lang import ast
from arena.lang.header import GameHeader, read_header
from arena.lang.loader import load_game
from arena.plugin_types import GameEntry, PlayerContext
from arena.protocols.judge import Judge
from arena.protocols.player import GameView, Player
from arena.registry import Registry
from arena.runtime.maps import GameMap, JudgeStorySource, resolve_map
from arena.runtime.match import MatchConfig, MatchResult, active_players, play_match
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy, Seat

DEFAULT_MAX_REPLAY = 2  # loops run at most 3 times in smoke runs and golden playthroughs


@dataclass(frozen=True)
class LoadedGame:
    """A parsed, checked game with its metadata."""

    name: str
    source: str
    filename: str
    version: str
    program: ast.Program
    header: GameHeader

    @property
    def roles(self) -> tuple[str, ...]:
        """The active players, in order of first elicit."""
        return active_players(self.program)

    def main_role(self, role: str | None) -> str:
        """The role under study: the one asked for, else the first active role."""
        roles = self.roles
        chosen = role or (roles[0] if roles else "")
        if chosen not in roles:
            raise ConfigError(
                f"Role '{chosen}' never plays in game '{self.name}'. Active roles: "
                f"{', '.join(roles) or '(none)'}; pick one with --role."
            )
        return chosen

    @property
    def view(self) -> GameView:
        return GameView(
            name=self.name,
            code=self.source,
            dialect=self.program.dialect,
            header="\n".join(self.program.header),
            version=self.version,
        )


def _loaded(source: str, filename: str, version: str, dialect: str | None) -> LoadedGame:
    program = load_game(source, filename=filename, dialect=dialect)
    header = read_header(source)
    return LoadedGame(
        name=Path(filename).stem,
        source=source,
        filename=filename,
        version=version or header.get("version") or "1",
        program=program,
        header=header,
    )


def load_game_ref(ref: str, registry: Registry, dialect: str | None = None) -> LoadedGame:
    """Load a game file path or a registered game name (GameSyntaxError if it does not
    check, UnknownNameError listing the games if the name is unknown)."""
    source, filename, version, chosen = load_game_source(ref, dialect, registry)
    return _loaded(source, filename, version, chosen)


def load_entry(entry: GameEntry) -> LoadedGame:
    """Load a registered game entry."""
    return _loaded(entry.source, entry.filename, entry.version, entry.dialect)


def cap_replays(program: ast.Program, cap: int | None) -> ast.Program:
    """The program with every `replay(flag, n)` count lowered to at most `cap`.

    The paper's loops (100 guesses, 20 chess moves, 100 debate turns) are part of the games;
    smoke checks and golden playthroughs only need to exercise them, not run them fully.
    """
    if cap is None:
        return program
    changed = []
    for instruction in program.instructions:
        args = instruction.call.args
        if instruction.name == "replay" and len(args) == 2 and isinstance(args[1], ast.Int):
            count = args[1]
            if count.value > cap:
                call = replace(instruction.call, args=(args[0], replace(count, value=cap)))
                instruction = replace(instruction, call=call)
        changed.append(instruction)
    return replace(program, instructions=tuple(changed))


def build_players(
    registry: Registry, specs: Mapping[str, str], judge: Judge, seed: int
) -> dict[str, Player]:
    """One player per role from its spec (e.g. ``random``), seeded like `arena play`."""
    return {
        role: registry.create_player(spec, PlayerContext(judge=judge, seed=seed, role=role))
        for role, spec in specs.items()
    }


async def resolve_game_map(game: LoadedGame, judge: Judge, seed: int) -> GameMap:
    """The map of `game` for `seed`, its texts sampled from `judge`."""
    return await resolve_map(game.program, seed, JudgeStorySource(judge))


async def play_seeded(
    game: LoadedGame,
    judge: Judge,
    players: Mapping[str, Player],
    *,
    seed: int = 0,
    rounds: int = 1,
    main_roles: Sequence[str] = (),
    max_replay: int | None = None,
    limits: RoundLimits | None = None,
    move_timeout: float | None = 60.0,
    game_map: GameMap | None = None,
    on_event: Callable[[Event], None] | None = None,
) -> MatchResult:
    """Play one match of `game`; the map is resolved from `seed` unless given.

    Roles in `main_roles` keep their earlier rounds in context; the others are memoryless
    NPCs. An empty `main_roles` makes every role a main character, as `arena play` does.
    """
    program = cap_replays(game.program, max_replay)
    if game_map is None:
        game_map = await resolve_game_map(game, judge, seed)
    seats = {
        role: Seat(
            role=role,
            player=player,
            main=not main_roles or role in main_roles,
            participant=player.name,
        )
        for role, player in players.items()
    }
    config = MatchConfig(
        rounds=rounds,
        play_seed=seed,
        limits=limits or RoundLimits(),
        policy=MovePolicy(timeout_s=move_timeout),
    )
    return await play_match(program, game.view, game_map, seats, judge, config, on_event)
