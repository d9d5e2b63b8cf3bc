"""CPU lanes: forward passes on several threads at once, each with its own torch threads.

Why: on a few cores, torch's intra-op threads meet at a barrier after every operation;
a small model's operations are short, so the threads wait often, and on a loaded machine
one descheduled thread stalls the other. Independent passes on one-thread lanes never
wait for each other (issue 21: on 2 shared cores, two 1-thread lanes scored the
all-distinct stream about twice as fast as one 2-thread forward).

torch's thread count is per thread for OpenMP and MKL (`torch.set_num_threads` in a lane
changes that lane only), but it also sets the default that threads created later start
with; `lane_pool` puts the caller's default back.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from arena.judges.hf.load import require_torch


def lane_pool(lanes: int, threads_each: int, name: str) -> ThreadPoolExecutor:
    """`lanes` worker threads with `threads_each` torch intra-op threads each, all started."""
    torch, _ = require_torch()
    default = torch.get_num_threads()
    started = threading.Barrier(lanes)

    def setup() -> None:
        # torch reads the default into a thread on its first query (once per thread): let
        # that happen before setting, or a later query would put the default back.
        torch.get_num_threads()
        torch.set_num_threads(threads_each)
        started.wait(timeout=60)  # every lane holds one task: `lanes` threads get made

    pool = ThreadPoolExecutor(max_workers=lanes, thread_name_prefix=name)
    for done in [pool.submit(setup) for _ in range(lanes)]:
        done.result()
    torch.set_num_threads(default)
    return pool


def lane_threads(pool: ThreadPoolExecutor) -> list[int]:
    """torch's thread count in each lane (for tests and the startup log)."""
    torch, _ = require_torch()
    lanes = pool._max_workers
    started = threading.Barrier(lanes)

    def count() -> int:
        started.wait(timeout=60)
        return int(torch.get_num_threads())

    return [f.result() for f in [pool.submit(count) for _ in range(lanes)]]
