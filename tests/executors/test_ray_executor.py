"""The Ray executor on a real local cluster: judge actors take one (logical) GPU each, a
tournament stores the same matches and scores as the local executor, a transient player
failure is played again, a judge actor killed mid-run is restarted, and judge actors the
caller passes in serve every run and stay up."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from arena.events import Event
from arena.plugins.registry import Registry
from arena.storage import MATCH_DONE, Store
from arena.storage.queries import stored_matches
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.running.executors.base import create_executor
from arena.tournaments.running.executors.engine import RunSummary
from arena.tournaments.running.executors.ray_executor import RayExecutor
from arena.tournaments.running.executors.ray_judge import JudgeActor, start_judge_actors
from arena.tournaments.running.prepare import prepare_tournament
from tests.executors import ray_fixtures as rf
from tests.tournaments import arena_fixtures as fx

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def registry() -> Registry:
    return rf.registry()


async def play(path: Path, db: str, registry: Registry, executor: Any, **kw: Any) -> RunSummary:
    config = load_tournament(path, registry)
    prepared = prepare_tournament(config, registry)
    store = Store.open(db)
    try:
        summary: RunSummary = await executor.run(prepared, registry=registry, store=store, **kw)
        return summary
    finally:
        store.close()


def rows(db: str, tournament: str) -> dict[str, tuple[Any, ...]]:
    store = Store.open(db)
    try:
        found = stored_matches(store.engine, tournament)
    finally:
        store.close()
    return {
        m.key: (
            m.status,
            m.executor,
            m.judge_backend,
            m.event_count,
            tuple((s.role, s.participant, s.main, s.forfeit, s.best) for s in m.seats),
        )
        for m in found
    }


def test_judge_actors_take_a_gpu_each_and_a_third_stays_pending(ray_cluster: Any) -> None:
    ray = ray_cluster
    actors = start_judge_actors("ngram", 3, gpus=1, resources={}, registry_ref=None)
    try:
        # two start (however loaded the machine: up to 120 s), then the third, given time
        # to start too, stays pending: the cluster has two GPUs
        calls = [a.pid.remote() for a in actors]
        ready, pending = ray.wait(calls, num_returns=2, timeout=120)
        assert len(ready) == 2
        late, pending = ray.wait(pending, num_returns=1, timeout=10)
        assert (late, len(pending)) == ([], 1)
        assert len({ray.get(r) for r in ready}) == 2  # two processes, one model each
    finally:
        for actor in actors:
            ray.kill(actor)
    assert JudgeActor.__name__ == "JudgeActor"


async def test_a_tournament_on_ray_stores_what_the_local_executor_stores(
    ray_cluster: Any, registry: Registry, tmp_path: Path
) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)
    local_db, ray_db = rf.db_url(tmp_path, "local.db"), rf.db_url(tmp_path, "ray.db")
    local = await play(path, local_db, registry, create_executor(registry, "local"))
    rf.share_seed_key(local_db, ray_db, "small")
    heard: list[str] = []

    def hook(event: Event, key: str) -> None:
        heard.append(key)

    remote = await play(path, ray_db, registry, RayExecutor(rf.REGISTRY_REF), on_event=hook)
    assert (local.written, remote.written, remote.errors, remote.status) == (12, 12, 0, "done")
    expected, got = rows(local_db, "small"), rows(ray_db, "small")
    assert got.keys() == expected.keys()
    for key, (status, executor, backend, events, seats) in expected.items():
        assert (executor, backend) == ("local", "in-process")
        assert got[key][:4] == (status, "ray", "ray-actor", events)
        for mine, theirs in zip(got[key][4], seats, strict=True):
            assert mine[:4] == theirs[:4] and mine[4] == pytest.approx(theirs[4], abs=1e-9)
    # every match's events streamed back to the driver before it was stored
    assert set(heard) == set(expected) and len(heard) == sum(e[3] for e in expected.values())


async def test_adaptive_pairing_on_ray_picks_what_the_local_executor_picks(
    ray_cluster: Any, registry: Registry, tmp_path: Path
) -> None:
    """Adaptive rounds are picked from what is stored, so the Ray executor (matches in Ray
    tasks) and the local one store the same matches and stop at the same verdict."""
    adaptive = 'seed = 7\npairing = "adaptive"\nstop_when = "settled"\nconfidence = 0.5\n'
    path = fx.tournament_file(tmp_path, fx.SMALL.replace("seed = 7\n", adaptive))
    local_db, ray_db = rf.db_url(tmp_path, "local.db"), rf.db_url(tmp_path, "ray.db")
    local = await play(path, local_db, registry, create_executor(registry, "local"))
    rf.share_seed_key(local_db, ray_db, "small")
    remote = await play(path, ray_db, registry, RayExecutor(rf.REGISTRY_REF))
    assert local.written > 0 and remote.status == local.status
    assert remote.stop_reason == local.stop_reason
    expected, got = rows(local_db, "small"), rows(ray_db, "small")
    assert got.keys() == expected.keys()
    assert {v[1] for v in got.values()} == {"ray"}


FLAKY = """
name = "flaky"
judge = "ngram"
npc = "npc"
maps = 2
rounds = 1
seed = 3

[[participants]]
name = "npc"
player = "random?words=2"
npc_only = true

[[participants]]
name = "once"
player = "counted?fail_once=1&tag=flaky"

