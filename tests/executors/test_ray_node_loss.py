"""A simulated second node (`ray.cluster_utils.Cluster`) hosting the judge actor (placed by
a custom resource) and match tasks is removed mid-run: a replacement node joins, the judge
restarts there, lost matches are retried, and every match is stored exactly once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.storage import MATCH_DONE, Store
from arena.storage.queries import stored_matches
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.running.executors.ray_executor import RayExecutor
from arena.tournaments.running.prepare import prepare_tournament
from tests.executors import ray_fixtures as rf
from tests.tournaments import arena_fixtures as fx

pytestmark = pytest.mark.timeout(420)

PLACED = (
    fx.SMALL.replace('name = "small"', 'name = "placed"').replace(
        'player = "sleepy?words=3"', 'player = "sleepy?words=3&delay=1.0"'
    )
    + "\n[ray]\njudges = 1\njudge_gpus = 0\njudge_resources = { judge = 1 }\n"
)


def stored(db: str) -> list[tuple[str, str]]:
    store = Store.open(db)
    try:
        return [(m.key, m.status) for m in stored_matches(store.engine, "placed")]
    finally:
        store.close()


async def test_removing_the_judge_node_mid_run_loses_and_duplicates_nothing(
    tmp_path: Path,
) -> None:
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        doomed = cluster.add_node(num_cpus=1, resources={"judge": 1})
        ray.init(address=cluster.address, log_to_driver=False)
        registry = rf.registry()
        path = fx.tournament_file(tmp_path, PLACED)
        prepared = prepare_tournament(load_tournament(path, registry), registry)
        db = rf.db_url(tmp_path, "n.db")
        store = Store.open(db)
        executor = RayExecutor(rf.REGISTRY_REF)
        run = asyncio.create_task(executor.run(prepared, registry=registry, store=store))
        while not stored(db) and not run.done():
            await asyncio.sleep(0.1)
        node_of_judge = await executor.judge_actors[0].node.remote()
        assert node_of_judge == doomed.node_id  # placed by its custom resource
        cluster.add_node(num_cpus=1, resources={"judge": 1})  # the replacement machine
        cluster.remove_node(doomed)
        summary = await run
        store.close()
        keys = stored(db)
        assert (summary.written, summary.errors, summary.status) == (12, 0, "done")
        assert len(keys) == len({k for k, _ in keys}) == 12
        assert all(status == MATCH_DONE for _, status in keys)
    finally:
        ray.shutdown()
        cluster.shutdown()  # type: ignore[no-untyped-call]
