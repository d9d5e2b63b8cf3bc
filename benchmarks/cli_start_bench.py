"""CLI start benchmark (not a test): wall time of `arena --help` and `arena games list`,
each in a fresh Python process (what a user waits for before the first line appears).

Every command runs `--runs` times (default 5) after one untimed warm-up run (so the OS file
cache is warm, as for a user's second command); the table gives the median, the fastest run
and the median CPU time (user + system of the child: on a loaded machine wall time swells,
CPU time much less). It also lists which heavy libraries each command imported (torch, transformers,
litellm, ray, streamlit, sqlalchemy, scipy, pandas, aiohttp): the start-up cost comes from
those, and none is needed to print help or list games.

Target (issue 18): < 1 s median for each on the project's 2 shared CPU cores.

Run: PYTHONPATH=. python benchmarks/cli_start_bench.py [--runs 5] [--root PATH]
(`--root` times another checkout, e.g. `git worktree add /tmp/before fbd16ae`, under the
same load.) The last line is `cli_start_max_median_s=<x>`, the slower of the two medians.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 1.0
HEAVY = (
    "torch", "transformers", "litellm", "ray", "streamlit", "sqlalchemy", "sqlmodel",
    "scipy", "pandas", "aiohttp",
)
COMMANDS = {"arena --help": ["--help"], "arena games list": ["games", "list"]}
# Runs the real console entry point, then reports the heavy modules it had imported.
PROBE = (
    "import json, sys\n"
    "from arena.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "finally:\n"
    "    heavy = sorted(m for m in {heavy!r} if m in sys.modules)\n"
    "    print('HEAVY=' + json.dumps(heavy), file=sys.stderr)\n"
)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_once(args: list[str], root: Path) -> tuple[float, float, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    code = PROBE.format(heavy=HEAVY)
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=root, env=env, capture_output=True,
        text=True, timeout=300,
    )
    seconds = time.perf_counter() - start
    cpu = _children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"arena {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    heavy: list[str] = next(
        (json.loads(line[6:]) for line in done.stderr.splitlines() if line.startswith("HEAVY=")),
        [],
    )
    return seconds, cpu, heavy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout to time")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPU(s); {args.root}")
    print(f"{'command':<18} {'median s':>9} {'fastest s':>10} {'CPU s':>6} {'target':>7}  ok"
          "   heavy imports")
    medians = []
    for label, argv in COMMANDS.items():
        time_once(argv, args.root)  # warm-up
        results = [time_once(argv, args.root) for _ in range(args.runs)]
        times = [seconds for seconds, _, _ in results]
        cpu = statistics.median(c for _, c, _ in results)
        median = statistics.median(times)
        medians.append(median)
        heavy = ", ".join(results[-1][2]) or "-"
        ok = "yes" if median < TARGET_S else "NO"
        print(f"{label:<18} {median:9.2f} {min(times):10.2f} {cpu:6.2f} {TARGET_S:7.1f}  "
              f"{ok:<4} {heavy}")
    print(f"cli_start_max_median_s={max(medians):.3f}")


if __name__ == "__main__":
    main()
