"""A Ray driver in its own process (for the kill -9 test): plays a tournament file into a
database with the Ray executor on a local cluster it starts, then prints its summary."""

from __future__ import annotations

import asyncio
import sys

from arena.storage import Store
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.running.executors.ray_executor import RayExecutor
from arena.tournaments.running.prepare import prepare_tournament
from tests.executors import ray_fixtures as rf


async def main(path: str, db: str) -> None:
    import ray

    registry = rf.registry()
    prepared = prepare_tournament(load_tournament(path, registry), registry)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    store = Store.open(db)
    try:
        summary = await RayExecutor(rf.REGISTRY_REF).run(prepared, registry=registry, store=store)
    finally:
        store.close()
        ray.shutdown()
    print(summary.status, summary.written)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
