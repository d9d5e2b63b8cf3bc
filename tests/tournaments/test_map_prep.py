"""Maps are made while matches play (issue 35, item 2): a match waits for its own map only,
matches whose maps are ready take free slots in plan order, and a stored map is never
drawn again (the seeded-once rule: resume reuses the stored texts)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from arena.judges.ngram import NgramJudge
from arena.plugins.registry import Registry
from arena.protocols.dialect import Dialect
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores
from arena.protocols.story import StoryRequest
from arena.runtime.maps import JudgeStorySource
from arena.storage import FinishedMatch, Store, sqlite_url
from arena.storage.live import PLAYING, live_runs
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.running.executors.engine import run_tournament
from arena.tournaments.running.executors.map_prep import MapPreparation
from arena.tournaments.running.prepare import PreparedTournament, prepare_tournament
from tests.tournaments import arena_fixtures as fx

MANY_MAPS = fx.SMALL.replace("maps = 2", "maps = 4")


class GatedJudge:
    """The n-gram judge, except that only its first `generate` call answers before a match
    has used the judge (tokenized or scored something): the rest of the maps can only be
    made once play has begun."""

    def __init__(self) -> None:
        self._inner = NgramJudge()
        self.scored = asyncio.Event()
        self.generate_calls = 0

    @property
    def info(self) -> JudgeInfo:
        return self._inner.info

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        self.scored.set()
        return await self._inner.score(requests)

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        self.scored.set()
        return await self._inner.tokenize(texts, dialect)

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        self.generate_calls += 1
        if self.generate_calls > 1:
            await self.scored.wait()
        return await self._inner.generate(requests)

    async def aclose(self) -> None:
        await self._inner.aclose()


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []
        self.keys: list[str] = []

    def start(self, total: int, done: int) -> None:
        self.calls.append(("start", total, done))

    def preparing(self, done: int, total: int) -> None:
        self.calls.append(("preparing", done, total))

    def playing(self) -> None:
        self.calls.append(("playing", 0, 0))

    def stored(self, match: FinishedMatch, written: bool) -> None:
        self.calls.append(("stored", 0, 0))
        self.keys.append(match.key)

    def close(self) -> None:
        self.calls.append(("close", 0, 0))


def prepared(tmp_path: Path, registry: Registry, body: str = MANY_MAPS) -> PreparedTournament:
    path = fx.tournament_file(tmp_path, body)
    return prepare_tournament(load_tournament(path, registry), registry, str(path))


async def test_matches_of_a_ready_map_play_while_the_other_maps_are_made(tmp_path: Path) -> None:
    """Before: every map was made before any match, so this judge (later maps wait for a
    first score) never finished a run."""
    registry = fx.registry()
    tournament = prepared(tmp_path, registry)
    maps = len({(p.game, p.map_index) for p in tournament.plans})
    store = Store.open(sqlite_url(tmp_path / "o.db"))
    sink, judge = Recorder(), GatedJudge()
    try:
        summary = await asyncio.wait_for(
            run_tournament(tournament, registry=registry, judge=judge, store=store,
                           progress=sink),
            timeout=60,
        )
        beat = live_runs(store.engine, tournament="small")[0].progress
    finally:
        store.close()
    assert (summary.status, summary.written) == ("done", len(tournament.plans))
    assert summary.errors == 0
    assert judge.generate_calls == maps
    kinds = [c[0] for c in sink.calls]
    preparing = [c for c in sink.calls if c[0] == "preparing"]
    assert preparing[0] == ("preparing", 0, maps) and preparing[-1] == ("preparing", maps, maps)
    # play began before the maps were all made, and the phase stays "playing" meanwhile
    last_map = max(i for i, k in enumerate(kinds) if k == "preparing")
    assert kinds.index("playing") < last_map
    assert kinds.count("playing") == 1
    assert (beat.phase, beat.maps_done, beat.maps_total) == (PLAYING, maps, maps)


async def test_matches_whose_maps_are_ready_start_in_plan_order(tmp_path: Path) -> None:
    """All maps stored (a resume): the matches wake in the plan's order, whichever order
    their maps are in (the executor's order of pending matches is kept)."""
    registry = fx.registry()
    tournament = prepared(tmp_path, registry)
    store = Store.open(sqlite_url(tmp_path / "r.db"))
    try:
        await run_tournament(tournament, registry=registry,
                             judge=registry.create_judge("ngram"), store=store)
        setup_ids = {g: store.ensure_games([tournament.games[g].info])[0]
                     for g in tournament.games}
        key = store.tournament_seed_key(store.tournament_id("small") or 0)
        # an order that alternates maps (plans come grouped by map from the pairing)
        plans = sorted(tournament.plans, key=lambda p: (p.seats[0].participant, p.map_index,
                                                        p.game))
        assert len({(p.game, p.map_index) for p in plans[:3]}) > 1
        source = JudgeStorySource(registry.create_judge("ngram"))
        prep = MapPreparation(plans, tournament, store, source, setup_ids, key)
        woken: list[str] = []

        async def match(plan_key: str, plan: object) -> None:
            await prep.wait(plan)  # type: ignore[arg-type]
            woken.append(plan_key)

        async with asyncio.TaskGroup() as group:
            group.create_task(prep.run())
            for p in reversed(plans):  # waiting order must not matter either
                group.create_task(match(p.key, p))
    finally:
        store.close()
    assert woken == [p.key for p in plans]


class SlowFirstSource:
    """Judge stories; the first map asked for comes last (its texts wait 0.3 s)."""

    name = "judge:ngram"

    def __init__(self, inner: JudgeStorySource) -> None:
        self._inner, self._calls = inner, 0

    async def stories(self, requests: Sequence[StoryRequest]) -> list[str]:
        self._calls += 1
        if self._calls == 1:
            await asyncio.sleep(0.3)
        return await self._inner.stories(requests)


async def test_a_map_made_late_keeps_the_matches_after_it_waiting(tmp_path: Path) -> None:
    """Maps are made concurrently and may be ready in any order; matches still wake in
    plan order (issue 30: the run's balanced order), so the first map made last holds
    back every match planned after its own. Before, the matches of the maps made first
    woke first."""
    registry = fx.registry()
    tournament = prepared(tmp_path, registry)
    store = Store.open(sqlite_url(tmp_path / "l.db"))
    try:
        game_ids = {g: store.ensure_games([tournament.games[g].info])[0]
                    for g in tournament.games}
        tid = store.ensure_tournament("small", "eval", "{}")
        source = SlowFirstSource(JudgeStorySource(registry.create_judge("ngram")))
        plans = list(tournament.plans)
        prep = MapPreparation(plans, tournament, store, source, game_ids,
                              store.tournament_seed_key(tid))
        woken: list[str] = []

        async def match(plan: object) -> None:
            found = await prep.wait(plan)  # type: ignore[arg-type]
            assert found is not None
            woken.append(plan.key)  # type: ignore[attr-defined]

        async with asyncio.TaskGroup() as group:
            group.create_task(prep.run())
            for p in plans:
                group.create_task(match(p))
    finally:
        store.close()
    assert woken == [p.key for p in plans]


class RefusingSource:
    """A story source that must not be asked: every map is stored already."""

    name = "judge:ngram"

    def __init__(self) -> None:
        self.asked = 0

    async def stories(self, requests: Sequence[StoryRequest]) -> list[str]:
        self.asked += 1
        raise AssertionError("a stored map was drawn again")


async def test_a_stored_map_is_never_drawn_again(tmp_path: Path) -> None:
    """The seeded-once rule: a map's texts are drawn once and stored; a resumed run (even
    with a judge that would now draw other texts, e.g. on another device) plays the stored
    ones and never asks the source."""
    registry = fx.registry()
    tournament = prepared(tmp_path, registry)
    store = Store.open(sqlite_url(tmp_path / "s.db"))
    try:
        await run_tournament(tournament, registry=registry,
                             judge=registry.create_judge("ngram"), store=store)
        game_ids = {g: store.ensure_games([tournament.games[g].info])[0]
                    for g in tournament.games}
        key = store.tournament_seed_key(store.tournament_id("small") or 0)
        first = {(p.game, p.map_index): store.find_map(game_ids[p.game], p.map_seed,
                                                       "judge:ngram")
                 for p in tournament.plans}
        source = RefusingSource()
        prep = MapPreparation(tournament.plans, tournament, store, source, game_ids, key)
        await prep.run()
        again = {(p.game, p.map_index): await prep.wait(p) for p in tournament.plans}
    finally:
        store.close()
    assert source.asked == 0 and not prep.failures
    for map_key, found in again.items():
        assert found is not None and first[map_key] is not None
        assert found[0] == first[map_key][0]  # type: ignore[index]
        assert dict(found[1].stories) == first[map_key][1]  # type: ignore[index]


def test_a_source_of_named_maps_is_bound_through_its_declared_contract() -> None:
    """`for_map` is a declared protocol (arena.protocols.story.MapBoundStorySource), not a
    method looked up by name: the published maps' source has it, the judge's does not."""
    from arena import MapBoundStorySource, StorySource
    from arena.tournaments.planning.stories.xent_maps import XentMapsSource

    published = XentMapsSource({})
    judged = JudgeStorySource(NgramJudge())
    assert isinstance(published, MapBoundStorySource) and isinstance(published, StorySource)
    assert not isinstance(judged, MapBoundStorySource) and isinstance(judged, StorySource)


class CountingSource:
    """Judge stories, counting the maps asked for; `fail`: every map fails instead."""

    name = "judge:ngram"

    def __init__(self, inner: JudgeStorySource, fail: bool = False) -> None:
        self._inner, self.fail, self.asked = inner, fail, 0

    async def stories(self, requests: Sequence[StoryRequest]) -> list[str]:
        self.asked += 1
        if self.fail:
            raise RuntimeError("no stories today")
        return await self._inner.stories(requests)


async def _play_ahead(tmp_path: Path, source: CountingSource, ahead: int, start: bool
                      ) -> tuple[MapPreparation, int, list[str], list[str]]:
    """Run a MapPreparation that makes maps `ahead` of play with a match task per plan
    (`start`: each starts once its map is ready); stop it once nothing moves. Returns it,
    the number of plans, the plans woken with a map, and those released unmade by the
    stop."""
    registry = fx.registry()
    tournament = prepared(tmp_path, registry)
    store = Store.open(sqlite_url(tmp_path / "a.db"))
    woken: list[str] = []
    released: list[str] = []
    try:
        game_ids = {g: store.ensure_games([tournament.games[g].info])[0]
                    for g in tournament.games}
        tid = store.ensure_tournament("small", "eval", "{}")
        prep = MapPreparation(tournament.plans, tournament, store, source, game_ids,
                              store.tournament_seed_key(tid), ahead=ahead)

        async def match(plan: object) -> None:
            try:
                found = await prep.wait(plan)  # type: ignore[arg-type]
            except asyncio.CancelledError:
                if prep.left_unmade(plan):  # type: ignore[arg-type]
                    released.append(plan.key)  # type: ignore[attr-defined]
                    return
                raise
            if found is not None:
                woken.append(plan.key)  # type: ignore[attr-defined]
                if start:
                    prep.started(plan)  # type: ignore[arg-type]

        async with asyncio.timeout(60), asyncio.TaskGroup() as group:
            group.create_task(prep.run())
            tasks = [group.create_task(match(p)) for p in tournament.plans]
            # every match has ended, or (none starting) the maps allowed ahead are asked for
            while not (all(t.done() for t in tasks) or (not start and source.asked >= ahead)):
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.2)  # nothing more would begin: play is not moving
            prep.stop()
    finally:
        store.close()
    return prep, len(tournament.plans), woken, released


async def test_maps_are_begun_only_as_far_ahead_as_asked_and_the_rest_released(
    tmp_path: Path,
) -> None:
    """ahead=2 and no match starts: only the first 2 of the plan's maps are made; when the
    run stops, every match still waiting is released as left unmade."""
    registry = fx.registry()
    source = CountingSource(JudgeStorySource(registry.create_judge("ngram")))
    prep, plans, woken, released = await _play_ahead(tmp_path, source, ahead=2, start=False)
    assert prep.total > 2 and source.asked == 2 and not prep.failures
    assert woken and released and len(woken) + len(released) == plans


async def test_failed_maps_count_as_passed_so_play_never_waits_on_them(tmp_path: Path) -> None:
    """ahead=1 and every map fails: no match starts on any, yet each map is tried in turn
    (a failed map moves play past it) and the run ends instead of waiting forever."""
    registry = fx.registry()
    source = CountingSource(JudgeStorySource(registry.create_judge("ngram")), fail=True)
    prep, _, woken, released = await _play_ahead(tmp_path, source, ahead=1, start=True)
    assert source.asked == prep.total == len(prep.failures) > 1
    assert not woken and not released
