"""Judge throughput: one tournament-like workload scored by (a) a reference-style scorer and
(b) the JudgePool in front of the HF judge, on the same model, side by side in one run.

Workload: real matches through `play_match`, all concurrent (asyncio.gather): seven
bundled games (one story, three stories, long conditioning prefixes, ensures, several
roles) x maps x participants x rounds. Map texts are fixed seeded stories of the
procedural corpus and every participant is a scripted player whose moves are a pure
function of (participant, game, role, round, line, attempt, what it sees), so (a) and (b)
see exactly the same requests. Every reward of (b) must match (a) within 1e-3 bits.

(a) `ReferenceScorer`: every request its own batch-of-one forward over the whole sequence
    with full logits, synchronously on the event loop, no cache (xed = two passes).
(b) `JudgePool(HFJudge)`: dynamic batching, dedup, cache, requests packed several per row
    with shared prefixes computed once, LM head on scored rows only.
(b) runs first: the tokenizer cache it fills then also serves (a), which favours (a).

Token positions are rows x width of every forward pass: padding (and, for (b), the tail of
packed rows) included. Model FLOPs of a forward over `rows` x `width` positions, of which
`head_rows` go through the LM head (every position for (a), the scored ones for (b)):

    2 * N_body * rows * width  +  4 * n_layer * d_model * rows * width**2
    +  2 * d_model * vocab * head_rows

N_body counts the weights of the transformer's matrix multiplies (embeddings excluded:
they are lookups); the second term is QK^T and AV over each row's full square (what SDPA
computes under a padding or packing mask); norms, activations and softmax are not counted.
Without the attention term the formula is checked against torch's FlopCounterMode (which
does not count CPU SDPA kernels) on a padded and a packed batch. GFLOP/s = FLOPs / busy
seconds inside forward passes. The matmul peak is the best GFLOP/s of float32
`torch.matmul` on the model's own layer shapes ([4096, d] x [d, 3d | 4d], [4096, 4d] x
[4d, d]) with the same thread count, measured before and after the runs (best kept).

`--stream distinct` replaces the matches by `--requests` score requests that are all
different (seeded corpus stories, each scored after a short numbered prefix, as `xed`
does), sent `--concurrency` at a time: no cache hit, no shared prefix beyond BOS, every
request tokenised fresh. The rows then print scored tokens/s and seconds only, one row per
`--repeats` run ((b) then (a) on a fresh request set each time); the speedup is the median.

Threads: both sides get `--threads` torch threads. (a) runs one forward at a time with
them as intra-op threads (on the event loop); (b) runs passes on lanes (`--lanes`, default
one per thread, each lane with a share of them; `--lanes 1`: one pass at a time on all).

Run:  PYTHONPATH=. python benchmarks/judge_bench.py [--models bundled,gpt2-small]
      [--scale 1] [--participants 3] [--rounds 3] [--threads 2] [--lanes N] [--dtype float32] [--device cpu]
      [--stream tournament|distinct] [--requests 512] [--concurrency 256] [--repeats 1]
The last line is `speedup=<b/a>`: the wall-clock throughput ratio pool/reference, the
minimum over the models run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch

from arena.judges.hf.judge import HFJudge
from arena.judges.pool.judge_pool import JudgePool
from arena.listing import text_table
from arena.protocols.judge import (
    GenerateRequest,
    Judge,
    JudgeInfo,
    ScoreRequest,
    TokenScores,
)
from arena.runtime.match import MatchConfig, MatchResult, play_match
from arena.runtime.round import RoundLimits
from arena.runtime.seat import MovePolicy
from benchmarks._judge_models import (
    counted_flops_check,
    make_judge,
    matmul_peak,
    model_flops,
    model_shape,
)
from benchmarks._judge_workloads import (
    MatchPlan,
    build_plan,
    distinct_requests,
    load_games,
)
from benchmarks._reference_scorer import ReferenceScorer

# One story (condense, single_text), three stories (synthesize), long conditioning prefixes
# (two_ways: opener + a whole story before the move), ensures (horizon, single_text),
# several roles with repeated terms (secret_sharing, coordination).
DEFAULT_GAMES = (
    "condense.xent,synthesize.xent,horizon.xent,two_ways.xent,"
    "single_text.xgl,secret_sharing.xgl,coordination.xgl"
)
TOLERANCE_BITS = 1e-3
TARGETS = {"speedup": 3.0, "positions": 0.5, "peak": 0.40}


class CountingJudge:
    """Passes calls through and counts the scored tokens handed to the runtime."""

    def __init__(self, inner: Judge) -> None:
        self.inner = inner
        self.requests = 0
        self.scored_tokens = 0

    @property
    def info(self) -> JudgeInfo:
        return self.inner.info

    async def score(self, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
        results = await self.inner.score(requests)
        self.requests += len(requests)
        self.scored_tokens += sum(len(r.bits) for r in results)
        return results

    async def tokenize(self, texts: Sequence[str], dialect: str = "xgl") -> list[list[str]]:
        return await self.inner.tokenize(texts, dialect)

    async def generate(self, requests: Sequence[GenerateRequest]) -> list[str]:
        return await self.inner.generate(requests)

    async def aclose(self) -> None:
        """The inner judge is closed by whoever made it."""


async def play_all(
    judge: Judge, plan: Sequence[MatchPlan], rounds: int
) -> tuple[float, list[MatchResult]]:
    config = MatchConfig(
        rounds=rounds,
        play_seed=7,
        limits=RoundLimits(ensure_budget=10),
        # No timeout: the reference blocks the event loop, which must not forfeit moves.
        policy=MovePolicy(timeout_s=None, retries=0),
    )
    start = time.perf_counter()
    results = await asyncio.gather(
        *(play_match(m.game.program, m.game.view, m.game_map, m.seats, judge, config) for m in plan)
    )
    return time.perf_counter() - start, list(results)


def reward_diff(a: Sequence[MatchResult], b: Sequence[MatchResult]) -> tuple[float, int]:
    """Max |total(a) - total(b)| over reward events, and how many were compared.

    Raises SystemExit when the runs diverge (errors, different event sequences)."""
    worst, count = 0.0, 0
    for i, (ra, rb) in enumerate(zip(a, b, strict=True)):
        if ra.error or rb.error:
            raise SystemExit(f"match {i} failed: reference={ra.error!r} pool={rb.error!r}")
        ea = [e for e in ra.events if e.type == "reward"]
        eb = [e for e in rb.events if e.type == "reward"]
        keys_a = [(e.round, e.line, e.player) for e in ea]
        keys_b = [(e.round, e.line, e.player) for e in eb]
        if keys_a != keys_b:
            raise SystemExit(f"match {i}: reward events differ: {keys_a} vs {keys_b}")
        for x, y in zip(ea, eb, strict=True):
            worst = max(worst, abs(x.total - y.total))
            count += 1
    return worst, count


def rounds_played(results: Sequence[MatchResult]) -> int:
    return sum(1 for r in results for e in r.events if e.type == "round_finished")


# ---------------------------------------------------------------------------- one model


@dataclass
class Row:
    label: str
    wall_s: float
    scored_tokens: int
    rounds: int
    stats: dict[str, float]
    flops: float

    def cells(self, peak: float) -> list[str]:
        gflops = self.flops / self.stats["busy_s"] / 1e9 if self.stats["busy_s"] else 0.0
        return [
            self.label,
            f"{self.stats['padded'] / self.rounds:.0f}",
            f"{self.stats['positions'] / self.rounds:.0f}",
            f"{self.scored_tokens / self.wall_s:.0f}",
            f"{self.wall_s:.2f}",
            f"{self.stats['busy_s']:.2f}",
            f"{int(self.stats['batches'])}",
            f"{gflops:.1f}",
            f"{100 * gflops / peak:.0f}%",
        ]


def delta(after: Mapping[str, float], before: Mapping[str, float]) -> dict[str, float]:
    return {k: after[k] - before.get(k, 0.0) for k in after}


async def warm_up(judge: HFJudge, ref: ReferenceScorer, plan: Sequence[MatchPlan]) -> None:
    """First forward passes allocate and pick kernels; keep that out of the timings."""
    story = next(iter(plan[0].game_map.stories.values()))
    reqs = [ScoreRequest(story, "a short prefix", "xgl"), ScoreRequest(story, "", "xent")]
    await judge.score(reqs * 4)
    await ref.score(reqs)


async def score_all(
    judge: Judge, requests: Sequence[ScoreRequest], concurrency: int
) -> tuple[float, list[TokenScores]]:
    """Wall seconds to score every request alone, `concurrency` calls in flight."""
    sem = asyncio.Semaphore(concurrency)

    async def one(r: ScoreRequest) -> TokenScores:
        async with sem:
            (scores,) = await judge.score([r])
            return scores

    start = time.perf_counter()
    out = await asyncio.gather(*(one(r) for r in requests))
    return time.perf_counter() - start, list(out)


async def bench_distinct(name: str, args: argparse.Namespace) -> float:
    """(a) and (b) on `--requests` all-different requests (see the module docstring),
    alternated `--repeats` times on fresh request sets: the median ratio is the speedup."""
    judge = make_judge(name, args.device, args.max_batch_tokens, args.lanes, args.dtype)
    exact = args.dtype == "float32"
    # (a) is the reference: float32 always. With another --dtype, (b) runs its own copy in
    # that dtype and the table shows how far its bits are from (a)'s.
    ref_judge = judge if exact else make_judge(name, args.device, args.max_batch_tokens)
    ref = ReferenceScorer(ref_judge, args.device)
    print(
        f"\n== {judge.info.name} ({judge.num_parameters / 1e6:.1f}M), distinct stream: "
        f"{args.requests} requests x {args.repeats} runs, {args.concurrency} in flight, "
        f"device {args.device}, (a) float32, (b) {args.dtype}; {threads_note(judge)}"
    )
    warm = distinct_requests(16, 99)
    await ref.score(warm[:2])
    print(
        f"   {'run':<4} {'(a) tok/s':>10} {'(b) tok/s':>10} {'(a) s':>7} {'(b) s':>7} "
        f"{'(b) busy s':>10} {'b/a':>6} {'max |a-b| bits':>15} {'mean |a-b|':>11}"
    )
    speedups = []
    for run in range(args.repeats):
        requests = distinct_requests(args.requests, 7 + run)
        pool = JudgePool(
            judge,
            max_batch_tokens=args.max_batch_tokens,
            max_wait_ms=args.max_wait_ms,
            close_backend=False,
        )
        if run == 0:
            await score_all(pool, warm, args.concurrency)
        before = judge.forward_stats()
        wall_b, out_b = await score_all(pool, requests, args.concurrency)
        busy_b = judge.forward_stats()["busy_s"] - before["busy_s"]
        await pool.aclose()
        wall_a, out_a = await score_all(ref, requests, args.concurrency)
        gaps = [
            abs(x - y)
            for a, b in zip(out_a, out_b, strict=True)
            for x, y in zip(a.bits, b.bits, strict=True)
        ]
        worst = max(gaps, default=0.0)
        scored = sum(len(a.bits) for a in out_a)
        speedups.append(wall_a / wall_b)
        print(
            f"   {run + 1:<4} {scored / wall_a:>10.0f} {scored / wall_b:>10.0f} {wall_a:>7.2f} "
            f"{wall_b:>7.2f} {busy_b:>10.2f} {wall_a / wall_b:>6.2f} {worst:>15.2e} "
            f"{statistics.fmean(gaps) if gaps else 0.0:>11.2e}"
        )
        if exact and worst > TOLERANCE_BITS:
            raise SystemExit(f"bits differ by {worst:.3g} > {TOLERANCE_BITS}: numbers wrong")
    await judge.aclose()
    if not exact:
        await ref_judge.aclose()
    speedup = statistics.median(speedups)
    print(f"   speedup {speedup:.2f}x (median of {len(speedups)} runs; target >= 3x)")
    return speedup


def threads_note(judge: HFJudge) -> str:
    """How each side uses the CPU's threads (both get `--threads` torch threads)."""
    ours = judge.threads_note() or "on the device"
    return f"(a) one forward at a time on {torch.get_num_threads()} torch thread(s); (b) {ours}"


