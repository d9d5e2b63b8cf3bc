"""Running a tournament: every pending match of the schedule, concurrently, stored as it ends.

- Resume: matches whose key is stored as `done` are skipped, so running the same command
  again after a crash (even `kill -9`) plays exactly the missing ones. Each match is written
  whole in one transaction (`arena.storage.MatchWriter`), so a kill leaves a match complete
  or absent. A match stored as `error` is played again.
- Maps are resolved once per (game, map seed) and stored before any match on them is
  played; stored texts are reused, so every entrant plays identical maps. Maps are made
  while matches play: a match waits for its own map and those of the matches planned
  before it (`map_prep.MapPreparation`).
- Order: pending matches start in plan order (the balanced order of
  `arena.tournaments.planning.match_order`; a resume plays the missing ones in the same relative
  order): they wake in that order once their maps are ready and queue for the
  concurrency slots first come, first served, so the matches stored at any moment are a
  prefix of the order up to those in flight (a match waiting for a provider's own limit
  lets later matches of other providers pass). Claims are taken in chunks in that order.
  A run whose stopping rule rates the board (`stop_when = "settled"`, a placement) plays in
  rounds instead (`arena.tournaments.running.rounds`): the round robin's order, or adaptive
  pairing's picks, a round at a time, so the rule decides on exactly the stored matches.
- Claims: each match is claimed in the database before it is played
  (`arena.storage.claims`), so several drivers on one database (Postgres) never play a
  match twice; claims are renewed while the run lives and freed when it ends or is found
  dead.
- Concurrency: an `asyncio.TaskGroup` with one task per match, bounded by a global
  semaphore and one semaphore per provider (the player spec's name, e.g. `litellm`).
- Ctrl-C cancels the task group; matches in flight are dropped (not written), matches
  already finished are stored, and the run is marked interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass

from arena import __version__
from arena.events import Event
from arena.match_setup import LoadedGame
from arena.plugins.registry import Registry
from arena.protocols.executor import EventHook
from arena.protocols.judge import Judge
from arena.protocols.story import StorySource
from arena.redaction import redact
from arena.runtime.maps import GameMap, JudgeStorySource
from arena.runtime.match import MatchConfig
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy
from arena.specs import parse_spec
from arena.storage import (
    MATCH_ERROR,
    MATCH_NO_RESULT,
    FinishedMatch,
    JudgeProvenance,
    MatchWriter,
    StorageError,
    Store,
    claims,
)
from arena.tournaments.planning.pairings import MatchPlan
from arena.tournaments.planning.plugin_problems import JUDGE_STORIES
from arena.tournaments.planning.stories.spec_paths import story_spec
from arena.tournaments.ratings.stopping import StopRules
from arena.tournaments.running.adaptive_rounds import adaptive_rounds
from arena.tournaments.running.executors.map_prep import AHEAD_OF_PLAY, MapPreparation
from arena.tournaments.running.live_reporter import LiveReporter
from arena.tournaments.running.match_task import MatchContext, judge_backend, play_plan
from arena.tournaments.running.prepare import PreparedTournament
from arena.tournaments.running.progress import NoProgress, ProgressSink, judge_metrics
from arena.tournaments.running.rounds import OrderedRounds, Rounds
from arena.tournaments.running.stop_watch import StopWatch

# Plays one match (`play_plan` in this process; the Ray executor's runner in a Ray task).
MatchRunner = Callable[
    [MatchPlan, LoadedGame, GameMap, int, MatchContext], Awaitable[FinishedMatch]
]


STOPPED = "stopped"  # a run whose stopping rule was met (tournament keys stop_when, ...)


@dataclass
class RunSummary:
    run_id: int
    planned: int
    already_done: int
    pending: int
    written: int = 0
    errors: int = 0
    no_results: int = 0  # played, without a result by the game's rules (MATCH_NO_RESULT)
    duplicates: int = 0  # finished here but stored meanwhile by another process
    claimed_elsewhere: int = 0  # left to another driver playing them on the same database
    map_failures: int = 0  # matches not played because their map could not be made
    rounds: int = 0
    wall_s: float = 0.0
    status: str = "running"  # running, done, incomplete, stopped, interrupted or failed
    stopped: int = 0  # matches not played because a stopping rule was met
    stop_reason: str | None = None  # the rule met and why, in one sentence (issue 33)
    abandoned_runs: tuple[int, ...] = ()  # earlier runs found dead and marked interrupted
    notes: tuple[str, ...] = ()  # warnings for the end of the run (roles measuring nothing)


class Limits:
    """A global limit on matches in flight plus one limit per provider."""

    def __init__(self, total: int, providers: Mapping[str, int]) -> None:
        self._total = asyncio.Semaphore(total)
        self._providers = {name: asyncio.Semaphore(n) for name, n in providers.items()}
        self.total = total

    @contextlib.asynccontextmanager
    async def slot(self, providers: Iterable[str]) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            # Always acquired in sorted order, then the global one: no deadlock.
            for name in sorted(set(providers) & self._providers.keys()):
                await stack.enter_async_context(self._providers[name])
            await stack.enter_async_context(self._total)
            yield


class ClaimBook:
    """This run's claims on its pending matches, taken a chunk at a time in plan order (one
    transaction per chunk, not per match) so several drivers share a tournament."""

    def __init__(
        self, store: Store, tournament_id: int, run_id: int, keys: list[str], chunk: int
    ) -> None:
        self._store, self._tournament_id, self._run_id = store, tournament_id, run_id
        self._order = {k: i for i, k in enumerate(keys)}
        self._keys, self._chunk = keys, max(1, chunk)
        self._asked: set[str] = set()
        self._mine: set[str] = set()
        self._lock = asyncio.Lock()
        self._in_flight: asyncio.Task[list[str]] | None = None

    async def take(self, key: str) -> bool:
        async with self._lock:
            if key not in self._asked:
                start = self._order[key]
                wanted = [k for k in self._keys[start:] if k not in self._asked][: self._chunk]
                self._asked.update(wanted)
                self._in_flight = asyncio.create_task(
                    self._store.claim_matches.in_thread(self._tournament_id, self._run_id, wanted)
                )
                # Shielded: a cancelled run must not leave the claiming thread to commit
                # after the run has released its claims (see `settle`).
                self._mine.update(await asyncio.shield(self._in_flight))
            return key in self._mine

    async def settle(self) -> None:
        """Wait for a claim transaction still running in its thread, so that releasing the
        run's claims afterwards frees every key it took (a cancelled `take` leaves one)."""
        if self._in_flight is not None:
            with contextlib.suppress(Exception):
                await self._in_flight


