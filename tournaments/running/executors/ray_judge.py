"""Judges as Ray actors, and the client that spreads calls over them.

`JudgeActor` is an async actor: it builds the tournament's judge once (its model loaded
once, on the actor's GPU when it has one) and its `JudgePool` batches the concurrent
requests of every match of every node. Actors restart when they die (`max_restarts`) and
their calls in flight are retried (scoring is a pure function of its inputs).

`RayJudge` satisfies the `Judge` protocol for the runtime: each call goes to the actor with
the fewest calls in flight from this process. On the driver it also polls the actors'
pool statistics, so `metrics()` feeds the progress bar and the Live page's pool rows.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_delay, wait_exponential

from arena.least_busy import LeastBusy
from arena.protocols.dialect import Dialect
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores
from arena.tournaments.running.executors.ray_support import import_ray, worker_registry
from arena.tournaments.running.progress import judge_metrics

RAY_ACTOR = "ray-actor"  # the judge backend recorded with each match
MAX_RESTARTS = 4
STATS_INTERVAL_S = 1.0
RESTART_WAIT_S = 180.0  # how long a call waits for a lost judge actor to come back (a
# restart reloads the model, which takes minutes on a busy host)


def _actor_lost_errors() -> tuple[type[BaseException], ...]:
    exceptions = import_ray().exceptions
    names = ("RayActorError", "ActorUnavailableError", "ActorDiedError")
    return tuple(getattr(exceptions, n) for n in names if hasattr(exceptions, n))


AVERAGED = frozenset({"mean_batch_size", "padding_ratio", "mean_queue_wait_ms"})  # not summed


class JudgeActor:
    """One judge (a `JudgePool` around the spec's backend) in one Ray actor process."""

    def __init__(self, spec: str, registry_ref: str | None) -> None:
        self._judge = worker_registry(registry_ref).create_judge(spec)

    async def info(self) -> JudgeInfo:
        return self._judge.info

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        return await self._judge.score(requests)

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        return await self._judge.tokenize(texts, dialect)

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        return await self._judge.generate(requests)

    async def metrics(self) -> dict[str, float]:
        found = judge_metrics(self._judge)
        return dict(found()) if found is not None else {}

    async def pid(self) -> int:
        import os

        return os.getpid()

    async def node(self) -> str:
        """The Ray node this actor runs on (hex id)."""
        return str(import_ray().get_runtime_context().get_node_id())


def start_judge_actors(
    spec: str,
    count: int,
    *,
    gpus: float,
    resources: Mapping[str, float],
    registry_ref: str | None,
) -> list[Any]:
    """`count` judge actors, each needing `gpus` GPUs and `resources` (they stay pending
    until the cluster has room)."""
    ray = import_ray()
    actor = ray.remote(JudgeActor).options(
        num_cpus=0,  # the pool's work is the model's: GPUs (or the worker's own threads)
        num_gpus=gpus,
        resources=dict(resources),
        max_restarts=MAX_RESTARTS,
        max_task_retries=MAX_RESTARTS,
        max_concurrency=1000,
    )
    return [actor.remote(spec, registry_ref) for _ in range(count)]


class RayJudge:
    """The `Judge` protocol over judge actors, least busy first."""

    backend_kind = RAY_ACTOR  # provenance (see
                              # `arena.tournaments.running.match_task.judge_backend`)

    def __init__(self, actors: Sequence[Any], info: JudgeInfo) -> None:
        if not actors:
            raise ValueError("RayJudge needs at least one judge actor")
        self.actors = list(actors)
        self._info = info
        self._selector = LeastBusy(len(self.actors))
        self._stats: dict[str, float] = {}
        self._poller: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, actors: Sequence[Any]) -> RayJudge:
        """A client for `actors` (waits until the first one is up)."""
        info: JudgeInfo = await actors[0].info.remote()
        return cls(actors, info)

    @property
    def info(self) -> JudgeInfo:
        return self._info

    async def _call(self, method: str, *args: object) -> Any:
        """Least busy actor first; an actor lost with its node (restarting elsewhere, or
        not reachable for a moment) is asked again, the calls being pure functions."""
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(_actor_lost_errors()),
            wait=wait_exponential(multiplier=0.5, max=5.0),  # 0.5, 1, 2, 4, 5, 5, ... s
            stop=stop_after_delay(RESTART_WAIT_S),
            reraise=True,  # the actor's own error once the wait is over
        )
        return await retrying(self._call_once, method, *args)

    async def _call_once(self, method: str, *args: object) -> Any:
        with self._selector.pick() as index:
            return await getattr(self.actors[index], method).remote(*args)

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        found: list[TokenScores] = await self._call("score", list(requests))
        return found

    async def tokenize(self, texts: Sequence[str], dialect: Dialect = "xgl") -> list[list[str]]:
        found: list[list[str]] = await self._call("tokenize", list(texts), dialect)
        return found

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        found: list[str] = await self._call("generate", list(requests))
        return found

    # ------------------------------------------------------------------ statistics

    def metrics(self) -> dict[str, float]:
        """The actors' pool statistics summed, as last polled (see `poll_stats`)."""
        return dict(self._stats)

    def poll_stats(self, interval_s: float = STATS_INTERVAL_S) -> None:
        """Start fetching the actors' statistics every `interval_s` (on the driver)."""
        if self._poller is None:
            self._poller = asyncio.get_running_loop().create_task(self._poll(interval_s))

    async def refresh_stats(self) -> None:
        results = await asyncio.gather(
            *(a.metrics.remote() for a in self.actors), return_exceptions=True
        )
        total: dict[str, float] = {}
        answered = [found for found in results if isinstance(found, dict)]
        for found in answered:
            for key, value in found.items():
                if key == "max_queue_wait_ms":
                    total[key] = max(total.get(key, 0.0), float(value))
                else:
                    share = float(value) / len(answered) if key in AVERAGED else float(value)
                    total[key] = total.get(key, 0.0) + share
        if total:
            total["judge_actors"] = float(len(self.actors))
            self._stats = total

    async def _poll(self, interval_s: float) -> None:
        while True:
            with contextlib.suppress(Exception):  # an actor restarting: next time
                await self.refresh_stats()
            await asyncio.sleep(interval_s)

    async def aclose(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
            self._poller = None