async def bench_model(name: str, args: argparse.Namespace, plan: list[MatchPlan]) -> float:
    if args.stream == "distinct":
        return await bench_distinct(name, args)
    judge = make_judge(name, args.device, args.max_batch_tokens, args.lanes)
    shape = model_shape(judge.model)
    ref = ReferenceScorer(judge, args.device)
    print(
        f"\n== {judge.info.name}: {judge.num_parameters / 1e6:.1f}M parameters "
        f"(N_body {shape['n_body'] / 1e6:.1f}M, {shape['n_layer']} layers, d {shape['d_model']},"
        f" vocab {shape['vocab']}), device {args.device}; {threads_note(judge)}"
    )
    print(f"   flops check: {counted_flops_check(judge, shape, args.device)}")
    peak_tokens = min(args.max_batch_tokens, 4096)
    peak_before = matmul_peak(shape["d_model"], peak_tokens, args.device)
    await warm_up(judge, ref, plan)

    # (b) first: the tokenizer cache it fills then also serves (a), which favours (a).
    pool = JudgePool(
        judge,
        max_batch_tokens=args.max_batch_tokens,
        max_wait_ms=args.max_wait_ms,
        close_backend=False,
    )
    counting_b = CountingJudge(pool)
    before = judge.forward_stats()
    wall_b, results_b = await play_all(counting_b, plan, args.rounds)
    stats_b = delta(judge.forward_stats(), before)
    pool_metrics = pool.metrics()
    await pool.aclose()

    counting_a = CountingJudge(ref)
    before = ref.forward_stats()
    wall_a, results_a = await play_all(counting_a, plan, args.rounds)
    stats_a = delta(ref.forward_stats(), before)
    await judge.aclose()

    # The cores are shared: measure the peak before and after the runs and keep the best.
    peak = max(peak_before, matmul_peak(shape["d_model"], peak_tokens, args.device))
    print(
        f"   matmul peak: {peak:.1f} GFLOP/s (float32 [{peak_tokens}, d] x [d, 3d|4d] and "
        f"[{peak_tokens}, 4d] x [4d, d], best of 5, before and after the runs)"
    )
    worst, compared = reward_diff(results_a, results_b)
    if counting_a.scored_tokens != counting_b.scored_tokens:
        raise SystemExit(
            f"scored tokens differ: {counting_a.scored_tokens} vs {counting_b.scored_tokens}"
        )
    rounds = rounds_played(results_a)
    row_a = Row(
        "(a) reference",
        wall_a,
        counting_a.scored_tokens,
        rounds,
        stats_a,
        model_flops(shape, stats_a, stats_a["head_rows"]),
    )
    row_b = Row(
        "(b) pool",
        wall_b,
        counting_b.scored_tokens,
        rounds,
        stats_b,
        model_flops(shape, stats_b, stats_b["scored"]),
    )
    print_table(row_a, row_b, peak)
    parts = []
    for label, stats, head_rows in (
        ("a", stats_a, stats_a["head_rows"]),
        ("b", stats_b, stats_b["scored"]),
    ):
        linear = model_flops(shape, stats, 0.0, attention=False)
        attention = model_flops(shape, stats, 0.0) - linear
        head = model_flops(shape, stats, head_rows, attention=False) - linear
        parts.append(
            f"({label}) {linear / 1e9:.0f} linear + {attention / 1e9:.0f} attention + "
            f"{head / 1e9:.0f} LM head"
        )
    print("   GFLOP: " + "; ".join(parts))
    m = pool_metrics
    print(
        f"   pool: {int(m['requests'])} requests, {int(m['cache_hits'])} cache hits, "
        f"{int(m['inflight_dedup'])} deduplicated, {int(m['cache_misses'])} computed in "
        f"{int(m['batches'])} batches (mean {m['mean_batch_size']:.1f} requests), queue wait "
        f"mean {m['mean_queue_wait_ms']:.1f} ms; their {int(stats_b['requested'])} tokens ran "
        f"as {int(stats_b['positions'])} positions (shared prefixes) + "
        f"{int(stats_b['padded'] - stats_b['positions'])} padding"
    )
    print(
        f"   workload: {len(plan)} matches x {args.rounds} rounds = {rounds} game rounds, "
        f"{counting_a.requests} score requests, {counting_a.scored_tokens} scored tokens"
    )
    print(f"   max |reward(a) - reward(b)| = {worst:.2e} bits over {compared} rewards")
    if worst > TOLERANCE_BITS:
        raise SystemExit(f"rewards differ by {worst:.3g} bits > {TOLERANCE_BITS}: numbers wrong")
    gflops_b = row_b.flops / stats_b["busy_s"] / 1e9
    speedup = wall_a / wall_b
    checks = [
        ("speedup", speedup >= TARGETS["speedup"], f"{speedup:.2f}x >= 3x"),
        (
            "positions",
            stats_b["padded"] <= TARGETS["positions"] * stats_a["padded"],
            f"{stats_b['padded'] / stats_a['padded']:.2f} <= 0.5",
        ),
        ("peak", gflops_b >= TARGETS["peak"] * peak, f"{gflops_b / peak:.0%} >= 40% of peak"),
    ]
    print("   targets: " + ", ".join(f"{n} {t} {'ok' if ok else 'MISSED'}" for n, ok, t in checks))
    return speedup


