"""Executor benchmarks (not tests): scheduler + storage overhead, and concurrency.

1. Overhead: match rounds per second with instant stub players and a stub judge, through
   the whole executor into an SQLite file, next to the same matches played without
   storage (the runtime alone). Target: >= 200 rounds/s.
2. Concurrency: 64 matches whose players take 200 ms per move, at concurrency 64; the wall
   time against the critical path (the moves of one match, back to back). Target: within
   10% of it.

Run: PYTHONPATH=. python benchmarks/executor_bench.py [--entrants 10 --maps 10 --rounds 3]
The last two lines are `rounds_per_s=<x>` and `concurrency_overhead=<wall/critical - 1>`
(the median of --repeats runs). What exceeds the critical path is CPU work: the run's setup
and final write, and the runtime's own work per move, which 64 matches moving in lockstep
do one after the other.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import JudgeEntry, PlayerContext, PlayerEntry
from arena.plugins.registry import Registry
from arena.protocols.judge import GenerateRequest, JudgeInfo, ScoreRequest, TokenScores
from arena.protocols.player import MoveRequest
from arena.runtime.maps import JudgeStorySource, resolve_map
from arena.runtime.match import MatchConfig
from arena.specs import Spec
from arena.storage import Store, sqlite_url
from arena.tournaments.planning.config import parse_tournament
from arena.tournaments.planning.pairings import MatchPlan
from arena.tournaments.running.executors.engine import run_tournament
from arena.tournaments.running.match_task import MatchContext, play_plan
from arena.tournaments.running.prepare import PreparedTournament, prepare_tournament

GAMES = {
    "solo.xgl": "assign(s=story(12))\nelicit(black, t, 6)\nreward(black, xed(s | t))\n",
    "pair.xgl": (
        "assign(s=story(12))\nelicit(alice, t, 6)\nelicit(bob, x, 6)\n"
        "reward(alice, xed(s | t))\nreward(bob, xed(s | x))\n"
    ),
}


class StubJudge:
    """One bit per whitespace token: no model, so only the arena's own work is measured."""

    @property
    def info(self) -> JudgeInfo:
        return JudgeInfo(name="stub", model="stub")

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        out = []
        for r in requests:
            tokens = tuple(r.target.split())
            out.append(TokenScores(tokens, tuple(1.0 for _ in tokens)))
        return out

    async def tokenize(self, texts: Sequence[str], dialect: str = "xgl") -> list[list[str]]:
        return [t.split() for t in texts]

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        return [" ".join(f"w{(r.seed + i) % 97}" for i in range(r.max_tokens)) for r in requests]

    async def aclose(self) -> None:
        pass


class StubPlayer:
    def __init__(self, delay: float) -> None:
        self._delay = delay

    @property
    def name(self) -> str:
        return "stub"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        if self._delay:
            await asyncio.sleep(self._delay)
        return {r: "w1 w2 w3" for r in request.registers}


class BenchPlugin:
    @hookimpl
    def arena_players(self) -> list[PlayerEntry]:
        def make(spec: Spec, ctx: PlayerContext) -> StubPlayer:
            return StubPlayer(spec.float_param("delay", 0.0))

        return [PlayerEntry("stub", make)]

    @hookimpl
    def arena_judges(self) -> list[JudgeEntry]:
        return [JudgeEntry("stubjudge", lambda spec: StubJudge())]


def make_registry() -> Registry:
    pm = create_plugin_manager()
    pm.register_plugin(BenchPlugin(), "bench")
    return Registry.from_plugin_manager(pm)


def tournament(
    directory: Path, registry: Registry, *, entrants: int, maps: int, rounds: int, delay: float,
    concurrency: int, games: Sequence[str],
) -> PreparedTournament:
    for name, source in GAMES.items():
        (directory / name).write_text(source, encoding="utf-8")
    data = {
        "name": "bench",
        "judge": "stubjudge",
        "npc": "npc",
        "maps": maps,
        "rounds": rounds,
        "concurrency": {"global": concurrency},
        "participants": [{"name": "npc", "player": f"stub?delay={delay}", "npc_only": True}]
        + [{"name": f"p{i}", "player": f"stub?delay={delay}"} for i in range(entrants)],
        "games": [{"game": g} for g in games],
    }
    return prepare_tournament(parse_tournament(data, base_dir=directory), registry)


