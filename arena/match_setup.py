"""Loading a game and setting up a match: the one home of both.

`load_game_ref` turns a game file path or a registered game name (bundled or from a plugin)
into a parsed, checked `LoadedGame`. `build_match` alone turns a loaded game and seat specs
into a playable `Match`: the game view every player sees, the match config and the seats,
with every event passed on to the plugins' `arena_on_event` hook. `arena play`, the
`arena games` tools (smoke, well-posedness, playability, golden playthroughs), the
tournament executor and the tests all go through here (DESIGN.md, "Data flow").

`build_match` takes small, serialisable inputs (spec strings, seeds, limits) besides the
judge and the registry, so a worker process can build the same match from a plan.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType

from arena.errors import ConfigError, UnknownNameError, did_you_mean
from arena.events import Event
from arena.lang import ast
from arena.lang.game_file import GAME_SUFFIXES, read_game_file
from arena.lang.header import GameHeader, read_header
from arena.lang.limits import DEFAULT_LIMITS, ResourceLimits
from arena.lang.loader import load_game
from arena.plugins.plugin_manager import dispatch_event, has_event_listeners
from arena.plugins.plugin_types import GameEntry, PlayerContext
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.protocols.player import GameView, Player
from arena.runtime.maps import GameMap, JudgeStorySource, resolve_map
from arena.runtime.match import MatchConfig, MatchResult, active_players, play_match
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy, Seat
from arena.runtime.seeds import public_seed_key, seat_seed, story_seed

DEFAULT_MAX_REPLAY = 2  # loops run at most 3 times in smoke runs and golden playthroughs
# Analysis runs (smoke checks, playability): a stuck player fails its move within a minute.
ANALYSIS_POLICY = MovePolicy(timeout_s=60.0)


@dataclass(frozen=True)
class LoadedGame:
    """A parsed, checked game with its metadata.

    Attributes:
        name: what players and records call the game (file stem, registered name or label).
    """

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
        """What every player knows about the game: its code and metadata."""
        return GameView(
            name=self.name,
            code=self.source,
            dialect=self.program.dialect_name,
            header="\n".join(self.program.header),
            version=self.version,
        )


def load_entry(
    entry: GameEntry,
    *,
    dialect: str | None = None,
    name: str | None = None,
    limits: ResourceLimits = DEFAULT_LIMITS,
) -> LoadedGame:
    """Load a game entry (registered, or read from a file); `dialect` overrides the entry's.

    Raises GameSyntaxError listing every problem (source size limits included) if the game
    does not check."""
    program = load_game(
        entry.source, filename=entry.filename, dialect=dialect or entry.dialect, limits=limits
    )
    header = read_header(entry.source)
    return LoadedGame(
        name=name or entry.name,
        source=entry.source,
        filename=entry.filename,
        version=entry.version or header.get("version") or "1",
        program=program,
        header=header,
    )


def load_game_text(
    source: str,
    filename: str,
    *,
    dialect: str | None = None,
    name: str | None = None,
    limits: ResourceLimits = DEFAULT_LIMITS,
) -> LoadedGame:
    """Load a game from its text, read exactly as a registered game's file would be;
    diagnostics name `filename` as given (a path, for a file)."""
    # Any file stem is accepted as a name here; registered names are checked at registration.
    entry = GameEntry.from_source(source, filename, "game")
    entry = replace(entry, name=Path(filename).stem, filename=filename)
    return load_entry(entry, dialect=dialect, name=name, limits=limits)


def game_from_view(view: GameView) -> LoadedGame:
    """The game a `GameView` shows, loaded again (the inverse of `LoadedGame.view`): what a
    contract that carries a game as plain data (`arena.protocols.finetune`) is read back
    with."""
    loaded = load_game_text(
        view.code, f"{view.name}.{view.dialect.partition('@')[0]}", dialect=view.dialect,
        name=view.name,
    )
    return loaded if loaded.version == view.version else replace(loaded, version=view.version)


def load_game_ref(
    ref: str,
    registry: Registry,
    *,
    dialect: str | None = None,
    base_dir: Path | None = None,
    name: str | None = None,
    limits: ResourceLimits = DEFAULT_LIMITS,
) -> LoadedGame:
    """Load a game file path (relative to `base_dir` if given) or a registered game name.

    Raises GameSyntaxError if the game does not check, ConfigError for a path that names
    no file, UnknownNameError listing the games for an unknown name."""
    path = Path(ref).expanduser()
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    if path.is_file():
        text = read_game_file(path)
        return load_game_text(text, str(path), dialect=dialect, name=name, limits=limits)
    if "/" in ref or ref.endswith(GAME_SUFFIXES):
        where = " (relative to the file)" if base_dir is not None else ""
        raise ConfigError(
            f"No game file at {path}. Check the path{where}, or give a registered game name "
            "(`arena games list`)."
        )
    if ref not in registry.game_names():
        raise UnknownNameError(
            "game", ref, registry.game_names(),
            "Run `arena games list` to see them, or give a path to a .xgl/.xent file.",
        )
    entry = registry.game(ref)
    return load_entry(entry, dialect=dialect, name=name, limits=limits)


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


async def resolve_game_map(game: LoadedGame, judge: Judge, seed: int) -> GameMap:
    """The map of `game` for `seed`, its texts sampled from `judge`."""
    return await resolve_map(game.program, seed, JudgeStorySource(judge))


@dataclass(frozen=True)
class SeatSpec:
    """Who sits in one role of a match.

    Attributes:
        role: the XGL player, e.g. "black".
        player: a player spec (e.g. "random?words=5"); analysis probes may pass a Player.
        main: main characters keep their earlier rounds in context; NPCs are memoryless.
        participant: who sits here, for records (default: the spec).
        seed: the player's context seed (default: keyed from the match's seed key, play
            seed and role, `arena.runtime.seeds.seat_seed`).
    """

    role: str
    player: str | Player
    main: bool = True
    participant: str = ""
    seed: int | None = None


EventCallback = Callable[[Event], None]


@dataclass
class Match:
    """A match ready to play: game, view, seats and config, built by `build_match`.

    Use it as an async context manager to close the players it built."""

    program: ast.Program
    view: GameView
    seats: dict[str, Seat]
    config: MatchConfig
    judge: Judge
    match_id: str
    emit: EventCallback
    built: list[Player] = field(default_factory=list)

    async def play(self, game_map: GameMap | None = None) -> MatchResult:
        """Play every round on `game_map` (default: the map of the play seed, its texts
        sampled from the judge under the match's seed key, so a player that guesses a small
        play seed still cannot regenerate them). Runtime failures end the match with
        `error` set."""
        if game_map is None:
            seed = story_seed(self.config.seed_key, self.config.play_seed)
            game_map = await resolve_map(self.program, seed, JudgeStorySource(self.judge))
        return await play_match(
            self.program, self.view, game_map, self.seats, self.judge, self.config, self.emit
        )

    async def aclose(self) -> None:
        """Close the players built from specs; a failing close does not change the match."""
        await _close_players(self.built)
        self.built.clear()

    async def __aenter__(self) -> Match:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.aclose()


def _seat_specs(
    seats: Mapping[str, str | Player] | Sequence[SeatSpec], main_roles: Sequence[str]
) -> list[SeatSpec]:
    if isinstance(seats, Mapping):
        return [
            SeatSpec(role, player, main=not main_roles or role in main_roles)
            for role, player in seats.items()
        ]
    return list(seats)


async def _close_players(players: Sequence[Player]) -> None:
    for player in players:
        close = getattr(player, "aclose", None)
        if callable(close):
            with contextlib.suppress(Exception):  # cleaning up never changes a match
                await close()


def _maker(registry: Registry, spec: str, context: PlayerContext) -> Callable[[], Player]:
    return lambda: registry.create_player(spec, context)


async def build_match(
    game: LoadedGame,
    seats: Mapping[str, str | Player] | Sequence[SeatSpec],
    *,
    judge: Judge,
    registry: Registry | None,
    seed: int = 0,
    rounds: int = 1,
    main_roles: Sequence[str] = (),
    limits: RoundLimits | None = None,
    policy: MovePolicy | None = None,
    max_replay: int | None = None,
    match_id: str | None = None,
    on_event: EventCallback | None = None,
    seed_key: bytes | None = None,
    show_code: bool = True,
) -> Match:
    """Build one match of `game` with a player in every seat.

    `seats` maps roles to player specs (roles in `main_roles` are main characters, every
    role when it is empty), or lists `SeatSpec`s. `seed` is the play seed and, unless a seat
    says otherwise, each player's seed. `max_replay` caps `replay` loops (smoke runs).
    Every event goes to `on_event`, then to the plugins' `arena_on_event` hook of
    `registry` under `match_id`. `registry` may be None only for analysis probes whose
    seats are all Player objects: those rounds are not matches and reach no plugin.

    `show_code` False gives every player its information set without the program's text
    (`arena.runtime.code_hidden`), as the game space's measurements do.

    `seed_key` keys every seed the players receive (XGL.md section 8): matches between
    entrants pass a secret one (`arena play` draws one, a tournament keeps one in its
    database). Left out, it is `public_seed_key(seed)`, so the arena's own analysis runs
    between built-in players replay from their seed alone. Players built from specs are
    rebuilt for every round where they sit as NPCs (`Seat.rebuild`).

    Raises ConfigError (or the plugin's error) if a player cannot be built; the players
    built before it are closed.
    """
    unknown = [role for role in main_roles if role not in game.roles]
    if unknown:  # a misspelt main role once silently made every seat an NPC
        raise ConfigError(
            f"Main role {unknown[0]!r} never plays in game '{game.name}'; pick an active "
            f"role with --main.{did_you_mean(unknown[0], game.roles)}"
        )
    match_id = match_id or f"{game.name}:{seed}"
    key = public_seed_key(seed) if seed_key is None else seed_key
    built: list[Player] = []
    made: dict[str, Seat] = {}
    try:
        for seat in _seat_specs(seats, main_roles):
            player = seat.player
            rebuild: Callable[[], Player] | None = None
            if isinstance(player, str):
                if registry is None:
                    raise ConfigError(f"Seat '{seat.role}' names a player spec but no registry.")
                player_seed = seat_seed(key, seed, seat.role) if seat.seed is None else seat.seed
                context = PlayerContext(judge=judge, seed=player_seed, role=seat.role)
                rebuild = _maker(registry, player, context)
                player = rebuild()
                built.append(player)
            participant = seat.participant or (
                seat.player if isinstance(seat.player, str) else player.name
            )
            made[seat.role] = Seat(
                seat.role, player, main=seat.main, participant=participant, rebuild=rebuild
            )
    except BaseException:
        await _close_players(built)
        raise
    listening = registry is not None and has_event_listeners(registry.plugin_manager)

    def emit(event: Event) -> None:
        if on_event is not None:
            on_event(event)
        if listening and registry is not None:
            dispatch_event(registry.plugin_manager, event, match_id)

    config = MatchConfig(
        rounds=rounds,
        play_seed=seed,
        seed_key=key,
        limits=limits or RoundLimits(),
        policy=policy or MovePolicy(),
        show_code=show_code,
    )
    return Match(
        program=cap_replays(game.program, max_replay),
        view=game.view,
        seats=made,
        config=config,
        judge=judge,
        match_id=match_id,
        emit=emit,
        built=built,
    )