def config_sha256(tournament: PreparedTournament) -> str:
    text = tournament.config.model_dump_json(by_alias=True)
    return hashlib.sha256(text.encode()).hexdigest()


def story_source(tournament: PreparedTournament, registry: Registry, judge: Judge) -> StorySource:
    spec = tournament.config.stories
    if spec == JUDGE_STORIES:
        return JudgeStorySource(judge)
    # a relative corpus or maps path is read from the tournament file's folder
    return registry.create_story_source(
        story_spec(spec, tournament.config.base_dir, registry), judge
    )


@dataclass(frozen=True)
class _Setup:
    tournament_id: int
    participant_ids: dict[str, int]
    game_ids: dict[str, int]
    judge_id: int
    run_id: int
    pending: list[MatchPlan]
    seed_key: bytes
    abandoned_runs: tuple[int, ...]


def _read_only_summary(store: Store, tournament: PreparedTournament) -> RunSummary:
    """A read-only database: nothing may be written, so a tournament whose matches are all
    stored is reported as done without recording a run; one with matches still to play is
    refused before anything starts."""
    name = tournament.config.name
    found = store.tournament_id(name)
    done = store.done_keys(found) if found is not None else set()
    pending = sum(p.key not in done for p in tournament.plans)
    if pending:
        store.require_writable(
            f"{pending} match(es) of tournament '{name}' are still to be played and stored"
        )
    planned = len(tournament.plans)
    return RunSummary(0, planned, planned, 0, status="done")


