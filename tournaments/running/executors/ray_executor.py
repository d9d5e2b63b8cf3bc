"""The Ray executor: matches as Ray tasks, judges as Ray actors, the database as the ledger.

The driver (this process) runs the same loop as the local executor (`run_tournament`:
resume by match key, maps made once, one writer, live progress rows), but each match is
played by a Ray task (`ray_tasks.play_match`) and its record comes back to be stored here:
the driver is the only process writing to the database, so SQLite works for one host.
Back-pressure: at most `[ray] max_in_flight` matches are submitted and awaited at once.
Judges: `[ray] judges` async actors (`ray_judge.JudgeActor`, default one per GPU), which
the driver also uses for maps and provenance. Events come back through a Ray queue and
reach the driver's observers (the Live page's heartbeat rows, `on_event`) before the match
is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any

from arena.events import Event
from arena.match_setup import LoadedGame
from arena.plugins.registry import Registry
from arena.protocols.executor import EventHook
from arena.runtime.maps import GameMap
from arena.specs import parse_spec
from arena.storage import FinishedMatch, Store
from arena.storage.tables import utcnow
from arena.tournaments.planning.config import RayConfig
from arena.tournaments.planning.pairings import MatchPlan
from arena.tournaments.running.executors.engine import RunSummary, run_tournament
from arena.tournaments.running.executors.ray_judge import RayJudge, start_judge_actors
from arena.tournaments.running.executors.ray_limits import provider_limiter
from arena.tournaments.running.executors.ray_support import import_ray
from arena.tournaments.running.executors.ray_tasks import (
    GameText,
    MatchSpec,
    RunShared,
    TransientPlayerError,
    play_match,
)
from arena.tournaments.running.executors.ray_watchdog import witnessed
from arena.tournaments.running.match_task import MatchContext, error_record
from arena.tournaments.running.prepare import PreparedTournament
from arena.tournaments.running.progress import ProgressSink, RichProgress

RAY = "ray"
log = logging.getLogger(__name__)


def on_driver_node(ray: Any) -> dict[str, Any]:
    """Actor options keeping a small helper actor (the event queue) on the driver's node,
    so losing a worker node never loses it."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    node = ray.get_runtime_context().get_node_id()
    return {"scheduling_strategy": NodeAffinitySchedulingStrategy(node_id=node, soft=True)}


