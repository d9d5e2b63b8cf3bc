"""One match as a Ray task: small specs in, the finished match record out.

The task receives the plan, the game's source text and dialect, the map's stories, ids
and limits (`RunShared` once per run through the object store, `MatchSpec` per match),
plus handles to the judge actors, the event queue and the provider limiter; never ORM
objects, models or registries. It builds the match through `arena.match_setup.build_match`
(inside `play_plan`), like the local executor, and returns the `FinishedMatch`; the driver
stores it. Events go to the driver's queue as they happen, in batches, in order.

A transient player error (a `PlayerError` that is not permanent: a provider down, a rate
limit) escaping the match makes the task fail so Ray plays it again (`retry_exceptions`);
a worker or node lost mid-match is retried by Ray too (`max_retries`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from arena.errors import PermanentPlayerError, PlayerError
from arena.events import Event
from arena.lang.game_file import game_sha256
from arena.lang.limits import ResourceLimits
from arena.match_setup import LoadedGame, load_game_text
from arena.runtime.maps import GameMap
from arena.runtime.match import MatchConfig
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy
from arena.storage.records import FinishedMatch
from arena.storage.tables import utcnow
from arena.tournaments.planning.pairings import MatchPlan
from arena.tournaments.running.executors.ray_judge import RAY_ACTOR, RayJudge
from arena.tournaments.running.executors.ray_support import worker_registry
from arena.tournaments.running.match_task import MatchContext, error_record, play_plan

EVENT_FLUSH_S = 0.2


class TransientPlayerError(PlayerError):
    """A match ended by a transient player error: Ray plays it again."""


@dataclass(frozen=True)
class GameText:
    label: str
    source: str
    filename: str
    dialect: str
    limits: ResourceLimits


@dataclass(frozen=True)
class RunShared:
    """What every match task of a run needs, put in the object store once."""

    registry_ref: str | None
    games: Mapping[str, GameText]  # by label
    seed_key: bytes
    limits: RoundLimits
    policy: MovePolicy
    tournament_id: int
    run_id: int
    judge_id: int
    participant_ids: Mapping[str, int]
    game_ids: Mapping[str, int]
    judge_info: Any  # JudgeInfo: the actors' own, fetched once by the driver
    provider_limits: Mapping[str, int]  # sent with every acquire: a restarted limiter relearns


@dataclass(frozen=True)
class MatchSpec:
    plan: MatchPlan
    stories: Mapping[str, str]
    map_id: int
    providers: tuple[str, ...]


@cache
def _game(text: GameText, digest: str) -> LoadedGame:
    del digest  # part of the cache key only
    return load_game_text(
        text.source, text.filename, dialect=text.dialect, name=text.label, limits=text.limits
    )


def load_game(text: GameText) -> LoadedGame:
    """The game parsed once per worker process."""
    return _game(text, game_sha256(text.source))


class _EventSender:
    """Buffers a match's events and sends them to the driver's queue every `EVENT_FLUSH_S`."""

    def __init__(self, queue: Any, key: str) -> None:
        self._queue, self._key = queue, key
        self._buffer: list[tuple[str, Event]] = []

    def __call__(self, event: Event, key: str) -> None:
        self._buffer.append((key, event))

    async def flush(self) -> None:
        batch, self._buffer = self._buffer, []
        if batch:
            with contextlib.suppress(Exception):  # live updates only: the record has them
                await asyncio.to_thread(self._queue.put_nowait_batch, batch)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(EVENT_FLUSH_S)
            await self.flush()


async def _play(
    shared: RunShared, spec: MatchSpec, judges: Sequence[Any], queue: Any, limiter: Any
) -> FinishedMatch:
    plan = spec.plan
    started = utcnow()
    judge = RayJudge(judges, shared.judge_info)
    sender = _EventSender(queue, plan.key) if queue is not None else None
    context = MatchContext(
        registry=worker_registry(shared.registry_ref),
        judge=judge,
        config=MatchConfig(seed_key=shared.seed_key, limits=shared.limits, policy=shared.policy),
        tournament_id=shared.tournament_id,
        run_id=shared.run_id,
        judge_id=shared.judge_id,
        participant_ids=shared.participant_ids,
        game_ids=shared.game_ids,
        on_event=sender,
        executor="ray",
        judge_backend=RAY_ACTOR,
    )
    game = load_game(shared.games[plan.game])
    game_map = GameMap(seed=plan.map_seed, stories=dict(spec.stories))
    if limiter is not None:
        await limiter.acquire.remote(plan.key, list(spec.providers), dict(shared.provider_limits))
    flusher = asyncio.create_task(sender.run()) if sender is not None else None
    try:
        return await play_plan(plan, game, game_map, spec.map_id, context, reraise=(PlayerError,))
    except PermanentPlayerError as error:  # replaying would fail alike: an error record
        message = f"{type(error).__name__}: {error}"
        return error_record(plan, message, spec.map_id, context, started)
    except PlayerError as error:
        raise TransientPlayerError(f"{type(error).__name__}: {error}") from None
    finally:
        if flusher is not None:
            flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await flusher
        if sender is not None:
            await sender.flush()
        if limiter is not None:
            await limiter.release.remote(plan.key)
        await judge.aclose()


def play_match(
    shared: RunShared, spec: MatchSpec, judges: Sequence[Any], queue: Any, limiter: Any
) -> FinishedMatch:
    """The Ray task's body (see `ray_executor`, which wraps it with `ray.remote`)."""
    return asyncio.run(_play(shared, spec, judges, queue, limiter))
