"""A run's maps, made while its matches play: a match waits for its own map only.

Each (game, map index) of the pending matches is resolved once: found stored, or made from
its seed (texts sampled under the tournament's secret key, `arena.runtime.seeds.story_seed`)
and stored; the stored texts are what every entrant plays (`Store.ensure_map`: the first
stored texts win), so a resumed run never redraws a map. Maps are made in the order the
pending matches first need them, up to `MAPS_IN_FLIGHT` at once, so a judge that draws many
stories together (`arena.judges.hf.sample_queue`) gets many; a map that cannot be made
skips only its matches.

Matches wake in plan order (the run's balanced order, `arena.tournaments.planning.match_order`): a
match whose map is ready waits for the maps of the matches planned before it, so a map
made early (maps are made concurrently) never lets later matches overtake earlier ones,
and the matches a run has stored are always a prefix of its order, up to those in flight.
Maps are made in that same order, so the wait is for maps already being made.

With adaptive pairing (``in_order=False``) the run picks its own order, a match waits for
its own map only, and maps are made *on demand*: a map is made when a picked match first
waits for it, so the maps of the matches picked first are made first, and a run that stops
early (its ranking settled) makes no map it will not play. Either way, `stop()` once every
match has ended leaves the maps not yet begun unmade (a round robin stopped by a rule).

A round robin that a rule may stop (``ahead=N``) makes its maps at most N ahead of play:
map j is begun once a match of map j - N or later has started (`started`), so a run that
stops early has paid for at most N maps it did not play. Without a rule every map will be
played, and maps are made as fast as the judge allows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping

from arena.protocols.story import MapBoundStorySource, StorySource
from arena.redaction import redact
from arena.runtime.maps import GameMap, resolve_map
from arena.runtime.seeds import story_seed
from arena.storage import Store
from arena.tournaments.planning.pairings import MatchPlan
from arena.tournaments.running.prepare import PreparedTournament

# Maps being made at once: enough to fill several 16-row sampling blocks of the HF judge.
MAPS_IN_FLIGHT = 64
# How far a round robin that a rule may stop makes its maps ahead of play (one sampling
# block of the HF judge; more when more matches play at once).
AHEAD_OF_PLAY = 16

MapKey = tuple[str, int]  # (game label, map index)
Found = tuple[int, GameMap]  # stored map id, and the map


class MapPreparation:
    """Makes the maps of `plans` (`run()`); `wait(plan)` returns a plan's map once it is
    ready, or None if it could not be made (the reason is in `failures`)."""

    def __init__(
        self,
        plans: Iterable[MatchPlan],
        tournament: PreparedTournament,
        store: Store,
        source: StorySource,
        game_ids: Mapping[str, int],
        seed_key: bytes,
        on_map: Callable[[int, int], None] = lambda done, total: None,
        *,
        in_order: bool = True,
        ahead: int | None = None,
    ) -> None:
        self._wanted: dict[MapKey, int] = {}  # first need first
        self._needs: dict[MapKey, list[str]] = {}  # the plans of each map, in plan order
        loop = asyncio.get_running_loop()
        self._ready: dict[str, asyncio.Future[Found | None]] = {}
        for p in plans:
            key = (p.game, p.map_index)
            self._wanted.setdefault(key, p.map_seed)
            self._needs.setdefault(key, []).append(p.key)
            self._ready[p.key] = loop.create_future()
        self._queue = list(self._ready)  # plan order; `_next`: the first not woken yet
        self._next = 0
        self._found: dict[str, Found | None] = {}  # settled, waiting for earlier plans
        self._tournament, self._store, self._source = tournament, store, source
        self._game_ids, self._seed_key, self._on_map = game_ids, seed_key, on_map
        self.failures: dict[MapKey, str] = {}
        self._done = 0
        self._in_order = in_order  # False: a plan wakes on its own map (adaptive pairing)
        self._demand: asyncio.Queue[MapKey | None] = asyncio.Queue()  # on demand: maps asked
        self._asked: set[MapKey] = set()
        self._stopping = False
        self._ahead = ahead  # in order: maps begun at most this far ahead of play (None: any)
        self._position = {key: i for i, key in enumerate(self._wanted)}
        self._played_to = -1  # the furthest map (position) a started match is on
        self._moved = asyncio.Event()  # play moved on, or the run stops

    @property
    def total(self) -> int:
        return len(self._wanted)

    async def wait(self, plan: MatchPlan) -> Found | None:
        if not self._in_order:
            key = (plan.game, plan.map_index)
            if key not in self._asked:  # made on demand: this is the first match to need it
                self._asked.add(key)
                self._demand.put_nowait(key)
        return await asyncio.shield(self._ready[plan.key])

    def stop(self) -> None:
        """No more matches will start (every one has ended, or a rule stopped the run): the
        maps not begun yet are not made, `run` returns once those being made are stored,
        and the matches still waiting for a map are released (`left_unmade`)."""
        self._stopping = True
        self._demand.put_nowait(None)
        self._moved.set()

    def left_unmade(self, plan: MatchPlan) -> bool:
        """Whether `wait(plan)` was cancelled because the run stopped before its map was
        made (not because the waiting task itself was cancelled)."""
        task = asyncio.current_task()
        return (self._stopping and self._ready[plan.key].cancelled()
                and (task is None or not task.cancelling()))

    def started(self, plan: MatchPlan) -> None:
        """A match of `plan`'s map has started: maps up to `ahead` beyond it may be begun."""
        self._reach((plan.game, plan.map_index))

    def _reach(self, key: MapKey) -> None:
        """Play has reached map `key` (a match started on it, or it failed: its matches are
        passed over)."""
        at = self._position[key]
        if at > self._played_to:
            self._played_to = at
            self._moved.set()

    async def run(self) -> None:
        """Make the maps (every one in plan order, or on demand; module docstring) until all
        are made or `stop()`; storage errors propagate, any other error fails its map only."""
        self._on_map(0, self.total)
        try:
            stored = await asyncio.to_thread(self._find_stored)
            self._settle(stored)
            limit = asyncio.Semaphore(MAPS_IN_FLIGHT)
            async with asyncio.TaskGroup() as group:
                if self._in_order:
                    for at, key in enumerate(self._wanted):
                        if key in stored:
                            continue
                        while not self._stopping and not self._may_begin(at):
                            self._moved.clear()
                            await self._moved.wait()
                        if self._stopping:
                            break
                        group.create_task(self._make(key, limit))
                else:
                    while (asked := await self._demand.get()) is not None:
                        if asked not in stored:
                            group.create_task(self._make(asked, limit))
        finally:  # a run that stops early leaves no match waiting on a map
            for future in self._ready.values():
                if not future.done():
                    future.cancel()

    def _may_begin(self, at: int) -> bool:
        return self._ahead is None or at <= self._played_to + self._ahead

    def _find_stored(self) -> dict[MapKey, Found]:
        found: dict[MapKey, Found] = {}
        for (game, index), seed in self._wanted.items():
            hit = self._store.find_map(self._game_ids[game], seed, self._bound(game, index).name)
            if hit is not None:
                found[(game, index)] = (hit[0], GameMap(seed=seed, stories=hit[1]))
        return found

    def _bound(self, game: str, index: int) -> StorySource:
        """The source of map `index` of `game` (a source of fixed maps, xent-maps, serves
        each map by name)."""
        source = self._source
        return source.for_map(game, index) if isinstance(source, MapBoundStorySource) else source

    async def _make(self, key: MapKey, limit: asyncio.Semaphore) -> None:
        game, index = key
        seed = self._wanted[key]
        bound = self._bound(game, index)
        try:
            async with limit:
                if self._stopping:  # no match will play it
                    return
                made = await resolve_map(
                    self._tournament.games[game].program, story_seed(self._seed_key, seed), bound
                )
        except Exception as error:  # this map's matches wait for the next run
            self.failures[key] = redact(f"{type(error).__name__}: {error}")
            self._settle({key: None})
            self._reach(key)  # no match will start on it: the maps after it may begin
            return
        map_id, stories = await asyncio.to_thread(
            self._store.ensure_map, self._game_ids[game], seed, bound.name, made.stories
        )
        self._settle({key: (map_id, GameMap(seed=seed, stories=stories))})

    def _settle(self, maps: Mapping[MapKey, Found | None]) -> None:
        """Maps are ready (or failed): the matches whose own map and every earlier match's
        map are settled wake, in plan order (the earliest planned takes the first free
        slot)."""
        if not maps:
            return
        for key, found in maps.items():
            self._found.update(dict.fromkeys(self._needs[key], found))
        if not self._in_order:  # adaptive pairing picks its own order
            for plan_key in list(self._found):
                self._ready[plan_key].set_result(self._found.pop(plan_key))
            self._done += len(maps)
            self._on_map(self._done, self.total)
            return
        queue, ready = self._queue, self._ready
        while self._next < len(queue) and queue[self._next] in self._found:
            plan_key = queue[self._next]
            ready[plan_key].set_result(self._found.pop(plan_key))
            self._next += 1
        self._done += len(maps)
        self._on_map(self._done, self.total)