async def play_without_storage(prepared: PreparedTournament, registry: Registry) -> float:
    """The same matches through `play_plan`, nothing stored; returns seconds."""
    judge = StubJudge()
    source = JudgeStorySource(judge)
    start = time.perf_counter()
    maps = {}
    for plan in prepared.plans:
        if (plan.game, plan.map_index) not in maps:
            program = prepared.games[plan.game].program
            maps[(plan.game, plan.map_index)] = await resolve_map(program, plan.map_seed, source)
    ctx = MatchContext(
        registry, judge, MatchConfig(), 0, 0, 0,
        {n: 0 for n in prepared.participants}, {g: 0 for g in prepared.games},
    )
    limit = asyncio.Semaphore(prepared.config.concurrency.global_)

    async def one(plan: MatchPlan) -> None:
        async with limit:
            game_map = maps[(plan.game, plan.map_index)]
            await play_plan(plan, prepared.games[plan.game].game, game_map, 0, ctx)

    async with asyncio.TaskGroup() as group:
        for plan in prepared.plans:
            group.create_task(one(plan))
    return time.perf_counter() - start


async def overhead(args: argparse.Namespace, registry: Registry) -> tuple[float, list[str]]:
    with tempfile.TemporaryDirectory() as tmp:
        prepared = tournament(
            Path(tmp), registry, entrants=args.entrants, maps=args.maps, rounds=args.rounds,
            delay=0.0, concurrency=16, games=list(GAMES),
        )
        rounds = sum(p.rounds for p in prepared.plans)
        bare = await play_without_storage(prepared, registry)
        store = Store.open(sqlite_url(Path(tmp) / "bench.db"))
        try:
            summary = await run_tournament(
                prepared, registry=registry, judge=StubJudge(), store=store
            )
        finally:
            store.close()
    assert summary.written == len(prepared.plans), summary
    full = summary.wall_s
    rows = [
        f"{'runtime only (no storage)':38} {len(prepared.plans):8d} {rounds:8d} {bare:8.2f} "
        f"{rounds / bare:10.1f} {1.0:8.2f}",
        f"{'executor + SQLite (this run)':38} {len(prepared.plans):8d} {rounds:8d} {full:8.2f} "
        f"{rounds / full:10.1f} {full / bare:8.2f}",
    ]
    return rounds / full, rows


async def concurrency(
    registry: Registry, repeats: int, rounds: int
) -> tuple[float, list[str]]:
    """Median over `repeats` runs (the machine may be shared); every run is listed.

    The run's wall time includes its fixed costs (schedule lookup, map resolution, the final
    writes), which weigh more on short matches: run it with several `--concurrency-rounds`
    values to see the per-move overhead apart from them."""
    delay, matches = 0.2, 64
    critical = delay * 2 * rounds  # every match: 2 moves per round, one after the other
    rows, ratios = [], []
    for attempt in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            # pair.xgl, 2 moves per round; eval: 32 entrants x 2 roles x 1 map = 64 matches
            prepared = tournament(
                Path(tmp), registry, entrants=matches // 2, maps=1, rounds=rounds,
                delay=delay, concurrency=matches, games=["pair.xgl"],
            )
            assert len(prepared.plans) == matches
            store = Store.open(sqlite_url(Path(tmp) / "bench.db"))
            cpu = time.process_time()
            try:
                summary = await run_tournament(
                    prepared, registry=registry, judge=StubJudge(), store=store
                )
            finally:
                store.close()
            cpu = time.process_time() - cpu
        ratios.append(summary.wall_s / critical)
        rows.append(
            f"{f'64 x {2 * rounds} moves of 200 ms, run {attempt + 1}':38} {matches:8d} "
            f"{matches * rounds:8d} {summary.wall_s:8.2f} {matches * rounds / summary.wall_s:10.1f} "
            f"{ratios[-1]:8.2f}  (process CPU {cpu:.2f} s)"
        )
    rows.append(
        f"{f'critical path ({2 * rounds} moves x 200 ms)':38} {'':8} {'':8} {critical:8.2f}"
    )
    return statistics.median(ratios) - 1.0, rows


async def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=10)
    parser.add_argument("--maps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3, help="concurrency runs (median)")
    parser.add_argument(
        "--concurrency-rounds",
        type=int,
        nargs="+",
        default=[2, 5],
        help="rounds per match in the concurrency runs; the last value gives the last line",
    )
    args = parser.parse_args(argv)
    registry = make_registry()
    rate, rows = await overhead(args, registry)
    more: list[str] = []
    extra = 0.0
    for rounds in args.concurrency_rounds:
        extra, rows_for_rounds = await concurrency(registry, args.repeats, rounds)
        more += [*rows_for_rounds, f"{'  -> overhead (median)':38} {extra:8.3f}"]
    print(f"{'setup':38} {'matches':>8} {'rounds':>8} {'wall s':>8} {'rounds/s':>10} {'ratio':>8}")
    for row in rows + more:
        print(row)
    print(f"rounds_per_s={rate:.1f}")
    # median over the runs with the last --concurrency-rounds value
    print(f"concurrency_overhead={extra:.3f}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
