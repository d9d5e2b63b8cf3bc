"""Playing a match: a map played for R rounds with a participant in every active seat."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from arena import events as ev
from arena.errors import ConfigError, GameRuntimeError
from arena.lang import ast, names
from arena.protocols.judge import Judge
from arena.protocols.player import GameView, Player, RoundMemory
from arena.runtime.maps import GameMap
from arena.runtime.round import MatchHasNoResult, RoundLimits, RoundRunner, instruction_player
from arena.runtime.seat import MovePolicy, Seat, close_player
from arena.runtime.seeds import new_seed_key


@dataclass(frozen=True)
class MatchConfig:
    """How a match is played. `seed_key` keys every seed players receive and the game's
    randomness (`arena.runtime.seeds`): keep it to replay the match; players never see it."""

    rounds: int = 1
    play_seed: int = 0
    seed_key: bytes = field(default_factory=new_seed_key, repr=False)
    limits: RoundLimits = field(default_factory=RoundLimits)
    policy: MovePolicy = field(default_factory=MovePolicy)
    # False: players get their information set without the program's text
    # (`arena.runtime.code_hidden`; the game space's measurements, issue 36)
    show_code: bool = True


@dataclass(frozen=True)
class SeatScore:
    """A role's scores: every round (None where forfeited), the best one, forfeit flag.
    In a match with no result, `rounds` holds the rounds finished before it ended and
    `best` is None."""

    rounds: tuple[float | None, ...]
    best: float | None
    forfeit: bool


@dataclass
class MatchResult:
    """`no_result`: why the match has no result (XGL.md section 9), None when it has one."""

    events: list[ev.Event]
    scores: dict[str, SeatScore]
    error: str | None = None
    no_result: str | None = None
    move_s: dict[str, float] = field(default_factory=dict)  # role -> seconds on its moves


def active_players(program: ast.Program) -> tuple[str, ...]:
    """Players named by some elicit, in order of first appearance."""
    seen: list[str] = []
    for instruction in program.instructions:
        if instruction.name == "elicit":
            player = instruction_player(instruction)
            if player not in seen:
                seen.append(player)
    return tuple(seen)


def check_seats(program: ast.Program, seats: Mapping[str, Seat]) -> None:
    """Every active player needs a seat; seats for roles that never play are mistakes."""
    active = active_players(program)
    missing = [p for p in active if p not in seats]
    extra = [r for r in seats if r not in active]
    problems = []
    if missing:
        problems.append(f"no player for active role(s) {', '.join(missing)}")
    if extra:
        unknown = [r for r in extra if r not in names.PLAYERS]
        problems.append(
            f"role(s) {', '.join(extra)} "
            + ("are not XGL players" if unknown else "never play in this game")
        )
    if problems:
        raise ConfigError(
            f"Seats do not fit the game {program.filename}: {'; '.join(problems)}. "
            f"Active roles: {', '.join(active) or '(none)'}; give one --player ROLE=SPEC each."
        )


def _fresh_npcs(seats: Mapping[str, Seat], rebuilt: list[Player]) -> dict[str, Seat]:
    """The seats for the next round: every NPC that can be rebuilt gets a new player, so
    nothing a plugin kept in memory survives the round (paper 4.1.3)."""
    fresh: dict[str, Seat] = {}
    for role, seat in seats.items():
        if not seat.main and seat.rebuild is not None:
            player = seat.rebuild()
            rebuilt.append(player)
            seat = replace(seat, player=player)
        fresh[role] = seat
    return fresh


def _best(rounds: list[float | None]) -> float | None:
    numeric = [r for r in rounds if r is not None]
    return max(numeric) if numeric else None


async def play_match(
    program: ast.Program,
    game: GameView,
    game_map: GameMap,
    seats: Mapping[str, Seat],
    judge: Judge,
    config: MatchConfig = MatchConfig(),
    on_event: Callable[[ev.Event], None] | None = None,
) -> MatchResult:
    """Play `config.rounds` rounds. Runtime failures end the match with `error` set and a
    complete, valid event log; they never raise. A round that ends the match with no result
    ends it with `no_result` set, the rounds before it kept and no best score."""
    check_seats(program, seats)
    events: list[ev.Event] = []

    def emit(event: ev.Event) -> None:
        events.append(event)
        if on_event is not None:
            on_event(event)

    per_round: dict[str, list[float | None]] = {role: [] for role in seats}
    forfeited: set[str] = set()
    memories: dict[str, list[RoundMemory]] = {role: [] for role in seats}
    error: str | None = None
    no_result: str | None = None
    playing = dict(seats)
    rebuilt: list[Player] = []  # NPCs built for later rounds: closed here at the end
    move_s: dict[str, float] = {}
    try:
        for number in range(1, config.rounds + 1):
            try:
                if number > 1:
                    playing = _fresh_npcs(playing, rebuilt)
                runner = RoundRunner(
                    program=program,
                    game=game,
                    stories=game_map.stories,
                    seats=playing,
                    judge=judge,
                    round_number=number,
                    rounds=config.rounds,
                    play_seed=config.play_seed,
                    seed_key=config.seed_key,
                    memories={r: tuple(m) for r, m in memories.items() if seats[r].main},
                    limits=config.limits,
                    policy=config.policy,
                    show_code=config.show_code,
                    emit=emit,
                    move_s=move_s,
                )
                outcome = await runner.run()
            except MatchHasNoResult as ended:
                no_result = ended.reason
                break
            except Exception as failure:  # a crashing game or judge ends this match only
                line = failure.line if isinstance(failure, GameRuntimeError) else 0
                error = str(failure)
                emit(ev.RuntimeErrorEvent(round=number, line=line, message=error))
                break
            for role in seats:
                per_round[role].append(outcome.scores[role])
                memories[role].append(
                    RoundMemory(
                        round=number,
                        history=tuple(outcome.infosets[role].history),
                        score=None
                        if outcome.scores[role] is None
                        else outcome.infosets[role].round_score(),
                    )
                )
            if outcome.forfeited_by is not None:
                forfeited.add(outcome.forfeited_by)
    finally:
        for player in rebuilt:
            await close_player(player)
    scores = {
        role: SeatScore(
            tuple(rs), None if no_result is not None else _best(rs), role in forfeited
        )
        for role, rs in per_round.items()
    }
    return MatchResult(
        events=events, scores=scores, error=error, no_result=no_result, move_s=move_s
    )
