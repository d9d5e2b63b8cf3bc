"""Cost of deciding reward feedback by information flow (`arena.lang.flow`) on the worst
shape a game can give it: a loop that stores `s = s + t` (a chain of derived labels, one
per pass) and rewards the seat on `s` after every pass, the seat's own move `t` granted
each time. Prints seconds per chain length and a last `name=value` line.

    PYTHONPATH=. python benchmarks/feedback_flow_bench.py [--passes 500,2500,5000]
"""

from __future__ import annotations

import argparse
import time

from arena.lang.flow import Flow, Origin, union


def chain_seconds(passes: int) -> float:
    """Seconds to store and check `passes` links; the story stays hidden throughout."""
    flow = Flow.public(["s"])
    flow.store("s", Origin(frozenset({"story 1:9"}), exact=True), line=1)
    given: set[str] = set()
    start = time.perf_counter()
    for line in range(passes):
        move = flow.atomic(f"move alice t@{line}")
        given |= move.sources
        flow.store("s", union([flow.register("s"), move]), line)
        if flow.knows("alice", given, flow.register("s").sources):
            raise SystemExit("the hidden story became known: the benchmark is wrong")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", default="500,2500,5000")
    sizes = [int(n) for n in parser.parse_args().passes.split(",")]
    print(f"{'passes':>8} {'seconds':>9} {'us/pass':>9}")
    seconds = 0.0
    for size in sizes:
        seconds = chain_seconds(size)
        print(f"{size:>8} {seconds:>9.3f} {seconds / size * 1e6:>9.1f}")
    print(f"flow_chain_{sizes[-1]}_s={seconds:.3f}")


if __name__ == "__main__":
    main()
