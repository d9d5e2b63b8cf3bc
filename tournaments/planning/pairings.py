"""Pairings: pure functions from games and participants to the match plans of one run.

(Not to be confused with recurring schedules, `arena.tournaments.services.recurring`: these say
which
matches a tournament plays; those say when it runs.)

- Eval mode (paper 4.1, SCORING.md 2): a full round robin over (game, role, map,
  participant): the participant plays the role as main character, the tournament's NPC
  participants play every other active role without memory. Every entrant of a role plays
  the same maps.
- Head-to-head: participants fill all active seats of a match. Every ordered assignment
  when that fits the match budget; otherwise whole *rotation blocks*: for distinct offsets
  (0, o1, ..., o_{k-1}) and a seeded order p_0..p_{n-1} of the participants, the block's n
  matches seat p_{(s + o_j) mod n} in seat j for s = 0..n-1. In each block every
  participant plays every seat exactly once, so any number of blocks is seat-balanced;
  blocks are taken with their seat-reversed twin so opponents meet in both orders.

Maps and information (issue 24): an entrant never holds two seats on one map whose roles
see different things of it (`GameSlot.views`, `arena.tournaments.planning.map_views`): the seat
that saw a
hidden story must not come back to the map as the seat that guesses it. Each of the
`maps` map slots of a game is split into as many maps as that takes: the slot's matches
go, in order, to its first map where each of their entrants keeps one view (a new map
when none fits). So an eval game whose roles see different things plays each role on maps
of its own (every entrant of a role still on the same maps), and a head-to-head pair swaps
seats on two maps instead of one; roles that share a view (the omniscient black and white
of a game whose map is set before the first move) keep playing on one map. The number of
matches is unchanged; maps are numbered 0, 1, ... across the slots, so a game whose roles
all share a view keeps its map indices. `check_map_information` holds every plan to this.
NPC-only participants are the organiser's own and may play several seats of a map.

A plan's key is a SHA-256 over everything that determines the match, so running a
tournament again finds the matches already stored (resume).

`plan_matches` returns the plans in the order a run plays them
(`arena.tournaments.planning.match_order.balanced_order`: every prefix of a run close to a
stratified sample of it); the builders above list them game by game, and the keys and map
indices are made in that order, so reordering changes no key.
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
from arena.tournaments.planning.match_order import balanced_order

EVAL = "eval"
HEAD_TO_HEAD = "head_to_head"
_ENUMERATE_LIMIT = 20_000  # offset tuples listed in full below this; sampled above
_MAX_ASSIGNMENTS = 1_000_000  # seat orders per map listed in full (config.MAX_MATCHES)


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
    # role -> what it sees of a map (arena.tournaments.planning.map_views); roles sharing a view
    # may share
    # a map. A role not listed has a view of its own.
    views: Mapping[str, str] = field(default_factory=dict)

    def view(self, role: str) -> str:
        return self.views.get(role, role)


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
    """Every entrant as main character in every active role of every game, on every map
    slot (split by view, see the module docstring)."""
    plans = []
    for game in games:
        for role in game.roles:
            missing = [r for r in game.roles if r != role and r not in game.npcs]
            if missing:
                raise ConfigError(
                    f"Game '{game.name}' has no NPC for role(s) {', '.join(missing)}. "
                    f'Set npc = "<participant>" or npc = {{ {missing[0]} = "<participant>" }}.'
                )
        slots = []
        for _ in range(game.maps):
            slot = []
            for role in game.roles:
                for entrant in entrants:
                    seats = [
                        SeatPlan(r, entrant, specs[entrant], True)
                        if r == role
                        else SeatPlan(r, game.npcs[r], specs[game.npcs[r]], False)
                        for r in game.roles
                    ]
                    slot.append((seats, role))
            slots.append(slot)
        plans += _on_maps(tournament, game, slots, EVAL, entrants, seed, judge)
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
        slots = []
        for index in range(game.maps):
            rng_seed = derive_seed("seats", seed, game.name, index)
            try:
                assignments = seat_assignments(entrants, len(game.roles), per_map, rng_seed)
            except ConfigError as error:
                raise ConfigError(f"Game '{game.name}': {error}") from None
            slots.append([
                ([SeatPlan(role, who, specs[who], True)
                  for role, who in zip(game.roles, chosen, strict=True)], None)
                for chosen in assignments
            ])
        plans += _on_maps(tournament, game, slots, HEAD_TO_HEAD, entrants, seed, judge)
    return plans


def _on_maps(
    tournament: str,
    game: GameSlot,
    slots: Sequence[Sequence[tuple[Sequence[SeatPlan], str | None]]],
    mode: str,
    entrants: Sequence[str],
    seed: int,
    judge: str,
) -> list[MatchPlan]:
    """Plans for each map slot's matches (seats, main role), each slot split into maps on
    which every entrant keeps one view; maps numbered 0, 1, ... across the slots."""
    watched = set(entrants)
    plans: list[MatchPlan] = []
    first = 0
    for slot in slots:
        maps: list[dict[str, str]] = []  # per map of this slot: entrant -> its view there
        homes: dict[tuple[str, str], list[int]] = {}  # (entrant, view) -> maps it holds it on
        for seats, main_role in slot:
            need = _views_in_match(game, seats, watched)
            at = _fitting_map(maps, homes, need)
            if at == len(maps):
                maps.append({})
            for who, view in need.items():
                if who not in maps[at]:
                    maps[at][who] = view
                    homes.setdefault((who, view), []).append(at)
            plans.append(_plan(tournament, game, first + at, mode, seats, main_role, seed, judge))
        first += max(len(maps), 1)
    return plans


def _fitting_map(
    maps: Sequence[Mapping[str, str]],
    homes: Mapping[tuple[str, str], Sequence[int]],
    need: Mapping[str, str],
) -> int:
    """A map of the slot on which each entrant of the match keeps its view: one where one
    of them already holds it (tried first, so a large slot is split in near-linear time),
    else the first that fits, else a new one (`len(maps)`)."""

    def fits(index: int) -> bool:
        return all(maps[index].get(who, view) == view for who, view in need.items())

    for held in need.items():
        for index in homes.get(held, ()):
            if fits(index):
                return index
    return next((i for i in range(len(maps)) if fits(i)), len(maps))


def _views_in_match(
    game: GameSlot, seats: Sequence[SeatPlan], watched: set[str]
) -> dict[str, str]:
    """entrant -> the view it holds in this match; an entrant in two seats that see
    different things of the map (an entrant that is also an NPC) is refused."""
    held: dict[str, SeatPlan] = {}
    for seat in seats:
        if seat.participant not in watched:
            continue
        other = held.setdefault(seat.participant, seat)
        if game.view(other.role) != game.view(seat.role):
            raise ConfigError(_two_views(game, seat.participant, other, seat, "in one match"))
    return {who: game.view(seat.role) for who, seat in held.items()}


def _two_views(game: GameSlot, who: str, a: SeatPlan, b: SeatPlan, where: str) -> str:
    npc = next((s for s in (a, b) if not s.main), None)
    fix = (
        f" '{who}' is also the NPC for {npc.role}: name an npc_only participant (the same "
        "player spec is fine) as the NPC instead."
        if npc is not None
        else " This is a planning bug; please report it."
    )
    return (
        f"Game '{game.name}': participant '{who}' would play {a.role} and {b.role} {where}, "
        f"roles that see different things of a map, so what it saw as one could help it as "
        f"the other.{fix}"
    )


def check_map_information(
    plans: Sequence[MatchPlan], games: Sequence[GameSlot], entrants: Sequence[str]
) -> None:
    """Raise ConfigError when an entrant holds two seats, on one map of a game, whose roles
    see different things of it (`GameSlot.views`). Every plan is held to this."""
    by_name = {g.name: g for g in games}
    watched = set(entrants)
    held: dict[tuple[str, int, str], SeatPlan] = {}
    for plan in plans:
        game = by_name[plan.game]
        for seat in plan.seats:
            if seat.participant not in watched:
                continue
            other = held.setdefault((plan.game, plan.map_index, seat.participant), seat)
            if game.view(other.role) != game.view(seat.role):
                raise ConfigError(
                    _two_views(game, seat.participant, other, seat, f"on map {plan.map_index}")
                )


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
    if (limit is None or limit >= total) and total > _MAX_ASSIGNMENTS:
        raise ConfigError(  # listing them would exhaust memory (issue 24 item 10)
            f"{n} participants fill {seats} seats in {total:,} orders per map, over the "
            f"maximum of {_MAX_ASSIGNMENTS:,}. Set max_matches on the game (e.g. "
            f"max_matches = {n * 10}) to play a rotation sample, or use fewer participants."
        )
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
    balanced: bool = True,
) -> list[MatchPlan]:
    """The tournament's plans for `mode` ("eval" or "head_to_head"), checked by
    `check_map_information`, in the order a run plays them (`balanced_order`; with
    `balanced=False` game by game, as planned, the order runs had before issue 30)."""
    builder = eval_pairings if mode == EVAL else head_to_head_pairings
    plans = builder(tournament, games, entrants, specs, seed=seed, judge=judge)
    check_map_information(plans, games, entrants)
    return balanced_order(plans, seed) if balanced else plans
