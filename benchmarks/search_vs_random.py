"""Does the `search` player beat `random` on Condense and Synthesize with the bundled judge?

For each game and each of N maps (map seeds 0..N-1), the map is resolved once and played
one round by each player in the black seat; the match score is compared per map.

    python benchmarks/search_vs_random.py [--judge bundled] [--maps 20] [--games condense,synthesize]

Prints a table (game, maps, mean search, mean random, difference, wins of search) and a
last line `search_minus_random=<smallest per-game difference of means>`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from arena.match_setup import ANALYSIS_POLICY, build_match, load_entry, resolve_game_map
from arena.plugins.registry import Registry
from arena.protocols.judge import Judge


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--judge", default="bundled", help="judge spec (default: bundled)")
    p.add_argument("--maps", type=int, default=20)
    p.add_argument("--games", default="condense,synthesize")
    p.add_argument("--search", default="search", help="the search player's spec")
    p.add_argument("--random", default="random", help="the baseline player's spec")
    return p.parse_args()


async def scores(
    registry: Registry, judge: Judge, game_name: str, specs: list[str], maps: int
) -> dict[str, list[float]]:
    """Per player spec, its match score on each map (forfeits count as -inf)."""
    game = load_entry(registry.game(game_name))
    (role,) = game.roles
    out: dict[str, list[float]] = {spec: [] for spec in specs}
    for seed in range(maps):
        game_map = await resolve_game_map(game, judge, seed)
        for spec in specs:
            async with await build_match(
                game, {role: spec}, judge=judge, registry=registry, seed=seed,
                policy=ANALYSIS_POLICY,
            ) as match:
                result = await match.play(game_map)
            best = result.scores[role].best
            out[spec].append(float("-inf") if best is None else best)
    return out


async def run(args: argparse.Namespace) -> None:
    registry = Registry.load()
    judge = registry.create_judge(args.judge)
    specs = [args.search, args.random]
    rows = []
    start = time.perf_counter()
    try:
        for name in args.games.split(","):
            got = await scores(registry, judge, name, specs, args.maps)
            search, rand = got[args.search], got[args.random]
            wins = sum(s > r + 1e-6 for s, r in zip(search, rand, strict=True))
            mean_s, mean_r = statistics.fmean(search), statistics.fmean(rand)
            rows.append((name, args.maps, mean_s, mean_r, mean_s - mean_r, wins))
    finally:
        await judge.aclose()
    print(f"judge: {judge.info.name} ({judge.info.model}); players: {args.search} vs {args.random}")
    print(f"{'game':12s} {'maps':>4s} {'mean search':>12s} {'mean random':>12s} "
          f"{'difference':>11s} {'wins':>5s}")
    for name, maps, mean_s, mean_r, diff, wins in rows:
        print(f"{name:12s} {maps:4d} {mean_s:12.3f} {mean_r:12.3f} {diff:11.3f} "
              f"{wins:3d}/{maps}")
    print(f"elapsed: {time.perf_counter() - start:.1f} s")
    print(f"search_minus_random={min(row[4] for row in rows):.3f}")


if __name__ == "__main__":
    asyncio.run(run(parse_args()))
