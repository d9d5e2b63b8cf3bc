"""Scale-out benchmark (not a test): steady-state matches/s and judge tokens/s on a local
Ray cluster with 1, 2 and 4 match workers, against the local executor at the same matches
in flight.

Steady state: the cluster and the judge actor start once, and a warm-up (untimed) spawns
the worker processes, fills their per-process caches (registry, parsed games) and loads the
model in the actor; every timed Ray run then reuses that actor (`RayExecutor(judge_actors=)`).
Players answer after a simulated latency (`--latency`, default 0.2 s per move); the judge is
the bundled one (`--judge`). Columns:

- matches/s, and judge tokens/s (the actor's `tokens_processed` during the run / wall);
- efficiency: Ray matches/s with W workers over the local executor's with W matches in
  flight (the issue's "scaling efficiency against the local executor");
- overhead/match: (Ray wall - local wall) / matches at W, in ms.

A last row `overhead` plays zero-latency players at 1 worker: Ray wall minus local wall per
match is Ray's own cost (task submission, the object store, judge calls to another process,
the event queue), plus CPU contention on a loaded machine.

Run: PYTHONPATH=. python benchmarks/scale_bench.py [--matches 32 --latency 0.2 --workers 1 2 4]
The last line is `ray_efficiency_vs_local_at_4=<x> ray_overhead_ms_per_match=<y>`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from arena.match_setup import load_game_text
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import PlayerContext, PlayerEntry
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge
from arena.protocols.player import MoveRequest
from arena.specs import Spec
from arena.storage import Store, sqlite_url
from arena.tournaments.planning.config import parse_tournament
from arena.tournaments.running.executors.engine import RunSummary, run_tournament
from arena.tournaments.running.executors.ray_executor import RayExecutor
from arena.tournaments.running.executors.ray_judge import start_judge_actors
from arena.tournaments.running.prepare import PreparedTournament, prepare_tournament

REGISTRY_REF = "benchmarks.scale_bench:registry"


WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "a",
    "mat",
    "while",
    "dogs",
    "ran",
    "past",
    "old",
    "trees",
    "near",
    "blue",
    "water",
]


class LatentPlayer:
    """Random words after `delay` seconds: a hosted model's latency, no CPU. The words vary
    so that the judge's cache does not answer every request after the warm-up."""

    def __init__(self, delay: float) -> None:
        self._delay = delay
        self._random = random.Random()

    @property
    def name(self) -> str:
        return "latent"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        await asyncio.sleep(self._delay)
        return {r: " ".join(self._random.choices(WORDS, k=6)) for r in request.registers}


def _latent(spec: Spec, ctx: PlayerContext) -> LatentPlayer:
    return LatentPlayer(spec.float_param("delay", 0.5))


@hookimpl
def arena_players() -> list[PlayerEntry]:
    return [PlayerEntry("latent", _latent, "benchmark player with a fixed latency")]


def registry() -> Registry:
    pm = create_plugin_manager()
    pm.register_plugin(sys.modules[__name__], "scale_bench")
    return Registry.from_plugin_manager(pm)


def tournament(name: str, matches: int, latency: float, judge: str, in_flight: int) -> dict:  # type: ignore[type-arg]
    return {
        "name": name,
        "judge": judge,
        "npc": "npc",
        "maps": matches,
        "rounds": 1,
        "concurrency": {"global": in_flight},
        "ray": {"max_in_flight": in_flight, "judges": 1, "judge_gpus": 0},
        "participants": [
            {"name": "npc", "player": f"latent?delay={latency}", "npc_only": True},
            {"name": "main", "player": f"latent?delay={latency}"},
        ],
        "games": [{"game": "condense"}],
    }


