"""Scale-out benchmark (not a test): matches/s and judge tokens/s on a local Ray cluster
with 1, 2 and 4 match workers, against the local executor at the same matches in flight.

Players answer after a simulated latency (`--latency`, default 0.5 s per move); the judge
is the bundled one (`--judge`), one Ray actor. Each row plays a fresh tournament of
`--matches` matches into a new SQLite file. Columns:

- matches/s, and judge tokens/s (the judge pool's `tokens_processed` over the wall time);
- efficiency: Ray matches/s with W workers over W times Ray with 1 worker (scaling);
- vs local: Ray matches/s over the local executor's at the same W matches in flight;
- overhead/match: (Ray wall - local wall) / matches at W, in ms (submission, task start,
  the object store and the event queue; on a loaded machine, also CPU contention).

Run: PYTHONPATH=. python benchmarks/scale_bench.py [--matches 16 --workers 1 2 4]
The last line is `ray_scaling_efficiency_at_4=<x>`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from arena.hookspecs import hookimpl
from arena.plugin_manager import create_plugin_manager
from arena.plugin_types import PlayerContext, PlayerEntry
from arena.protocols.player import MoveRequest
from arena.registry import Registry
from arena.specs import Spec
from arena.storage import Store, sqlite_url
from tournaments.config import parse_tournament
from tournaments.executor import RunSummary
from tournaments.executors.local import LocalExecutor
from tournaments.executors.ray_executor import RayExecutor
from tournaments.prepare import prepare_tournament

REGISTRY_REF = "benchmarks.scale_bench:registry"


class LatentPlayer:
    """Fixed words after `delay` seconds: a hosted model's latency, no CPU."""

    def __init__(self, delay: float) -> None:
        self._delay = delay

    @property
    def name(self) -> str:
        return "latent"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        await asyncio.sleep(self._delay)
        return {r: "the cat sat on the mat" for r in request.registers}


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


async def one(executor: object, data: dict, reg: Registry, folder: Path) -> tuple[float, float]:  # type: ignore[type-arg]
    """(wall seconds, judge tokens processed) of one fresh tournament (one database for
    all: the maps, made by the judge once in the warm-up, are shared by every run)."""
    prepared = prepare_tournament(parse_tournament(data), reg)
    store = Store.open(sqlite_url(folder / "bench.db"))
    tokens: list[float] = []
    try:
        started = time.perf_counter()
        summary: RunSummary = await executor.run(prepared, registry=reg, store=store)  # type: ignore[attr-defined]
        wall = time.perf_counter() - started
        judge = getattr(executor, "last_judge_metrics", None)
        tokens.append(float((judge or {}).get("tokens_processed", 0.0)))
    finally:
        store.close()
    assert summary.written == summary.planned, summary
    return wall, tokens[0]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--judge", default="bundled")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()

    import ray

    reg = registry()
    ray.init(num_cpus=max(args.workers), include_dashboard=False, log_to_driver=False)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            await one(  # makes the maps and loads the judge once, untimed
                LocalExecutor(),
                tournament("warmup", args.matches, 0.0, args.judge, 4),
                reg,
                folder,
            )
            for w in args.workers:
                local_wall, _ = await one(
                    LocalExecutor(),
                    tournament(f"local{w}", args.matches, args.latency, args.judge, w),
                    reg,
                    folder,
                )
                ray_exec = RayExecutor(REGISTRY_REF)
                ray_wall, tokens = await one(
                    ray_exec,
                    tournament(f"ray{w}", args.matches, args.latency, args.judge, w),
                    reg,
                    folder,
                )
                rows.append((w, local_wall, ray_wall, tokens))
    finally:
        ray.shutdown()

    base = args.matches / rows[0][2]
    print(
        "| workers | local matches/s | ray matches/s | judge tokens/s | efficiency | vs local "
        "| overhead/match ms |"
    )
    print("|---|---|---|---|---|---|---|")
    efficiency = 0.0
    for w, local_wall, ray_wall, tokens in rows:
        rate = args.matches / ray_wall
        efficiency = rate / (w * base)
        print(
            f"| {w} | {args.matches / local_wall:.2f} | {rate:.2f} | {tokens / ray_wall:.0f} | "
            f"{efficiency:.2f} | {local_wall / ray_wall:.2f} | "
            f"{1000 * (ray_wall - local_wall) / args.matches:.1f} |"
        )
    print(f"ray_scaling_efficiency_at_{rows[-1][0]}={efficiency:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
