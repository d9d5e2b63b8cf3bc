"""The `llm` meta-sampler's own cost (not a test): what the repair loop adds around a model.

A scripted OpenAI-compatible server on 127.0.0.1 answers instantly, so the time measured
is the sampler's (after one untimed warm-up call): litellm's client, loopback HTTP, extraction, the static checker and the
records. Three scripts, --count candidates each: every reply valid (1 attempt), one
invalid reply then a valid one (2 attempts, the repair message built from the carets),
and hostile (a 5 MB reply, then Python code; repairs=1, hopeless). The table shows per
script: candidates, attempts, ms per attempt, ms per candidate and the recorded evidence
(JSON bytes per candidate); the last line is `ms_per_attempt=<x>` over all scripts.

Run: PYTHONPATH=. python benchmarks/llm_sampler_bench.py [--count 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from arena.plugins.registry import Registry
from arena.protocols.sampler import ParentGame
from tests.support.openai_compat_server import ServerState, start_server

PARENT_FILE = Path(__file__).resolve().parents[1] / "arena" / "games" / "simplest_cut.xgl"
VALID = (
    "# Longer cut\n# measures: a simple cut with a longer move\nassign(s=story())\n"
    "elicit(t, 12)\nassign(s1=s // t, s2=s % t)\nreward(xed(s1 | s2) - xent(t))\n"
)
INVALID = VALID.replace("elicit(t, 12)", "elicit(q, 12)")
PYTHON = "import os\nassign(s=__import__('os').system('true'))\n"


def fenced(code: str, label: str = "xgl") -> str:
    return f"A variant:\n```{label}\n{code}```\n"


SCRIPTS = {
    "valid": ([fenced(VALID)], 3),
    "repaired": ([fenced(INVALID), fenced(VALID)], 3),
    "hostile": (["x" * 5_000_000, fenced(PYTHON, "python")], 1),
}


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10, help="candidates per script")
    args = parser.parse_args(argv)
    parent = ParentGame("simplest_cut", "1", "simplest_cut.xgl", PARENT_FILE.read_text())
    rows = []
    all_attempts, all_s = 0, 0.0
    for name, (replies, repairs) in SCRIPTS.items():
        state = ServerState(default={"reply": fenced(VALID)})
        async with start_server(state=state) as url:
            query = urlencode({"api_base": url, "repairs": repairs, "timeout": 30})
            sampler = Registry.load().create_sampler(f"llm:openai/bench?{query}")
            # Warm-up (not timed): litellm's import and first client.
            await asyncio.to_thread(list, sampler.propose(parent, 1, 99))
            state.script([{"reply": r} for r in replies] * args.count)
            start = time.perf_counter()
            made = await asyncio.to_thread(list, sampler.propose(parent, args.count, 0))
            took = time.perf_counter() - start
        attempts = sum(len(p.extra["attempts"]) for p in made)  # type: ignore[arg-type]
        size = sum(len(json.dumps(p.extra)) for p in made) / len(made)
        outcomes = sorted({str(p.extra["outcome"]) for p in made})
        rows.append((name, len(made), attempts, took, size, ",".join(outcomes)))
        all_attempts += attempts
        all_s += took
    print("llm sampler against an instant loopback server, CPU")
    print(f"{'script':10} {'cand':>5} {'attempts':>9} {'ms/attempt':>11} {'ms/cand':>8} "
          f"{'JSON B/cand':>12}  outcome")
    for name, count, attempts, took, size, outcomes in rows:
        print(f"{name:10} {count:5d} {attempts:9d} {1000 * took / attempts:11.1f} "
              f"{1000 * took / count:8.1f} {size:12.0f}  {outcomes}")
    print(f"ms_per_attempt={1000 * all_s / all_attempts:.1f}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