class WarmLocalExecutor:
    """The local executor with one judge kept across runs (`LocalExecutor` loads the model
    per run), so both sides are timed at steady state."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge

    async def run(
        self, tournament: PreparedTournament, *, registry: Registry, store: Store
    ) -> RunSummary:
        return await run_tournament(tournament, registry=registry, judge=self.judge, store=store)


async def judge_tokens(actors: list) -> float:  # type: ignore[type-arg]
    found = await asyncio.gather(*(a.metrics.remote() for a in actors))
    return sum(float(m.get("tokens_processed", 0.0)) for m in found)


async def one(executor: object, data: dict, reg: Registry, folder: Path) -> float:  # type: ignore[type-arg]
    """Wall seconds of one fresh tournament (one database for all: the maps, made by the
    judge in the warm-up, are shared by every run)."""
    prepared = prepare_tournament(parse_tournament(data), reg)
    store = Store.open(sqlite_url(folder / "bench.db"))
    try:
        started = time.perf_counter()
        summary: RunSummary = await executor.run(prepared, registry=reg, store=store)  # type: ignore[attr-defined]
        wall = time.perf_counter() - started
    finally:
        store.close()
    assert summary.written == summary.planned, summary
    return wall


def profile_worker_state() -> str:
    """What a match task would pay per match without the per-process caches of
    `ray_support.worker_registry` and `ray_tasks.load_game` (timed here, cold, in the
    driver; inside a worker both run once per process)."""
    started = time.perf_counter()
    reg = registry()
    registry_ms = 1000 * (time.perf_counter() - started)
    started = time.perf_counter()
    Registry.load()
    load_ms = 1000 * (time.perf_counter() - started)
    entry = reg.game("condense")
    started = time.perf_counter()
    load_game_text(entry.source, entry.filename, dialect=entry.dialect, name="condense")
    parse_ms = 1000 * (time.perf_counter() - started)
    return (
        f"registry (bench factory) {registry_ms:.1f} ms, Registry.load {load_ms:.1f} ms, "
        f"parse condense {parse_ms:.1f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--judge", default="bundled")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()

    import ray

    print("per-process state, cold:", profile_worker_state())
    reg = registry()
    top = max(args.workers)
    ray.init(num_cpus=top, include_dashboard=False, log_to_driver=False)
    rows = []
    local_exec: WarmLocalExecutor | None = None
    try:
        actors = start_judge_actors(args.judge, 1, gpus=0, resources={}, registry_ref=REGISTRY_REF)
        ray_exec = RayExecutor(REGISTRY_REF, judge_actors=actors)
        local_exec = WarmLocalExecutor(reg.create_judge(args.judge))
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            n = args.matches

            def data(name: str, latency: float, w: int) -> dict:  # type: ignore[type-arg]
                return tournament(name, n, latency, args.judge, w)

            # Warm-up, untimed: maps, the local judge, Ray's workers and the actor's model.
            await one(local_exec, data("warm-local", 0.0, top), reg, folder)
            await one(ray_exec, data("warm-ray", 0.0, top), reg, folder)
            await one(ray_exec, data("warm-ray1", 0.0, 1), reg, folder)
            for w in args.workers:
                local_wall = await one(local_exec, data(f"local{w}", args.latency, w), reg, folder)
                before = await judge_tokens(actors)
                ray_wall = await one(ray_exec, data(f"ray{w}", args.latency, w), reg, folder)
                tokens = await judge_tokens(actors) - before
                rows.append((str(w), local_wall, ray_wall, tokens))
            local_wall = await one(local_exec, data("local-zero", 0.0, 1), reg, folder)
            before = await judge_tokens(actors)
            ray_wall = await one(ray_exec, data("ray-zero", 0.0, 1), reg, folder)
            tokens = await judge_tokens(actors) - before
            rows.append(("overhead (1, latency 0)", local_wall, ray_wall, tokens))
    finally:
        if local_exec is not None:
            await local_exec.judge.aclose()
        ray.shutdown()

    print(f"{n} matches per row, players {args.latency:.3f} s per move, judge {args.judge}")
    print(
        "| workers | local matches/s | ray matches/s | judge tokens/s | efficiency vs local "
        "| overhead/match ms |"
    )
    print("|---|---|---|---|---|---|")
    for label, local_wall, ray_wall, tokens in rows:
        print(
            f"| {label} | {n / local_wall:.2f} | {n / ray_wall:.2f} | {tokens / ray_wall:.0f} | "
            f"{local_wall / ray_wall:.2f} | {1000 * (ray_wall - local_wall) / n:.1f} |"
        )
    top_row = rows[-2]
    efficiency = top_row[1] / top_row[2]
    overhead = 1000 * (rows[-1][2] - rows[-1][1]) / n
    print(
        f"ray_efficiency_vs_local_at_{top_row[0]}={efficiency:.3f} "
        f"ray_overhead_ms_per_match={overhead:.1f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
