"""Per-provider player concurrency across the whole cluster: one named async actor.

Every match task asks it for a slot of each provider its seats use before playing and
gives them back after. Slots are held per match key, so a task retried after its node died
takes over its own slots instead of leaking them. Every driver of the cluster shares the
one actor (its name is fixed), so the limits hold across drivers too.

The limits survive a restart of the actor (its node lost): Ray runs the constructor again
with the creating driver's limits, and every acquire carries its own run's limits, so the
first acquire after a restart sets them again. (The slots held at that moment are
forgotten: the matches holding them release nothing, and until they finish a provider may
run that many matches over its limit.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from arena.tournaments.running.executors.ray_support import import_ray

NAME = "xent-arena-provider-limits"
NAMESPACE = "xent-arena"


class ProviderLimiter:
    def __init__(self, limits: Mapping[str, int] | None = None) -> None:
        self._limits: dict[str, int] = dict(limits or {})
        self._held: dict[str, set[str]] = {}  # provider -> match keys holding a slot
        self._changed = asyncio.Condition()

    async def configure(self, limits: Mapping[str, int]) -> None:
        async with self._changed:
            self._limits.update(limits)
            self._changed.notify_all()

    async def acquire(
        self, key: str, providers: Sequence[str], limits: Mapping[str, int] | None = None
    ) -> None:
        """Wait until every limited provider of `providers` has a free slot, then take them
        all at once (never some: no deadlock between matches). `limits`: the caller's run's
        limits, set first (a restarted actor learns them again)."""
        async with self._changed:
            if limits:
                self._limits.update(limits)
                self._changed.notify_all()
            wanted = sorted({p for p in providers if p in self._limits})
            await self._changed.wait_for(
                lambda: all(
                    key in self._held.get(p, set())
                    or len(self._held.get(p, set())) < self._limits[p]
                    for p in wanted
                )
            )
            for p in wanted:
                self._held.setdefault(p, set()).add(key)

    async def release(self, key: str) -> None:
        async with self._changed:
            for holders in self._held.values():
                holders.discard(key)
            self._changed.notify_all()

    async def held(self) -> dict[str, int]:
        return {p: len(keys) for p, keys in self._held.items()}

    async def limits(self) -> dict[str, int]:
        return dict(self._limits)


def provider_limiter(limits: Mapping[str, int]) -> Any:
    """The cluster's limiter actor (created by the first driver), with `limits` set."""
    ray = import_ray()
    actor = (
        ray.remote(ProviderLimiter)
        .options(
            name=NAME,
            namespace=NAMESPACE,
            get_if_exists=True,
            lifetime="detached",
            num_cpus=0,
            max_restarts=-1,
            # A call that meets the actor restarting (its node lost) is sent again rather
            # than failing the match: acquire and release are idempotent per match key.
            max_task_retries=-1,
            max_concurrency=10_000,
        )
        .remote(dict(limits))  # a restart runs the constructor again with these
    )
    ray.get(actor.configure.remote(dict(limits)))  # the actor may exist already
    return actor
