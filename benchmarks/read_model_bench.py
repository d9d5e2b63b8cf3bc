"""Per-call time of storage's read model and Store queries on a small database: the fixed
cost each query pays besides reading rows (building, compiling from the statement cache,
executing), which is what a dashboard page run or an executor step pays per call.

The database is the dashboard tests' fixture (tournaments `nightly` and `duel-cup`, built
once into --db when the file does not exist). Each query runs --repeats times; the table
shows the fastest call. To compare two versions of the code, run it under each (e.g. an
older commit unpacked with `git archive` and put first on PYTHONPATH) against one --db.

    PYTHONPATH=. python benchmarks/read_model_bench.py [--db /tmp/read_model_bench.db]
        [--repeats 30]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.storage import Store, sqlite_url
from arena.storage.read_model import Filters, ReadModel


def fastest(call: Callable[[], Any], repeats: int) -> float:
    call()  # warm: imports, statement cache, SQLite page cache
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=Path("/tmp/read_model_bench.db"))
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    if not args.db.exists():
        import tempfile

        from tests.dashboard.fixture_db import build

        built = Path(build(Path(tempfile.mkdtemp(prefix="read-model-bench-")))
                     .removeprefix("sqlite:///"))
        built.rename(args.db)
    url = sqlite_url(args.db)
    reader, store = ReadModel.open(url), Store.open(url, create=False)
    nightly, duel = Filters("nightly"), Filters("duel-cup")
    calls: dict[str, Callable[[], Any]] = {
        "watermark": reader.watermark,
        "tournaments": reader.tournaments,
        "matches": lambda: reader.matches(nightly),
        "scored_seats": lambda: reader.scored_seats(nightly),
        "head_to_head": lambda: reader.head_to_head(duel),
        "snapshot_history": lambda: reader.snapshot_history("nightly"),
        "store.stored_matches": lambda: store.stored_matches("nightly"),
        "store.done_keys": lambda: store.done_keys(store.tournament_id("nightly") or 0),
        "store.schedules": store.schedules,
    }
    try:
        total = 0.0
        print(f"{'query':22} {'fastest call':>14}")
        for name, call in calls.items():
            seconds = fastest(call, args.repeats)
            total += seconds
            print(f"{name:22} {seconds * 1000:11.2f} ms")
        print(f"read_model_total_ms={total * 1000:.2f}")
    finally:
        reader.close()
        store.close()


if __name__ == "__main__":
    main()