def judge_layout(config: RayConfig, cluster: dict[str, float]) -> tuple[int, float]:
    """(judge actors, GPUs each): one per GPU of the cluster by default, else one on CPU."""
    gpus = config.judge_gpus
    if gpus is None:
        gpus = 1.0 if cluster.get("GPU", 0.0) >= 1 else 0.0
    count = config.judges or (max(1, int(cluster.get("GPU", 0.0) // gpus)) if gpus else 1)
    return count, gpus


class _Runner:
    """Plays one match in a Ray task; the `runner` of `run_tournament`."""

    def __init__(
        self,
        tournament: PreparedTournament,
        judge: RayJudge,
        limiter: Any,
        registry_ref: str | None,
    ) -> None:
        ray = import_ray()
        from ray.util.queue import Queue

        self._ray = ray
        self._tournament = tournament
        self._judge, self._limiter, self._registry_ref = judge, limiter, registry_ref
        self._queue = Queue(actor_options={"num_cpus": 0, **on_driver_node(ray)})
        self._shared: Any = None
        self._on_event: EventHook | None = None
        self._drain_lock = asyncio.Lock()
        config = tournament.config
        self._providers = {p.player: parse_spec(p.player).name for p in config.participants}
        self._task = ray.remote(play_match).options(
            num_cpus=config.ray.match_cpus,
            max_retries=config.ray.match_retries,
            retry_exceptions=[TransientPlayerError],
        )

    def _shared_ref(self, ctx: MatchContext) -> Any:
        if self._shared is None:
            games = {
                label: GameText(
                    label,
                    g.game.source,
                    g.game.filename,
                    g.game.program.dialect_name,
                    self._tournament.config.limits,
                )
                for label, g in self._tournament.games.items()
            }
            shared = RunShared(
                self._registry_ref,
                games,
                ctx.config.seed_key,
                ctx.config.limits,
                ctx.config.policy,
                ctx.tournament_id,
                ctx.run_id,
                ctx.judge_id,
                dict(ctx.participant_ids),
                dict(ctx.game_ids),
                self._judge.info,
                dict(self._tournament.config.concurrency.providers),
            )
            self._shared = self._ray.put(shared)
            self._on_event = ctx.on_event
        return self._shared

    async def drain(self) -> None:
        """Pass every event queued so far to the driver's observers, in order. Events are
        for live observers only (each match's record carries its own), so a queue lost
        with its node costs live updates, never a match."""
        async with self._drain_lock:
            try:
                size = await asyncio.to_thread(self._queue.qsize)
                items: list[tuple[str, Event]] = (
                    await asyncio.to_thread(self._queue.get_nowait_batch, size) if size else []
                )
            except Exception as error:  # first line only: Ray's errors run to a page
                log.warning("live events lost: %s", (str(error) or repr(error)).splitlines()[0])
                return
            if self._on_event is not None:
                for key, event in items:
                    self._on_event(event, key)

    async def __call__(
        self, plan: MatchPlan, game: LoadedGame, game_map: GameMap, map_id: int, ctx: MatchContext
    ) -> FinishedMatch:
        del game  # the task loads it from its text
        started = utcnow()
        spec = MatchSpec(
            plan,
            dict(game_map.stories),
            map_id,
            tuple(self._providers.get(s.spec, parse_spec(s.spec).name) for s in plan.seats),
        )
        ref = self._task.remote(
            self._shared_ref(ctx), spec, self._judge.actors, self._queue, self._limiter
        )
        try:
            match: FinishedMatch = await ref
        except asyncio.CancelledError:
            self._ray.cancel(ref, force=True)
            raise
        except Exception as error:  # retries spent, or the task could not run: this match fails
            cause = getattr(error, "cause", None) or error
            match = error_record(plan, f"{type(cause).__name__}: {cause}", map_id, ctx, started)
        await self.drain()
        return match

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._queue.shutdown(force=True)


class RayExecutor:
    """Joins (or starts) a Ray cluster and plays the tournament on it.

    `registry_ref` ("module:function") names how workers build their registry when the
    driver's has plugins that are not installed entry points (tests); None: installed ones.
    """

    name = RAY

    def __init__(self, registry_ref: str | None = None, judge_actors: Sequence[Any] = ()) -> None:
        self.registry_ref = registry_ref
        # Judge actors the caller started and keeps (a long-lived service, a benchmark's
        # warm judges): used instead of starting (and killing) the run's own.
        self._given_actors = list(judge_actors)
        self.judge_actors: list[Any] = []  # of the run in progress (for operators and tests)
        self.last_judge_metrics: dict[str, float] = {}  # the judge actors' at the run's end

    async def run(
        self,
        tournament: PreparedTournament,
        *,
        registry: Registry,
        store: Store,
        concurrency: int | None = None,
        progress: bool = False,
        on_event: EventHook | None = None,
    ) -> RunSummary:
        ray = import_ray()
        config = tournament.config
        started_here = not ray.is_initialized()
        if started_here:  # in a thread: Ray then leaves the arena's SIGTERM handling alone
            await asyncio.to_thread(
                ray.init,
                address=config.ray.address,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
        with witnessed(ray):  # Ray ends the driver without a word if its raylet dies
            return await self._run_on_ray(
                ray, tournament, started_here, registry=registry, store=store,
                concurrency=concurrency, progress=progress, on_event=on_event,
            )

    async def _run_on_ray(
        self,
        ray: Any,
        tournament: PreparedTournament,
        started_here: bool,
        *,
        registry: Registry,
        store: Store,
        concurrency: int | None,
        progress: bool,
        on_event: EventHook | None,
    ) -> RunSummary:
        config = tournament.config
        actors: list[Any] = []
        runner: _Runner | None = None
        judge: RayJudge | None = None
        try:
            if self._given_actors:
                self.judge_actors = self._given_actors
            else:
                count, gpus = judge_layout(config.ray, ray.cluster_resources())
                actors = start_judge_actors(
                    config.judge,
                    count,
                    gpus=gpus,
                    resources=config.ray.judge_resources,
                    registry_ref=self.registry_ref,
                )
                self.judge_actors = actors
            judge = await RayJudge.connect(self.judge_actors)
            judge.poll_stats()
            limiter = await asyncio.to_thread(provider_limiter, config.concurrency.providers)
            runner = _Runner(tournament, judge, limiter, self.registry_ref)
            sink: ProgressSink | None = (
                RichProgress(config.name, judge.metrics) if progress else None
            )
            in_flight = config.ray.max_in_flight or concurrency or config.concurrency.global_
            return await run_tournament(
                tournament,
                registry=registry,
                judge=judge,
                store=store,
                concurrency=in_flight,
                progress=sink,
                on_event=on_event,
                runner=runner,
                executor=RAY,
            )
        finally:
            if judge is not None:
                with contextlib.suppress(Exception):
                    await judge.refresh_stats()
                self.last_judge_metrics = judge.metrics()
                await judge.aclose()
            if runner is not None:
                runner.close()
            for actor in actors:
                with contextlib.suppress(Exception):
                    ray.kill(actor)
            self.judge_actors = []
            if started_here:
                await asyncio.to_thread(ray.shutdown)
