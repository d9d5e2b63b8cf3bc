"""Game-space benchmark (not a test): candidates per minute through the filter pipeline.

For each parent game, the `mutate` sampler proposes --count candidates (seed --seed) and
each goes through every stage it reaches (static check, seeded smoke match, well-posedness,
few-shot playability, dedup, novelty) with the given judge, on this machine's CPU. The table
shows, per parent: candidates, kept, where the others stopped, the sampler's time and the
pipeline's time; the last line is `candidates_per_min=<x>` over all parents (sampling and
filtering together).

Run: PYTHONPATH=. python benchmarks/scope_bench.py [--judge ngram] [--count 10]
     [--games simplest_cut condense single_text]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from pathlib import Path

from arena.gamespace.pipeline import STAGES, FilterPipeline, PipelineConfig, library_keys
from arena.gamespace.sampler import ParentGame
from arena.match_setup import load_entry
from arena.registry import Registry


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", default="ngram")
    parser.add_argument("--sampler", default="mutate")
    parser.add_argument("--count", type=int, default=10, help="candidates per parent")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--games", nargs="+", default=["simplest_cut", "condense", "single_text", "paradox"]
    )
    args = parser.parse_args(argv)
    registry = Registry.load()
    sampler = registry.create_sampler(args.sampler)
    judge = registry.create_judge(args.judge)
    library = library_keys(registry)
    rows = []
    total, total_s = 0, 0.0
    try:
        for name in args.games:
            game = load_entry(registry.game(name))
            parent = ParentGame(name, game.version, Path(game.filename).name, game.source)
            pipeline = FilterPipeline(registry, judge, PipelineConfig(seed=args.seed), library)
            start = time.perf_counter()
            proposals = list(sampler.propose(parent, args.count, args.seed))
            sampled = time.perf_counter()
            records = [await pipeline.run(p) for p in proposals]
            done = time.perf_counter()
            stops = Counter(r.decided_by.stage for r in records if not r.kept)
            kept = sum(r.kept for r in records)
            rows.append((name, len(records), kept, stops, sampled - start, done - sampled))
            total += len(records)
            total_s += done - start
    finally:
        await judge.aclose()
    print(f"judge {args.judge}, sampler {args.sampler}, seed {args.seed}, CPU")
    print(f"{'parent':16} {'cand':>5} {'kept':>5} {'sample s':>9} {'filter s':>9} {'/min':>7}  "
          "dropped at")
    for name, count, kept, stops, sample_s, filter_s in rows:
        rate = 60 * count / max(sample_s + filter_s, 1e-9)
        where = ", ".join(f"{s} {stops[s]}" for s in STAGES if stops[s]) or "-"
        print(f"{name:16} {count:5d} {kept:5d} {sample_s:9.2f} {filter_s:9.2f} {rate:7.1f}  "
              f"{where}")
    print(f"candidates_per_min={60 * total / max(total_s, 1e-9):.1f}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