[[games]]
game = "condense.xgl"
"""


async def test_a_transient_player_failure_is_played_again(
    ray_cluster: Any, registry: Registry, tmp_path: Path
) -> None:
    path = fx.tournament_file(tmp_path, FLAKY)
    summary = await play(path, rf.db_url(tmp_path, "f.db"), registry, RayExecutor(rf.REGISTRY_REF))
    assert (summary.written, summary.errors) == (2, 0)
    assert sorted(rf.plays("flaky").values()) == [2, 2]  # each match: failed once, then played
    stored = rows(rf.db_url(tmp_path, "f.db"), "flaky")
    assert all(row[0] == MATCH_DONE for row in stored.values())


SLOW = fx.SMALL.replace('name = "small"', 'name = "slow"').replace(
    'player = "sleepy?words=3"', 'player = "sleepy?words=3&delay=1.0"'
)


async def test_a_judge_actor_killed_mid_run_is_restarted_and_the_run_completes(
    ray_cluster: Any, registry: Registry, tmp_path: Path
) -> None:
    ray = ray_cluster
    path = fx.tournament_file(tmp_path, SLOW)
    executor = RayExecutor(rf.REGISTRY_REF)
    db = rf.db_url(tmp_path, "k.db")
    run = asyncio.create_task(play(path, db, registry, executor))
    while not executor.judge_actors and not run.done():
        await asyncio.sleep(0.1)
    victim = executor.judge_actors[0]
    before = await victim.pid.remote()
    while not rows(db, "slow") and not run.done():
        await asyncio.sleep(0.1)
    ray.kill(victim, no_restart=False)
    after = before  # ray.kill is asynchronous: the old process may answer a call or two
    for _ in range(200):
        after = await victim.pid.remote()
        if after != before:  # answered by the restarted actor
            break
        await asyncio.sleep(0.05)
    summary = await run
    assert after != before
    assert (summary.written, summary.errors, summary.status) == (12, 0, "done")
    assert len(rows(db, "slow")) == 12


TINY = """
name = "tiny"
judge = "ngram"
npc = "npc"
maps = 2
rounds = 1
seed = 5

[[participants]]
name = "npc"
player = "random?words=2"
npc_only = true

[[participants]]
name = "main"
player = "random?words=3"

[[games]]
game = "condense"
"""


async def test_judge_actors_given_to_the_executor_serve_every_run_and_stay_up(
    ray_cluster: Any, registry: Registry, tmp_path: Path
) -> None:
    ray = ray_cluster
    actors = start_judge_actors("ngram", 1, gpus=0, resources={}, registry_ref=rf.REGISTRY_REF)
    try:
        pid = await actors[0].pid.remote()
        executor = RayExecutor(rf.REGISTRY_REF, judge_actors=actors)
        path = tmp_path / "tiny.toml"
        path.write_text(TINY)
        first = await play(path, rf.db_url(tmp_path, "a.db"), registry, executor)
        assert executor.judge_actors == []  # the run is over, the actors are the caller's
        second = await play(path, rf.db_url(tmp_path, "b.db"), registry, executor)
        assert (first.status, second.status) == ("done", "done")
        assert first.written == second.written > 0
        assert await actors[0].pid.remote() == pid  # neither run killed or replaced it
    finally:
        for actor in actors:
            ray.kill(actor)


def test_the_provider_limiter_bounds_slots_and_keeps_its_limits_through_a_restart(
    ray_cluster: Any,
) -> None:
    """The cluster-wide provider limits (`ray_limits`): a third match waits for a slot of a
    provider limited to 2; after the actor is killed and restarted by Ray it still enforces
    the limits (the constructor runs again with the creator's, and every acquire carries
    its run's), where it used to come back with no limits at all."""
    from arena.tournaments.running.executors.ray_limits import NAME, NAMESPACE, provider_limiter

    ray = ray_cluster
    for _ in range(200):  # earlier tests' runs created the shared actor with their limits
        try:
            ray.kill(ray.get_actor(NAME, namespace=NAMESPACE), no_restart=True)
        except ValueError:  # gone: its name is free
            break
        time.sleep(0.05)
    limiter = provider_limiter({"litellm": 2})
    try:
        ray.get([limiter.acquire.remote(k, ["litellm", "random"]) for k in ("a", "b")])
        waiting = limiter.acquire.remote("c", ["litellm"])
        ready, _ = ray.wait([waiting], timeout=1.0)
        assert ready == [] and ray.get(limiter.held.remote()) == {"litellm": 2}
        ray.get(limiter.release.remote("a"))
        ray.get(waiting, timeout=30)
        assert ray.get(limiter.held.remote()) == {"litellm": 2}

        ray.kill(limiter, no_restart=False)
        for _ in range(200):  # calls are retried while the actor restarts
            if ray.get(limiter.held.remote(), timeout=60) == {}:  # the restarted actor
                break
            time.sleep(0.05)
        assert ray.get(limiter.limits.remote()) == {"litellm": 2}  # from the constructor
        # each acquire carries its run's limits: one of another run counts from now on
        ray.get(limiter.acquire.remote("d", ["openai"], {"openai": 1}))
        blocked = limiter.acquire.remote("e", ["openai"], {"openai": 1})
        ready, _ = ray.wait([blocked], timeout=1.0)
        assert ready == [] and ray.get(limiter.limits.remote()) == {"litellm": 2, "openai": 1}
        ray.get(limiter.release.remote("d"))
        ray.get(blocked, timeout=30)
    finally:
        ray.kill(limiter, no_restart=True)
