"""The order a run plays its matches in: every prefix close to a stratified sample of the run.

Pairings (`arena.tournaments.planning.pairings`) say which matches a tournament plays; this module
says in which order, so that a board read at any moment rates the same mix of games, roles,
maps and participants as the final board (issue 30). A run played game by game rates only
its first games in its first third, and its mid-run ratings then miss the final ones.

`balanced_order` is a pure function of the plans (their keys are untouched) and a seed,
greedy, one match at a time:

1. **Game**: the game with the least progress (its matches taken / its matches), so every
   game is in the first G matches and each game's share of a prefix stays within two or
   three matches of its share of the run (ties: a seeded order of the games).
2. **Participant**: the rated participant (a main seat) with the fewest matches taken so far
   in the whole run (ties: an order drawn afresh, seeded, for each count, so the ones left
   last in one round are not last again), among those with a match left in that game.
3. **Match**, among that participant's matches left in the game:
   - eval: a map cell (game, map, main role: the matches compared with one another) already
     open, so cells fill one after another and a prefix holds whole comparisons; else the
     game's next cell, in a sequence that alternates the main roles (least progress first)
     and walks the maps in order. An open cell's own entrant goes first when it is among
     the least played.
   - head-to-head: partners among the least played, then the pair that has met least,
     then each participant in the seat it has played least, then the map with the least
     progress; each pair walks the game's maps from a starting map of its own (spread
     evenly over the maps), so a prefix holds every map, each participant on many.
4. **Balance first**: when that match would leave participants' counts two apart while
   another game's match would not, the next game (by progress) that has such a match plays
   instead. So the counts differ by at most one at every prefix unless no remaining match
   allows it (the last rounds of a run, a head-to-head round whose last two participants
   have met in every seat order already; with three-seat games, now and then earlier).

The result depends only on the plans and the seed, so a resumed run (its pending plans,
filtered in this order) plays its missing matches in the same relative order. The executor
(`arena.tournaments.running.executors.engine`, local and Ray alike) wakes matches, starts them and
takes claims in plan order, so a run keeps this order up to the matches in flight. Any
batch of plans (adaptive pairing's, say: `balanced_order` reads only `Orderable`) can be
ordered with the same function.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from arena.runtime.seeds import derive_seed

_PARTNER_SCAN = 3  # least played partners whose matches a head-to-head step compares
_PER_PARTNER = 4  # of a partner's matches with it, the first (in plan order) compared
_FEW_PARTNERS = 32  # below this many partners left, sort them instead of walking everyone
_MASK = (1 << 64) - 1


class _Seat(Protocol):
    @property
    def role(self) -> str: ...
    @property
    def participant(self) -> str: ...
    @property
    def main(self) -> bool: ...


class Orderable(Protocol):
    """What ordering reads of a plan (`arena.tournaments.planning.pairings.MatchPlan` has it)."""

    @property
    def game(self) -> str: ...
    @property
    def map_index(self) -> int: ...
    @property
    def mode(self) -> str: ...
    @property
    def main_role(self) -> str | None: ...
    @property
    def seats(self) -> Sequence[_Seat]: ...


P = TypeVar("P", bound=Orderable)
Cell = tuple[int, str]  # (map index, main role): the eval matches compared with one another


@dataclass(frozen=True, eq=False)  # identity: one per plan, hashed often
class _Match:
    """What the order needs of one plan."""

    index: int  # in the plans given
    position: int  # in its game's plans
    map_index: int
    cell: Cell
    rated: tuple[str, ...]  # main seats (every seat when none is main)
    seats: tuple[tuple[str, str], ...]  # (participant, role) of the rated seats
    pairs: tuple[tuple[str, str], ...]  # every two of `rated`, in name order


def _match(index: int, position: int, plan: Orderable) -> _Match:
    main = [s for s in plan.seats if s.main] or list(plan.seats)
    rated = tuple(dict.fromkeys(s.participant for s in main))
    return _Match(
        index, position, plan.map_index, (plan.map_index, plan.main_role or ""), rated,
        tuple((s.participant, s.role) for s in main),
        tuple((a, b) for a in rated for b in rated if a < b),
    )


class _Standing:
    """Participants by matches taken; within a count in a seeded order drawn for that count."""

    def __init__(self, names: Sequence[str], rng: random.Random) -> None:
        self.count: dict[str, int] = dict.fromkeys(names, 0)
        self._salt = {name: rng.getrandbits(64) for name in names}
        self._levels: dict[int, list[tuple[int, str]]] = {
            0: sorted(self._entry(n, 0) for n in names)
        } if names else {}

    def _entry(self, name: str, level: int) -> tuple[int, str]:
        mixed = ((self._salt[name] ^ (level * 0x9E3779B97F4A7C15)) * 0xBF58476D1CE4E5B9) & _MASK
        return mixed ^ (mixed >> 31), name

    def ascending(self) -> Iterator[str]:
        """Every participant, fewest matches first (callers stop before `played`)."""
        for level in sorted(self._levels):
            for _, name in self._levels[level]:
                yield name

    def key(self, name: str) -> tuple[int, int]:
        level = self.count[name]
        return level, self._entry(name, level)[0]

    def least(self) -> int:
        return min(self._levels)

    def at(self, level: int) -> int:
        return len(self._levels.get(level, ()))

    def balanced_after(self, rated: Sequence[str]) -> bool:
        """Whether counts stay at most one apart once `rated` have played one more match."""
        low = self.least()
        top = max(self._levels)
        new_top = max([top, *(self.count[n] + 1 for n in rated)])
        lows = sum(self.count[n] == low for n in rated)
        new_low = low if self.at(low) > lows else low + 1
        return new_top - new_low <= 1

    def played(self, names: Sequence[str]) -> None:
        for name in names:
            level = self.count[name]
            entries = self._levels[level]
            del entries[bisect.bisect_left(entries, self._entry(name, level))]
            if not entries:
                del self._levels[level]
            self.count[name] = level + 1
            bisect.insort(self._levels.setdefault(level + 1, []), self._entry(name, level + 1))


class _EvalGame:
    """One eval game's matches by map cell; cells fill one after another."""

    def __init__(self, matches: Sequence[_Match]) -> None:
        by_cell: dict[Cell, list[_Match]] = defaultdict(list)
        for match in matches:
            by_cell[match.cell].append(match)
        self.mine: dict[str, dict[Cell, list[_Match]]] = defaultdict(dict)
        self.waiting: dict[Cell, dict[str, None]] = {}
        for cell in _interleave_roles(list(by_cell)):
            self.waiting[cell] = {}
            for match in by_cell[cell]:
                for name in match.rated:
                    self.mine[name].setdefault(cell, []).append(match)
                    self.waiting[cell][name] = None
        self.open: dict[Cell, None] = {}  # cells begun and not yet full, oldest first

    def left(self, name: str) -> bool:
        return name in self.mine

    def choose(self, standing: _Standing, first: str, thorough: bool = False) -> _Match:
        """An open cell's entrant among the game's least played (`first` is one of them),
        else `first` in its next cell."""
        level = standing.count[first]
        if self.open:
            for name in standing.ascending():
                if standing.count[name] > level:
                    break
                cell = next((c for c in self.open if name in self.waiting[c]), None)
                if cell is not None:
                    return self.mine[name][cell][0]
        cells = self.mine[first]
        return cells[next(iter(cells))][0]

    def take(self, match: _Match) -> None:
        for name in match.rated:
            cells = self.mine[name]
            waiting = cells[match.cell]
            waiting.remove(match)
            if not waiting:
                del cells[match.cell], self.waiting[match.cell][name]
                if not cells:
                    del self.mine[name]
        if self.waiting[match.cell]:
            self.open[match.cell] = None
        else:
            self.open.pop(match.cell, None)