def _setup(store: Store, tournament: PreparedTournament, judge: Judge) -> _Setup:
    """In a worker thread: identity rows (created if new), earlier runs whose process died
    marked interrupted, the matches still to play, and a new run row."""
    config = tournament.config
    tournament_id = store.ensure_tournament(
        config.name, config.mode, redact(config.model_dump_json(by_alias=True))
    )
    abandoned = tuple(store.interrupt_abandoned_runs(tournament_id))
    store.release_runs_claims(abandoned)  # a killed driver's matches are free now
    people = list(tournament.participants)
    participant_ids = store.ensure_participants([tournament.participants[n] for n in people])
    labels = list(tournament.games)
    game_ids = store.ensure_games([tournament.games[g].info for g in labels])
    info = judge.info
    judge_id = store.ensure_judge(
        JudgeProvenance(
            redact(config.judge), info.name, info.model, info.revision, info.dtype,
            info.vocab_size,
        )
    )
    done = store.done_keys(tournament_id)
    pending = [p for p in tournament.plans if p.key not in done]
    run_id = store.start_run(
        tournament_id,
        planned=len(tournament.plans),
        pending=len(pending),
        config_sha256=config_sha256(tournament),
        version=__version__,
    )
    return _Setup(
        tournament_id,
        dict(zip(people, participant_ids, strict=True)),
        dict(zip(labels, game_ids, strict=True)),
        judge_id,
        run_id,
        pending,
        store.tournament_seed_key(tournament_id),
        abandoned,
    )


def _first(group: BaseExceptionGroup[StorageError]) -> StorageError:
    found = group.exceptions[0]
    return _first(found) if isinstance(found, BaseExceptionGroup) else found


