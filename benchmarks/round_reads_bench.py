"""Benchmark: what an adaptive run reads before each round, every stored match read anew
against only the matches stored since (`arena.tournaments.records.kept_matches`).

An adaptive run picks each round from every stored match of its tournament (issue 33), so
before this change each round read and rebuilt all of them: O(N) per round. Now the matches
read once are kept with their records, and a round reads the ids of the done matches and
then only the new ones. Measured on the dashboard benchmark's database (built in bulk,
`benchmarks/dashboard_bench.py`), at several sizes: `load_inputs` reading everything, and
reading through `KeptMatches` after one round of `--new` matches (the kept copies of the
latest `--new` matches are dropped, so that call reads exactly that many, as after a round).
Median of `--repeats`. Last line: `round_read_speedup=<all / kept at the largest size>`.

    PYTHONPATH=. python benchmarks/round_reads_bench.py [--sizes 2000,20000,100000]
        [--new 16] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from arena.storage import Store, sqlite_url
from arena.tournaments.records import kept_matches
from arena.tournaments.records.kept_matches import KeptMatches
from arena.tournaments.records.rating_store import load_inputs
from benchmarks.dashboard_bench import TOURNAMENT, build


def after_a_round(store: Store, new: int) -> float:
    """Seconds for `KeptMatches` to give every record when `new` matches came since."""
    kept = KeptMatches(store)
    load_inputs(kept, [TOURNAMENT], kept.records)  # the run so far: everything kept
    key = (store.where(), TOURNAMENT)
    seen = kept_matches._MATCHES[key]
    for done in sorted(seen)[-new:]:  # as if these were stored since the last round
        del seen[done]
    started = time.perf_counter()
    records = load_inputs(kept, [TOURNAMENT], kept.records).records
    seconds = time.perf_counter() - started
    assert len(records) == len(load_inputs(store, [TOURNAMENT]).records)
    return seconds


def read_everything(store: Store) -> float:
    started = time.perf_counter()
    load_inputs(store, [TOURNAMENT])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000,100000")
    parser.add_argument("--new", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("stored matches | read everything (s) | kept, new only (s) | speedup")
    speedup = 0.0
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="round-reads-") as folder:
            path = Path(folder) / "bench.db"
            build(path, size)
            store = Store.open(sqlite_url(path))
            try:
                every = statistics.median(read_everything(store) for _ in range(args.repeats))
                kept = statistics.median(after_a_round(store, args.new)
                                         for _ in range(args.repeats))
            finally:
                store.close()
        speedup = every / kept
        print(f"{size} | {every:.3f} | {kept:.3f} | {speedup:.1f}x", flush=True)
    print(f"round_read_speedup={speedup:.1f}")


if __name__ == "__main__":
    main()