def _interleave_roles(cells: Sequence[Cell]) -> list[Cell]:
    """An eval game's cells, main roles alternating (least progress first, roles in name
    order on ties), maps in order within a role."""
    by_role: dict[str, list[Cell]] = defaultdict(list)
    for cell in sorted(cells, key=lambda c: (c[1], c[0])):
        by_role[cell[1]].append(cell)
    heap = [(0.0, role) for role in by_role]
    taken = dict.fromkeys(by_role, 0)
    out = []
    while heap:
        _, role = heapq.heappop(heap)
        out.append(by_role[role][taken[role]])
        taken[role] += 1
        if taken[role] < len(by_role[role]):
            heapq.heappush(heap, (taken[role] / len(by_role[role]), role))
    return out


def _partners(rated: Sequence[str], name: str) -> list[str | None]:
    """The others rated in a match with `name`; [None] when it plays alone."""
    others: list[str | None] = [o for o in rated if o != name]
    return others or [None]


class _HeadToHeadGame:
    """One head-to-head game's matches, indexed by each pair of participants in them."""

    def __init__(self, matches: Sequence[_Match]) -> None:
        # participant -> partner (None: a match it plays alone) -> its matches left
        self.partners: dict[str, dict[str | None, dict[_Match, None]]] = defaultdict(dict)
        self.seat: dict[tuple[str, str], int] = {}  # (participant, role) -> matches taken
        self.met: dict[tuple[str, str], int] = {}  # pair -> matches taken
        self.map_total: dict[int, int] = defaultdict(int)
        for match in matches:
            self.map_total[match.map_index] += 1
            for name in match.rated:
                for other in _partners(match.rated, name):
                    self.partners[name].setdefault(other, {})[match] = None
            self.seat.update(dict.fromkeys(match.seats, 0))
            self.met.update(dict.fromkeys(match.pairs, 0))
        by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for key in self.seat:
            by_name[key[0]].append(key)
        self.own = {key: tuple(by_name[key[0]]) for key in self.seat}  # a seat's siblings
        self.map_taken: dict[int, int] = dict.fromkeys(self.map_total, 0)
        self._spread_over_maps()

    def _spread_over_maps(self) -> None:
        """Each pair's matches, listed from a map of its own onwards (the pairs' starting
        maps spread evenly over the game's maps): a prefix then holds every map, each
        participant on many of them, rather than the first maps filled one by one."""
        rank = {m: i for i, m in enumerate(sorted(self.map_total))}
        pairs: dict[frozenset[str | None], int] = {}
        for name, mine in self.partners.items():
            for other in mine:
                pairs.setdefault(frozenset((name, other)), len(pairs))
        maps, count = len(rank), max(len(pairs), 1)
        for name, mine in self.partners.items():
            for other, found in mine.items():
                shift = pairs[frozenset((name, other))] * maps // count
                walk = sorted(found, key=lambda m: ((rank[m.map_index] - shift) % maps,
                                                    m.position))
                mine[other] = dict.fromkeys(walk)

    def left(self, name: str) -> bool:
        return name in self.partners

    def _cost(self, match: _Match, standing: _Standing) -> tuple[float, ...]:
        seat, met, count = self.seat, self.met, standing.count
        played = met_before = excess = 0
        for name in match.rated:
            played += count[name]
        for pair in match.pairs:
            met_before += met[pair]
        for key in match.seats:  # how far each is from the seat it has played least
            excess += seat[key] - min([seat[k] for k in self.own[key]])
        index = match.map_index
        return (
            played, excess, met_before, self.map_taken[index] / self.map_total[index],
            match.position,
        )

    def choose(self, standing: _Standing, first: str, thorough: bool = False) -> _Match:
        """`first`'s match with the least played partners, then the least met, then seats
        each played least, then the map with least progress. Among the first few
        partners and their first few matches, or `thorough`ly among all."""
        mine = self.partners[first]
        if thorough:
            return self.best((m for found in mine.values() for m in found), standing)
        best: tuple[tuple[float, ...], _Match] | None = None
        level, scanned = None, 0
        partners: Iterable[str | None]
        if None in mine:
            partners = (None,)
        elif len(mine) <= _FEW_PARTNERS:  # late in a game: fewer than those to skip over
            partners = sorted(mine, key=lambda q: standing.key(q or ""))
        else:
            partners = (q for q in standing.ascending() if q != first)
        for partner in partners:
            found = mine.get(partner)
            if not found:
                continue
            if partner is not None:
                if level is not None and standing.count[partner] > level:
                    break
                level = standing.count[partner]
            for match in itertools.islice(found, _PER_PARTNER):
                cost = self._cost(match, standing)
                if best is None or cost < best[0]:
                    best = (cost, match)
            scanned += 1
            if scanned >= _PARTNER_SCAN:
                break
        if best is None:  # unreachable: callers pick a `first` with a match left
            raise AssertionError(f"no match left for {first}")
        return best[1]

    def best(self, found: Iterable[_Match], standing: _Standing) -> _Match:
        return min(found, key=lambda m: self._cost(m, standing))

    def untake(self, match: _Match) -> None:
        """Put back a match `take` took."""
        rated = match.rated
        for name in rated:
            for other in _partners(rated, name):
                self.partners[name].setdefault(other, {})[match] = None
        for pair in match.pairs:
            self.met[pair] -= 1
        for seat in match.seats:
            self.seat[seat] -= 1
        self.map_taken[match.map_index] -= 1

    def take(self, match: _Match) -> None:
        rated = match.rated
        for name in rated:
            mine = self.partners[name]
            for other in _partners(rated, name):
                del mine[other][match]
                if not mine[other]:
                    del mine[other]
            if not mine:
                del self.partners[name]
        for pair in match.pairs:
            self.met[pair] += 1
        for seat in match.seats:
            self.seat[seat] += 1
        self.map_taken[match.map_index] += 1


