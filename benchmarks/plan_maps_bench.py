"""Planning time with the map split of issue 24 item 3 (no entrant holds two seats on one
map whose roles see different things of it): head-to-head plans of a two-role game whose
roles see different things (split: one map per entrant per slot) against the same game
whose roles share a view (no split), for growing numbers of entrants.

    python benchmarks/plan_maps_bench.py [--entrants 50,100,200]

Prints a table and, last, `split_overhead_at_max=<ratio>` (split time / unsplit time at the
largest size).
"""

from __future__ import annotations

import argparse
import time

from arena.tournaments.planning.pairings import HEAD_TO_HEAD, GameSlot, plan_matches


def _seconds(game: GameSlot, entrants: list[str]) -> tuple[float, int, int]:
    specs = {e: "random" for e in entrants}
    start = time.perf_counter()
    plans = plan_matches("bench", HEAD_TO_HEAD, [game], entrants, specs)
    return time.perf_counter() - start, len(plans), len({p.map_index for p in plans})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", default="50,100,200", help="comma-separated sizes")
    sizes = [int(n) for n in parser.parse_args().entrants.split(",")]
    split = GameSlot("apart", "1", "h", "xgl", ("alice", "bob"))
    shared = GameSlot("shared", "1", "h", "xgl", ("black", "white"),
                      views={"black": "all", "white": "all"})
    print(f"{'entrants':>8} {'matches':>8} {'maps':>6} {'split s':>8} {'shared s':>9} {'ratio':>6}")
    ratio = 0.0
    for n in sizes:
        people = [f"p{i}" for i in range(n)]
        t_split, matches, maps = _seconds(split, people)
        t_shared, _, _ = _seconds(shared, people)
        ratio = t_split / t_shared
        print(f"{n:>8} {matches:>8} {maps:>6} {t_split:>8.2f} {t_shared:>9.2f} {ratio:>6.2f}")
    print(f"split_overhead_at_max={ratio:.2f}")


if __name__ == "__main__":
    main()