def print_table(a: Row, b: Row, peak: float) -> None:
    header = [
        "",
        "padded pos/round",
        "real pos/round",
        "scored tok/s",
        "wall s",
        "fwd busy s",
        "forwards",
        "GFLOP/s",
        "% peak",
    ]
    rows = [a.cells(peak), b.cells(peak)]
    ratio = ["b/a"]
    for i in range(1, len(header)):
        x, y = _num(rows[0][i]), _num(rows[1][i])
        ratio.append(f"{y / x:.2f}" if x else "-")
    rows.append(ratio)
    for line in text_table(header, rows, right=range(1, len(header))):
        print("   " + line)


def _num(cell: str) -> float:
    return float(cell.rstrip("%"))


# ---------------------------------------------------------------------------- main


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument(
        "--models",
        default="bundled,gpt2-small",
        help="comma-separated: bundled, gpt2-small, or checkpoint folders",
    )
    p.add_argument("--scale", type=int, default=1, help="workload size: the number of maps")
    p.add_argument("--participants", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--games", default=DEFAULT_GAMES, help="comma-separated bundled game files")
    p.add_argument("--story-words", type=int, default=45, help="words per map story")
    p.add_argument("--threads", type=int, default=2, help="torch intra-op threads")
    p.add_argument("--device", default="cpu", help="cpu or cuda[:i] (cuda path untested)")
    p.add_argument("--max-batch-tokens", type=int, default=8192)
    p.add_argument("--max-wait-ms", type=float, default=5.0)
    p.add_argument("--stream", choices=("tournament", "distinct"), default="tournament")
    p.add_argument("--requests", type=int, default=512, help="distinct stream: requests")
    p.add_argument("--concurrency", type=int, default=256, help="distinct stream: in flight")
    p.add_argument(
        "--repeats", type=int, default=1, help="distinct stream: (b), (a) pairs on fresh requests"
    )
    p.add_argument(
        "--dtype",
        default="float32",
        help="distinct stream: (b)'s dtype, e.g. bfloat16 ((a) stays float32; bits gap shown)",
    )
    p.add_argument(
        "--lanes",
        type=int,
        default=None,
        help="(b) on a CPU: passes at once (default one per thread; 1: one pass, all threads)",
    )
    return p.parse_args()


async def main() -> None:
    args = parse_args()
    torch.set_num_threads(args.threads)
    maps = max(1, args.scale)
    games = load_games([g.strip() for g in args.games.split(",") if g.strip()])
    plan = build_plan(games, maps, max(1, args.participants), args.story_words)
    print(
        f"judge_bench: {len(games)} games x {maps} maps x {args.participants} participants = "
        f"{len(plan)} concurrent matches of {args.rounds} rounds; games: "
        + ", ".join(g.name for g in games)
    )
    speedups = {}
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        speedups[name] = await bench_model(name, args, plan)
    print(
        "\nspeedup (b/a wall-clock throughput) per model: "
        + ", ".join(f"{k} {v:.2f}x" for k, v in speedups.items())
        + "; last line: the min"
    )
    print(f"speedup={min(speedups.values()):.2f}")


if __name__ == "__main__":
    asyncio.run(main())
