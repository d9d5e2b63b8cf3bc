"""Is the bundled judge meaningful? xed of related vs random prefixes on held-out stories.

For N held-out stories of the procedural corpus (a seed training never used), compares
xed(story | 5 words of its theme absent from it) with xed(story | 5 random corpus words
absent from it), dialect `xgl`, through `create_bundled_judge` (what users get). Then a
greedy search over a fixed candidate vocabulary looks for the prefix of up to 8 words that
makes a few stories most predictable (its xed should be positive).

    python benchmarks/bundled_judge_check.py [--n 100] [--model PATH]

Last line: `margin_bits=<mean related - mean random> best_prefix_xed=<mean best xed>`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

import torch

from arena.judges.hf.bundled_judge import create_bundled_judge
from arena.judges.hf.training.corpus import general_vocabulary, heldout_stories
from arena.judges.hf.training.meaning import greedy_prefix, related_vs_random
from arena.protocols.judge import Judge


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--n", type=int, default=100, help="held-out stories for the comparison")
    p.add_argument("--search-stories", type=int, default=3)
    p.add_argument("--candidates", type=int, default=200, help="search vocabulary size")
    p.add_argument("--max-words", type=int, default=8)
    p.add_argument("--budget", type=int, default=1200, help="judge scores per searched story")
    p.add_argument("--model", default="", help="another checkpoint folder (default: bundled)")
    p.add_argument("--threads", type=int, default=2)
    return p.parse_args()


def make_judge(model: str) -> Judge:
    if not model:
        return create_bundled_judge({})
    from arena.judges.hf.judge import HFJudge

    return HFJudge.from_pretrained(model)


async def run(args: argparse.Namespace) -> None:
    judge = make_judge(args.model)
    start = time.perf_counter()
    stories = heldout_stories(args.n)
    trials = await related_vs_random(judge, stories, seed=1)
    rel = [t.xed_related for t in trials]
    rnd = [t.xed_random for t in trials]
    diffs = [a - b for a, b in zip(rel, rnd, strict=True)]
    margin = statistics.fmean(diffs)
    sem = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
    print(f"judge: {judge.info.name} ({judge.info.model}), {len(trials)} held-out stories")
    print(f"{'measure':<38}{'value':>10}")
    print(f"{'mean xed(story | 5 related) bits':<38}{statistics.fmean(rel):>10.2f}")
    print(f"{'mean xed(story | 5 random) bits':<38}{statistics.fmean(rnd):>10.2f}")
    print(f"{'margin (related - random) bits':<38}{margin:>10.2f}")
    print(f"{'  standard error of the margin':<38}{sem:>10.2f}")
    print(f"{'fraction related > random':<38}{sum(d > 0 for d in diffs) / len(diffs):>10.2f}")
    print(f"{'fraction xed(related) > 0':<38}{sum(r > 0 for r in rel) / len(rel):>10.2f}")
    t = trials[0]
    print(
        f"example: related {' '.join(t.related)!r} -> {t.xed_related:.2f} bits, "
        f"random {' '.join(t.random_words)!r} -> {t.xed_random:.2f} bits"
    )

    vocab = general_vocabulary()
    candidates = sorted(random.Random(7).sample(vocab, min(args.candidates, len(vocab))))
    print(
        f"\ngreedy prefix search: {len(candidates)} candidate words, up to {args.max_words}"
        f" words, at most {args.budget} scores per story"
    )
    best_values = []
    for story in stories[: args.search_stories]:
        words, best, used = await greedy_prefix(
            judge, story, candidates, max_words=args.max_words, budget=args.budget
        )
        best_values.append(best)
        print(
            f"  [{story.theme.name:<8}] xed {best:6.2f} bits with {' '.join(words)!r}"
            f" ({used} scores)"
        )
    best_mean = statistics.fmean(best_values) if best_values else 0.0
    print(f"\nwall time {time.perf_counter() - start:.1f}s")
    await judge.aclose()
    print(f"margin_bits={margin:.2f} best_prefix_xed={best_mean:.2f}")


def main() -> None:
    args = parse_args()
    torch.set_num_threads(args.threads)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