def balanced_order(plans: Sequence[P], seed: int = 0) -> list[P]:
    """`plans` in balanced order (see the module docstring); deterministic given the plans
    and `seed`."""
    return [plans[m.index] for m in _Orderer(plans, seed).run()]


class _Orderer:
    """The greedy of the module docstring, with its repair of a stuck head-to-head round."""

    def __init__(self, plans: Sequence[Orderable], seed: int) -> None:
        rng = random.Random(derive_seed("order", seed))
        self.by_game: dict[str, list[_Match]] = defaultdict(list)
        eval_games: set[str] = set()
        for index, plan in enumerate(plans):
            found = self.by_game[plan.game]
            found.append(_match(index, len(found), plan))
            if plan.mode == "eval":
                eval_games.add(plan.game)
        games = sorted(self.by_game)
        rng.shuffle(games)
        self.kinds = {
            game: (_EvalGame if game in eval_games else _HeadToHeadGame)(self.by_game[game])
            for game in games
        }
        names = sorted({n for ms in self.by_game.values() for m in ms for n in m.rated})
        self.standing = _Standing(names, rng)
        self.progress = {game: (0.0, rank) for rank, game in enumerate(games)}
        self.taken = dict.fromkeys(games, 0)
        self.out: list[_Match] = []
        self.game_of: list[str] = []
        self.last: dict[str, int] = {}  # participant -> its last match's place in `out`
        self.low_since = 0  # where the least count reached its present value

    def run(self) -> list[_Match]:
        while self.progress:
            fallback: tuple[str, _Match] | None = None
            for game in sorted(self.progress, key=self.progress.__getitem__):
                kind = self.kinds[game]
                first = next(n for n in self.standing.ascending() if kind.left(n))
                match = kind.choose(self.standing, first)
                if not self.standing.balanced_after(match.rated):
                    match = kind.choose(self.standing, first, thorough=True)
                if self.standing.balanced_after(match.rated) or not self.taken[game]:
                    fallback = (game, match)  # a game's first match is never put off
                    break
                fallback = fallback or (game, match)
                if self._repair(game, first):
                    fallback = None
                    break
            if fallback is not None:
                self._append(*fallback)
        return self.out

    def _append(self, game: str, match: _Match, new: Sequence[str] | None = None) -> None:
        """Play `match` next; `new`: those whose count it raises (default: all of them)."""
        low = self.standing.least()
        self.kinds[game].take(match)
        self.standing.played(match.rated if new is None else new)
        for name in match.rated:
            self.last[name] = len(self.out)
        self.out.append(match)
        self.game_of.append(game)
        if self.standing.least() != low:
            self.low_since = len(self.out)
        self._count(game)

    def _count(self, game: str) -> None:
        self.taken[game] += 1
        total = len(self.by_game[game])
        if self.taken[game] == total:
            del self.progress[game]
        else:
            self.progress[game] = (self.taken[game] / total, self.progress[game][1])

    def _repair(self, game: str, stuck: str) -> bool:
        """Two-seat head-to-head: `stuck`, among the least played, has no match left with
        another of them. Find a match (a, b) of this game played since the least count was
        reached, with a match left for (stuck, a) and for (other, b): play (stuck, a) in
        its place and (other, b) now. Counts stay at most one apart at every prefix."""
        kind = self.kinds[game]
        if not isinstance(kind, _HeadToHeadGame):
            return False
        standing, low = self.standing, self.standing.least()
        if standing.count[stuck] != low:
            return False
        others = [n for n in standing.ascending() if standing.count[n] == low and n != stuck]
        for place in range(len(self.out) - 1, self.low_since - 1, -1):
            old = self.out[place]
            if self.game_of[place] != game or len(old.rated) != 2:
                continue
            for a, b in (old.rated, old.rated[::-1]):
                if self.last[a] != place or self.last[b] != place:
                    continue
                with_a = kind.partners[stuck].get(a)
                if not with_a:
                    continue
                for other in others:
                    with_b = kind.partners.get(other, {}).get(b)
                    if with_b:
                        kind.untake(old)
                        first = kind.best(with_a, standing)
                        kind.take(first)
                        self.out[place] = first
                        self.last[stuck] = place
                        second = kind.best(kind.partners[other][b], standing)
                        self._append(game, second, [stuck, other])
                        return True
        return False
