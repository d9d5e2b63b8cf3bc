"""Pairings: pure functions from games and participants to the match plans of one run.

(Not to be confused with recurring schedules, `tournaments.recurring`: these say which
matches a tournament plays; those say when it runs.)

- Eval mode (paper 4.1, SCORING.md 2): a full round robin over (game, role, map,
  participant): the participant plays the role as main character, the tournament's NPC
  participants play every other active role without memory.
- Head-to-head: participants fill all active seats of a match. Every ordered assignment
  when that fits the match budget; otherwise whole *rotation blocks*: for distinct offsets
  (0, o1, ..., o_{k-1}) and a seeded order p_0..p_{n-1} of the participants, the block's n
  matches seat p_{(s + o_j) mod n} in seat j for s = 0..n-1. In each block every
  participant plays every seat exactly once, so any number of blocks is seat-balanced;
  blocks are taken with their seat-reversed twin so opponents meet in both orders.

A plan's key is a SHA-256 over everything that determines the match, so running a
tournament again finds the matches already stored (resume).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena.errors import ConfigError
from arena.runtime.seeds import derive_seed

EVAL = "eval"
HEAD_TO_HEAD = "head_to_head"
_ENUMERATE_LIMIT = 20_000  # offset tuples listed in full below this; sampled above


@dataclass(frozen=True)
class GameSlot:
    """A game as paired: identity, active roles and its settings in the tournament."""

    name: str
    version: str
    code_hash: str
    dialect: str
    roles: tuple[str, ...]
    rounds: int = 1
    maps: int = 1
    npcs: Mapping[str, str] = field(default_factory=dict)  # role -> NPC participant (eval)
    max_matches: int | None = None  # head-to-head budget for the whole game


@dataclass(frozen=True)
class SeatPlan:
    role: str
    participant: str
    spec: str
    main: bool  # keeps its earlier rounds in context; NPCs do not


@dataclass(frozen=True)
class MatchPlan:
    key: str
    tournament: str
    game: str
    game_version: str
    code_hash: str
    dialect: str
    map_index: int
    map_seed: int
    mode: str
    seats: tuple[SeatPlan, ...]
    main_role: str | None
    rounds: int
    play_seed: int

    def seat(self, role: str) -> SeatPlan:
        return next(s for s in self.seats if s.role == role)


def map_seed(seed: int, game: str, index: int) -> int:
    return derive_seed("map", seed, game, index)


def play_seed(seed: int, game: str, index: int) -> int:
    """Shared by every match on the map, so NPCs face each entrant with the same seed."""
    return derive_seed("play", seed, game, index)


def plan_key(
    tournament: str,
    game: GameSlot,
    map_index: int,
    seed_of_map: int,
    mode: str,
    seats: Sequence[SeatPlan],
    play: int,
    judge: str,
) -> str:
    """SHA-256 over everything that determines a match (the judge spec included, so a
    changed judge never reuses matches judged by another)."""
    parts = [
        tournament,
        [game.name, game.version, game.code_hash, game.dialect],
        [map_index, seed_of_map],
        mode,
        [[s.role, s.participant, s.spec, s.main] for s in seats],
        game.rounds,
        play,
        judge,
    ]
    return hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).hexdigest()


def _plan(
    tournament: str,
    game: GameSlot,
    index: int,
    mode: str,
    seats: Sequence[SeatPlan],
    main_role: str | None,
    seed: int,
    judge: str,
) -> MatchPlan:
    mseed, pseed = map_seed(seed, game.name, index), play_seed(seed, game.name, index)
    key = plan_key(tournament, game, index, mseed, mode, seats, pseed, judge)
    return MatchPlan(
        key, tournament, game.name, game.version, game.code_hash, game.dialect, index, mseed,
        mode, tuple(seats), main_role, game.rounds, pseed,
    )


def eval_pairings(
    tournament: str,
    games: Sequence[GameSlot],
    entrants: Sequence[str],
    specs: Mapping[str, str],
    *,
    seed: int = 0,
    judge: str = "",
) -> list[MatchPlan]:
    """Every entrant as main character in every active role of every game, on every map."""
    plans = []
    for game in games:
        for role in game.roles:
            missing = [r for r in game.roles if r != role and r not in game.npcs]
            if missing:
                raise ConfigError(
                    f"Game '{game.name}' has no NPC for role(s) {', '.join(missing)}. "
                    f'Set npc = "<participant>" or npc = {{ {missing[0]} = "<participant>" }}.'
                )
        for index in range(game.maps):
            for role in game.roles:
                for entrant in entrants:
                    seats = [
                        SeatPlan(r, entrant, specs[entrant], True)
                        if r == role
                        else SeatPlan(r, game.npcs[r], specs[game.npcs[r]], False)
                        for r in game.roles
                    ]
                    plans.append(_plan(tournament, game, index, EVAL, seats, role, seed, judge))
    return plans


def head_to_head_pairings(
    tournament: str,
    games: Sequence[GameSlot],
    entrants: Sequence[str],
    specs: Mapping[str, str],
    *,
    seed: int = 0,
    judge: str = "",
) -> list[MatchPlan]:
    """Entrants fill every active seat, rotated (see the module docstring)."""
    plans = []
    for game in games:
        per_map = None if game.max_matches is None else game.max_matches // game.maps
        for index in range(game.maps):
            rng_seed = derive_seed("seats", seed, game.name, index)
            try:
                assignments = seat_assignments(entrants, len(game.roles), per_map, rng_seed)
            except ConfigError as error:
                raise ConfigError(f"Game '{game.name}': {error}") from None
            for chosen in assignments:
                seats = [
                    SeatPlan(role, who, specs[who], True)
                    for role, who in zip(game.roles, chosen, strict=True)
                ]
                plans.append(_plan(tournament, game, index, HEAD_TO_HEAD, seats, None, seed, judge))
    return plans


def seat_assignments(
    people: Sequence[str], seats: int, limit: int | None, seed: int
) -> list[tuple[str, ...]]:
    """Ordered assignments of distinct `people` to `seats` seats: all of them when at
    most `limit` (or no limit), else as many whole rotation blocks as fit in `limit`."""
    n = len(people)
    if seats < 1 or n < seats:
        raise ConfigError(
            f"Head-to-head needs at least as many participants as seats: {n} participant(s) "
            f"for {seats} seat(s). Add participants or use mode = \"eval\" with NPCs."
        )
    total = math.perm(n, seats)
    if limit is None or limit >= total:
        return list(itertools.permutations(people, seats))
    blocks = limit // n
    if blocks < 1:
        raise ConfigError(
            f"max_matches allows {limit} match(es) per map, fewer than the {n} needed for "
            f"every participant to play every seat once. Raise max_matches to at least "
            f"{n} per map."
        )
    rng = random.Random(seed)
    order = list(people)
    rng.shuffle(order)
    return [
        tuple(order[(s + o) % n] for o in offsets)
        for offsets in _offset_tuples(n, seats, blocks, rng)
        for s in range(n)
    ]


def _reversed(offsets: tuple[int, ...], n: int) -> tuple[int, ...]:
    """The same block with the seat order reversed, normalised to start at offset 0."""
    back = offsets[::-1]
    return tuple((o - back[0]) % n for o in back)


def _offset_tuples(n: int, k: int, count: int, rng: random.Random) -> list[tuple[int, ...]]:
    """`count` distinct offset tuples (0, distinct nonzero offsets), each followed by its
    seat-reversed twin where there is room."""
    if math.perm(n - 1, k - 1) <= _ENUMERATE_LIMIT:
        pool = [(0, *rest) for rest in itertools.permutations(range(1, n), k - 1)]
        rng.shuffle(pool)
        candidates = iter(pool)
    else:
        candidates = iter(lambda: (0, *rng.sample(range(1, n), k - 1)), None)
    chosen: list[tuple[int, ...]] = []
    taken: set[tuple[int, ...]] = set()
    for offsets in candidates:
        for item in (offsets, _reversed(offsets, n)):
            if len(chosen) < count and item not in taken:
                taken.add(item)
                chosen.append(item)
        if len(chosen) >= count:
            break
    return chosen


def plan_matches(
    tournament: str,
    mode: str,
    games: Sequence[GameSlot],
    entrants: Sequence[str],
    specs: Mapping[str, str],
    *,
    seed: int = 0,
    judge: str = "",
) -> list[MatchPlan]:
    """The tournament's plans for `mode` ("eval" or "head_to_head")."""
    builder = eval_pairings if mode == EVAL else head_to_head_pairings
    return builder(tournament, games, entrants, specs, seed=seed, judge=judge)
