"""Map preparation benchmark (issue 35; not a test): maps per second when the HF judge draws
many maps' stories at once, against one story at a time as before, with the stories'
equality checked in the same run.

A map here is one `story()` site of 60 tokens (DEFAULT_STORY_TOKENS) with an empty prompt,
seeded as the executor seeds it (`derive_seed("story", map seed, site)`); each map asks for
its story in its own call, all maps at once, as `MapPreparation` does.

- **before**: `benchmarks/_reference_sampler.py`, the judge's sampler before issue 35: each
  story alone, one sequence at a time, all torch threads on it (`--before` maps).
- **before-1t**: the same on a lane with one torch thread (so the table separates what
  batching gains from what one thread per block gains on a loaded machine).
- **batched**: `HFJudge.sample_ids`, one call per map, concurrently: the judge's queue puts
  the rows in blocks of 16 on one-thread sampling lanes (`--maps` maps).
- **alone now**: the first `--alone` maps again, one call at a time (each in a block of its
  own). Their token ids must equal the batched ones bit for bit, or the script exits 1.

`kept` counts the batched stories whose token ids equal the `before` ones (the numerics of a
16-row block differ from a 1-row pass in the last bits, which flips a sampled token only
rarely; a stored map is never redrawn either way).

Models: `bundled` (the trained checkpoint) and `gpt2-small` (GPT-2 small's shape, 124M,
random weights, vocabulary 50257 with the bundled tokenizer; `benchmarks/_judge_models.py`).
The last line is `speedup=X`: batched over before in maps per second, the smaller of the
models' ratios. Goal: >= 5 on the project's 2-core CPU. The load average is printed before
and after (the machine is shared: run it without `nice`, and read the figures with it).

Run: PYTHONPATH=. python benchmarks/map_prep_bench.py [--models bundled,gpt2-small]
    [--maps 64] [--before 16] [--alone 4] [--tokens 60] [--device cpu]
(`--maps`, `--before` and `--alone` take one value for every model or one per model,
comma-separated in the order of `--models`.)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Sequence

import torch

from arena.judges.hf.judge import HFJudge
from arena.judges.hf.lanes import lane_pool
from arena.lang.limits import DEFAULT_STORY_TOKENS
from arena.protocols.judge import GenerateRequest
from arena.runtime.seeds import derive_seed
from benchmarks._judge_models import make_judge
from benchmarks._reference_sampler import sample_tokens

SITE = "3:12"  # a story() call site, as `story_site` names it


def map_requests(count: int, tokens: int) -> list[GenerateRequest]:
    return [GenerateRequest("", tokens, derive_seed("story", m, SITE)) for m in range(count)]


def before(judge: HFJudge, reqs: Sequence[GenerateRequest], device: str) -> list[list[int]]:
    """The pre-issue-35 sampler, one story after the other (BOS as the whole prompt)."""
    bos = judge.bos_id
    assert bos is not None
    banned = sorted(judge._encoder.special_ids)
    return [
        sample_tokens(
            judge.model, (bos,), max_tokens=r.max_tokens, seed=r.seed,
            temperature=r.temperature, banned=banned, vocab_limit=judge._vocab_limit,
            device=device,
        )
        for r in reqs
    ]


def before_one_thread(judge: HFJudge, reqs: Sequence[GenerateRequest], device: str
                      ) -> list[list[int]]:
    """The same on a one-thread lane: what batching gains beyond the thread count."""
    pool = lane_pool(1, 1, "bench-before")
    try:
        return pool.submit(before, judge, reqs, device).result()
    finally:
        pool.shutdown()


async def batched(judge: HFJudge, reqs: Sequence[GenerateRequest]) -> list[list[int]]:
    """One call per map, all at once (as the executor prepares maps)."""
    found = await asyncio.gather(*(judge.sample_ids([r]) for r in reqs))
    return [ids for [ids] in found]


async def alone(judge: HFJudge, reqs: Sequence[GenerateRequest]) -> list[list[int]]:
    return [(await judge.sample_ids([r]))[0] for r in reqs]


async def bench_model(name: str, device: str, maps: int, n_before: int, n_alone: int,
                      tokens: int) -> dict[str, object]:
    judge = make_judge(name, device, 8192)
    try:
        warm = map_requests(1, 2)
        await judge.sample_ids(warm)
        before(judge, warm, device)
        reqs = map_requests(maps, tokens)
        start = time.perf_counter()
        old = await asyncio.to_thread(before, judge, reqs[:n_before], device)
        t_before = time.perf_counter() - start
        start = time.perf_counter()
        old1 = await asyncio.to_thread(before_one_thread, judge, reqs[:n_before], device)
        t_before1 = time.perf_counter() - start
        stats0 = judge.sampling_stats()
        start = time.perf_counter()
        new = await batched(judge, reqs)
        t_batched = time.perf_counter() - start
        stats = judge.sampling_stats()
        start = time.perf_counter()
        lone = await alone(judge, reqs[:n_alone])
        t_alone = time.perf_counter() - start
    finally:
        await judge.aclose()
    return {
        "model": name,
        "before": (n_before, t_before),
        "before-1t": (n_before, t_before1),
        "batched": (maps, t_batched),
        "alone": (n_alone, t_alone),
        "blocks": stats["blocks"] - stats0["blocks"],
        "equal": sum(a == b for a, b in zip(lone, new, strict=False)),
        "kept": sum(a == b for a, b in zip(old, new, strict=False)),
        "kept1": sum(a == b for a, b in zip(old1, new, strict=False)),
        "tokens": sum(len(ids) for ids in new),
    }


def per_model(text: str, models: Sequence[str]) -> list[int]:
    values = [int(v) for v in text.split(",")]
    if len(values) == 1:
        return values * len(models)
    if len(values) != len(models):
        raise SystemExit(f"{text!r}: give one value, or one per model ({len(models)}).")
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="bundled,gpt2-small")
    parser.add_argument("--maps", default="64,32")
    parser.add_argument("--before", default="16,4")
    parser.add_argument("--alone", default="4,2")
    parser.add_argument("--tokens", type=int, default=DEFAULT_STORY_TOKENS)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    models = args.models.split(",")
    maps, n_before, n_alone = (per_model(v, models) for v in (args.maps, args.before, args.alone))
    if any(b > m or a > m for m, b, a in zip(maps, n_before, n_alone, strict=True)):
        raise SystemExit("--before and --alone take at most --maps maps.")
    load0 = os.getloadavg()
    print(f"device {args.device}, torch {torch.__version__}, {torch.get_num_threads()} torch "
          f"threads, {os.cpu_count()} CPUs; {args.tokens} tokens per story")
    print(f"load average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    rows = []
    for i, name in enumerate(models):
        rows.append(asyncio.run(bench_model(name, args.device, maps[i], n_before[i],
                                            n_alone[i], args.tokens)))
    load1 = os.getloadavg()
    print(f"load average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    print()
    print(f"{'model':<11} {'mode':<11} {'maps':>5} {'seconds':>8} {'maps/s':>8} {'x before':>9}"
          f"  stories")
    ratios = []
    failed = False
    for r in rows:
        base = r["before"][0] / r["before"][1]  # type: ignore[index]
        for mode in ("before", "before-1t", "batched", "alone"):
            n, secs = r[mode]  # type: ignore[misc]
            rate = n / secs if secs else 0.0
            note = ""
            if mode == "before-1t":
                note = "one torch thread"
            if mode == "batched":
                note = (f"{r['blocks']} blocks; kept {r['kept']}/{r['before'][0]} of before, "  # type: ignore[index]
                        f"{r['kept1']} of before-1t")
                ratios.append(rate / base)
            if mode == "alone":
                note = f"equal to batched: {r['equal']}/{n} (token ids)"
                failed |= r["equal"] != n
            print(f"{r['model']:<11} {mode:<11} {n:>5} {secs:>8.2f} {rate:>8.2f} "
                  f"{rate / base:>9.2f}  {note}")
    if failed:
        print("FAILED: a story drawn alone differs from the same story drawn in a batch")
        sys.exit(1)
    print(f"speedup={min(ratios):.2f}")


if __name__ == "__main__":
    main()
