"""Judge throughput on one device: the judge in-process against the same judge as one Ray
judge actor (issue 12's GPU figure), side by side in one run, same requests. (This was
gpu_judge_bench.py; that name now holds issue 21's ours-vs-plain-forward benchmark.)

The model is a randomly initialised GPT-2 of the chosen size with the bundled tokenizer
(no hub here; weights do not change the cost of a forward pass), saved to a temporary
folder and loaded through the ordinary `hf:<folder>` judge spec, so both sides run the
product's own `HFJudge` + `JudgePool`. The workload is `--requests` score requests (seeded
stories of the procedural corpus, each scored given a short prefix, as `xed` does), sent
`--concurrency` at a time, with no repeats (the pool's cache never answers).

Columns: wall seconds, requests/s and judge tokens/s (the pool's `tokens_processed`: rows
x width of every forward pass, padding included). The Ray side goes through `RayJudge`
from the driver, so it includes Ray's call overhead; the actor is started and warmed up
before timing (`num_gpus=1` when a GPU is there). Scores of both sides must agree to 1e-2
bits per token.

Run:  PYTHONPATH=. python benchmarks/ray_judge_bench.py [--size small|bundled]
      [--device cuda] [--dtype bfloat16] [--requests 2048] [--concurrency 256] [--no-ray]
The last line is `ray_actor_over_in_process=<ratio of tokens/s>`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SIZES = {  # (n_layer, n_embd, n_head)
    "bundled": (4, 256, 4),
    "small": (12, 768, 12),  # GPT-2 small's shape, 124M parameters with the LM head
    "medium": (24, 1024, 16),
}


def make_model(size: str, folder: Path) -> None:
    """A randomly initialised GPT-2 of `size` with the bundled tokenizer, saved to `folder`."""
    import torch
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    from arena.judges.hf.bundled_judge import bundled_model_path

    tokenizer = AutoTokenizer.from_pretrained(str(bundled_model_path()))
    n_layer, n_embd, n_head = SIZES[size]
    config = GPT2Config(
        vocab_size=len(tokenizer), n_positions=512, n_layer=n_layer, n_embd=n_embd,
        n_head=n_head, bos_token_id=0, eos_token_id=0, pad_token_id=0,
    )
    torch.manual_seed(0)
    GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)


def workload(n: int, seed: int) -> list[Any]:
    from arena.judges.hf.training.corpus import generate_stories
    from arena.protocols.judge import ScoreRequest

    rng = random.Random(seed)
    stories = [s.text for s in generate_stories(n, seed)]
    requests = []
    for i, story in enumerate(stories):
        words = story.split()
        cut = rng.randint(3, min(12, len(words) - 1))
        requests.append(ScoreRequest(" ".join(words[cut:]), f"{i}: " + " ".join(words[:cut])))
    return requests


async def drive(judge: Any, requests: list[Any], concurrency: int) -> tuple[float, list[Any]]:
    """Wall seconds to score every request, `concurrency` calls in flight."""
    sem = asyncio.Semaphore(concurrency)

    async def one(r: Any) -> Any:
        async with sem:
            (scores,) = await judge.score([r])
            return scores

    started = time.perf_counter()
    out = await asyncio.gather(*(one(r) for r in requests))
    return time.perf_counter() - started, list(out)


def tokens(metrics: dict[str, float]) -> float:
    return float(metrics.get("tokens_processed", 0.0))


async def in_process(spec: str, requests: list[Any], concurrency: int) -> dict[str, Any]:
    from arena.plugins.plugin_manager import create_plugin_manager
    from arena.plugins.registry import Registry

    judge = Registry.from_plugin_manager(create_plugin_manager()).create_judge(spec)
    await drive(judge, workload(64, 99), concurrency)  # warm-up: kernels, allocator
    before = tokens(judge.metrics())  # type: ignore[attr-defined]
    wall, scores = await drive(judge, requests, concurrency)
    done = tokens(judge.metrics()) - before  # type: ignore[attr-defined]
    return {"wall": wall, "tokens": done, "scores": scores}


async def ray_actor(spec: str, requests: list[Any], concurrency: int, gpus: float) -> dict[str, Any]:
    import ray

    from arena.tournaments.running.executors.ray_judge import RayJudge, start_judge_actors

    ray.init(num_cpus=4, num_gpus=int(gpus > 0), include_dashboard=False, log_to_driver=False)
    try:
        actors = start_judge_actors(spec, 1, gpus=gpus, resources={}, registry_ref=None)
        judge = await RayJudge.connect(actors)
        await drive(judge, workload(64, 99), concurrency)
        await judge.refresh_stats()
        before = tokens(judge.metrics())
        wall, scores = await drive(judge, requests, concurrency)
        await judge.refresh_stats()
        done = tokens(judge.metrics()) - before
        await judge.aclose()
        return {"wall": wall, "tokens": done, "scores": scores}
    finally:
        ray.shutdown()


def max_gap(a: list[Any], b: list[Any]) -> float:
    gap = 0.0
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x.bits, y.bits, strict=True):
            gap = max(gap, abs(u - v))
    return gap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--requests", type=int, default=2048)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    import torch

    gpus = 1.0 if args.device.startswith("cuda") and torch.cuda.is_available() else 0.0
    name = torch.cuda.get_device_name(0) if gpus else "cpu"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "model"
        make_model(args.size, folder)
        spec = f"hf:{folder}?device={args.device}&dtype={args.dtype}"
        requests = workload(args.requests, 7)
        rows = {"in-process": asyncio.run(in_process(spec, requests, args.concurrency))}
        if not args.no_ray:
            rows["ray actor"] = asyncio.run(ray_actor(spec, requests, args.concurrency, gpus))
    print(f"device={name} model=gpt2-{args.size} dtype={args.dtype} requests={args.requests} "
          f"concurrency={args.concurrency}")
    print(f"{'judge':<12} {'wall s':>8} {'req/s':>9} {'tokens/s':>11}")
    for label, row in rows.items():
        print(f"{label:<12} {row['wall']:>8.2f} {args.requests / row['wall']:>9.1f} "
              f"{row['tokens'] / row['wall']:>11.0f}")
    if "ray actor" in rows:
        gap = max_gap(rows["in-process"]["scores"], rows["ray actor"]["scores"])
        print(f"max |bits difference| between the two sides: {gap:.2e}")
        if gap > 1e-2:
            sys.exit(f"scores differ by {gap} bits")
        ratio = (rows["ray actor"]["tokens"] / rows["ray actor"]["wall"]) / (
            rows["in-process"]["tokens"] / rows["in-process"]["wall"]
        )
        print(f"ray_actor_over_in_process={ratio:.3f}")


if __name__ == "__main__":
    main()