async def run_tournament(
    tournament: PreparedTournament,
    *,
    registry: Registry,
    judge: Judge,
    store: Store,
    concurrency: int | None = None,
    progress: ProgressSink | None = None,
    on_event: EventHook | None = None,
    runner: MatchRunner = play_plan,
    executor: str = "local",
) -> RunSummary:
    """Play every match of `tournament` not yet stored as done; returns what happened.

    The judge is used as given (wrap it in a batching pool before, if wanted); it is not
    closed here. `concurrency` overrides the file's global limit. `runner` plays one match
    (an executor's seam: the Ray executor plays it in a Ray task); whatever plays it, this
    process alone writes to `store`. `executor` is recorded with each match.
    """
    config = tournament.config
    if store.read_only:  # the run_id of the summary is 0: no run was recorded
        return await asyncio.to_thread(_read_only_summary, store, tournament)
    sink = progress or NoProgress()
    started = time.perf_counter()
    setup = await asyncio.to_thread(_setup, store, tournament, judge)
    pending, run_id, game_ids = setup.pending, setup.run_id, setup.game_ids
    planned = len(tournament.plans)
    summary = RunSummary(run_id, planned, planned - len(pending), len(pending))
    summary.abandoned_runs = setup.abandoned_runs
    limits = Limits(concurrency or config.concurrency.global_, config.concurrency.providers)
    live = LiveReporter(
        store, run_id=run_id, tournament_id=setup.tournament_id, total=planned,
        done_before=summary.already_done, metrics=judge_metrics(judge),
    )

    adaptive = await adaptive_rounds(tournament, pending, store, width=limits.total)
    if adaptive is not None:
        pending = adaptive.candidates  # a placement plays only the new entrants' matches
    rules = StopRules.of(config, adaptive.newcomers if adaptive is not None else ())
    # a round robin whose rule rates the board plays in rounds too: the same stop every run
    rounds: Rounds | None = adaptive or (
        OrderedRounds(pending, limits.total) if rules.rates else None)
    watch = (StopWatch(rules, store, config.name, tournament.entrants, summary.already_done)
             if rules.any else None)

    def observe(event: Event, key: str) -> None:
        live.on_event(event, key)
        if watch is not None:
            watch.on_event(event)
        if on_event is not None:
            on_event(event, key)

    context = MatchContext(
        registry=registry,
        judge=judge,
        config=MatchConfig(
            seed_key=setup.seed_key,
            limits=RoundLimits(config.ensure_budget, config.instruction_budget, config.limits),
            policy=MovePolicy(timeout_s=config.move_timeout, retries=config.move_retries),
        ),
        tournament_id=setup.tournament_id,
        run_id=run_id,
        judge_id=setup.judge_id,
        participant_ids=setup.participant_ids,
        game_ids=game_ids,
        on_event=observe,
        executor=executor,
        judge_backend=judge_backend(judge),
    )

    def stored(match: FinishedMatch, written: bool) -> None:
        if written:
            summary.written += 1
            summary.errors += match.status == MATCH_ERROR
            summary.no_results += match.status == MATCH_NO_RESULT
            summary.rounds += match.rounds if match.status != MATCH_ERROR else 0
        else:
            summary.duplicates += 1
        live.stored(match, written)
        sink.stored(match, written)

    sink.start(summary.planned, summary.already_done)
    await live.start()
    renewer = asyncio.create_task(_renew_claims(store, run_id))
    # adaptive pairing claims match by match: a chunk would hold matches it may never pick
    book = ClaimBook(store, setup.tournament_id, run_id, [p.key for p in pending],
                     limits.total if adaptive is None else 1)
    try:
        source = story_source(tournament, registry, judge)

        def preparing(done: int, total: int) -> None:
            live.preparing(done, total)
            sink.preparing(done, total)

        maps = MapPreparation(
            pending, tournament, store, source, game_ids, setup.seed_key, preparing,
            in_order=adaptive is None,
            # a rule may stop a round robin: its maps only a little ahead of play (adaptive
            # runs make each map when a pick first needs it)
            ahead=None if watch is None or adaptive is not None
            else max(AHEAD_OF_PLAY, limits.total),
        )
        began: list[bool] = []

        def playing() -> None:  # once, when the first map is ready (or none can be)
            if not began:
                began.append(True)
                live.playing()
                sink.playing()

        async def prepare() -> None:
            await maps.run()
            playing()

        provider = {p.player: parse_spec(p.player).name for p in config.participants}

        async def play(plan: MatchPlan, allowed: bool = False) -> None:
            """Play one match (``allowed``: its round was already let through the stopping
            rules)."""
            try:
                found = await maps.wait(plan)
            except asyncio.CancelledError:
                if maps.left_unmade(plan):  # a rule stopped the run before its map was begun
                    summary.stopped += 1
                    return
                raise
            if found is None:  # its map could not be made: the next run plays it
                summary.map_failures += 1
                return
            playing()
            providers = [provider[s.spec] for s in plan.seats]
            async with limits.slot(providers):
                # asked with a slot in hand: the matches stored meanwhile count
                if watch is not None and not allowed and await watch.should_stop():
                    maps.stop()  # no match will start: the maps not begun stay unmade
                    summary.stopped += 1
                    return
                maps.started(plan)
                if not await book.take(plan.key):  # another driver plays it, or stored it
                    summary.claimed_elsewhere += 1
                    return
                map_id, game_map = found
                game = tournament.games[plan.game]
                live.match_started(plan)
                try:
                    match = await runner(plan, game.game, game_map, map_id, context)
                finally:
                    live.match_ended(plan.key)
            if watch is not None:  # counted when played: the writer stores in batches
                watch.played(match)
            writer.submit(match)

        async with MatchWriter(store, on_written=stored) as writer, asyncio.TaskGroup() as group:
            group.create_task(prepare())
            try:
                async with asyncio.TaskGroup() as matches:
                    if rounds is None:
                        for plan in pending:
                            matches.create_task(play(plan))
                    else:
                        matches.create_task(rounds.play(
                            lambda plan: play(plan, allowed=True), writer.flush,
                            watch.allow if watch is not None else _everything,
                        ))
            finally:  # every match has ended: maps no match will play are not made
                maps.stop()
        if rounds is not None:  # the candidates never handed out: left by the stopping rule
            summary.stopped += len(pending) - rounds.handed_out
        summary.status = "done" if not maps.failures else "incomplete"
        if watch is not None and watch.decision is not None:
            summary.status, summary.stop_reason = STOPPED, watch.decision.reason
    except BaseExceptionGroup as group:
        summary.status = "failed"
        storage = group.subgroup(StorageError)
        if storage is not None:  # the database failed: say so plainly, not as a group
            raise _first(storage) from group
        raise
    except (asyncio.CancelledError, KeyboardInterrupt):
        summary.status = "interrupted"
        raise
    except BaseException:
        summary.status = "failed"
        raise
    finally:
        renewer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewer
        summary.wall_s = time.perf_counter() - started
        sink.close()
        live.finish(summary.status)
        await asyncio.shield(live.close())
        await asyncio.shield(book.settle())
        await asyncio.shield(store.release_claims.in_thread(run_id))
        # a stopped run stores why with its status ("stopped: settled: ..."): runs show it
        final = summary.status if summary.stop_reason is None else (
            f"{STOPPED}: {summary.stop_reason}")
        await asyncio.shield(asyncio.to_thread(store.finish_run, run_id, final))
    return summary


async def _everything(wanted: int) -> int:
    """No stopping rule: every match of a round may start."""
    return wanted


async def _renew_claims(store: Store, run_id: int) -> None:
    """Keep this run's claims alive (a failed renewal is retried next time)."""
    while True:
        await asyncio.sleep(claims.CLAIM_TTL_S / 3)
        with contextlib.suppress(Exception):
            await store.renew_claims.in_thread(run_id)
