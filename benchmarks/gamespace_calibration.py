"""Game-space calibration benchmark (issue 19; not a test): do the numbers mean something?

Parts (``--part``, several allowed):

- ``steps``: the fine-tuning gain S_G(F_G[M]) - S_G(M) against the optimiser steps bought,
  R seeds per step count, on --game (default: the tests' PLAIN game with the tests' tiny
  long-context GPT-2, or ``--player hf:bundled --game single_text``). Shows whether the gain
  grows with steps and where MIN_STEPS sits.
- ``transfer``: the calibration cases over --seeds seeds, each a whole setting (R runs x K
  maps, two-level bootstrap): a renamed copy and a no-op copy of a learnable game have V's
  interval containing 1; a game whose score no move can change is not playable (V
  undefined); a learnable game is judged playable. Rates with Wilson 95 % intervals.
- ``filter``: the few-shot playability filter's pass rates for a non-learning and a
  learning base participant (see arena.gamespace.sampling.fewshot).

The last line is ``name=value`` pairs (the rates, and the number of seeds).

Run: PYTHONPATH=. nice -n 10 python benchmarks/gamespace_calibration.py --part steps
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arena.gamespace.transfer.evaluate import game_scores
from arena.gamespace.transfer.finetune import MIN_STEPS
from arena.match_setup import LoadedGame, load_entry
from arena.plugins.registry import Registry
from arena.protocols.finetune import FineTuneRequest
from tests.gamespace import transfer_games as tg


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial rate (what the table reports)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def setup(args: argparse.Namespace, folder: Path, registry: Registry) -> tuple[str, LoadedGame]:
    if args.player == "tiny":
        model = tg.save_long_context_model(folder / "tiny")
        player = tg.player_spec(model)
    else:
        player = args.player
    game = tg.games()[0] if args.game == "plain" else load_entry(registry.game(args.game))
    return player, game


async def part_steps(args: argparse.Namespace) -> dict[str, float]:
    from arena.judges.ngram import NgramJudge

    registry = Registry.load()
    judge = NgramJudge() if args.judge == "ngram" else registry.create_judge(args.judge)
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        player, game = setup(args, folder, registry)
        before = await game_scores(player, game, judge=judge, registry=registry,
                                   maps=args.maps, seed=0)
        print(f"game {game.name}  player {player}  finetuner {args.finetuner}  "
              f"maps {args.maps}  S_G(M) {statistics.fmean(before):.3f}")
        print(f"{'steps':>5} {'tokens':>8} {'wall_s':>7} {'mean gain':>10}  per-seed gains")
        tuner = registry.create_finetuner(args.finetuner)
        for steps in args.steps:
            gains, tokens, started = [], 0, time.perf_counter()
            for seed in range(args.runs):
                result = await tuner.finetune(FineTuneRequest(
                    player, game.view, judge, 10**12, seed, folder / f"s{steps}-{seed}",
                    max_steps=steps,
                ))
                after = await game_scores(result.player, game, judge=judge, registry=registry,
                                          maps=args.maps, seed=0)
                gains.append(statistics.fmean(a - b for a, b in zip(after, before, strict=True)))
                tokens += result.tokens
            mean = statistics.fmean(gains)
            print(f"{steps:>5} {tokens // args.runs:>8} "
                  f"{(time.perf_counter() - started) / args.runs:>7.1f} {mean:>+10.3f}  "
                  + " ".join(f"{g:+.2f}" for g in gains), flush=True)
            out[f"gain_at_{steps}_steps"] = round(mean, 3)
    out["min_steps"] = MIN_STEPS
    return out


async def part_transfer(args: argparse.Namespace) -> dict[str, float]:
    """The calibration cases over --seeds settings (seed s: evaluation maps, runs and
    bootstrap), each R runs x K maps, the tests' tiny model and games (a fresh oracle and
    store per seed, tuned models kept in a temporary folder)."""
    from arena.gamespace.transfer.measure import TransferSetting, open_oracle
    from arena.match_setup import load_game_text

    counts = {"renamed": 0, "noop": 0, "fixed": 0, "learnable": 0}
    agree = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        model = tg.save_long_context_model(folder / "tiny")
        plain, renamed, fixed = tg.games()
        noop = load_game_text(tg.NOOP, "noop.xgl")
        print(f"{'seed':>4} {'V(renamed)':>24} {'V(noop)':>24} {'fixed':>10} {'plain':>16}")
        for seed in range(args.seeds):
            setting = TransferSetting(
                tg.player_spec(model), args.finetuner, tg.BUDGET, maps=args.maps, seed=seed,
                judge="ngram", runs=args.runs,
            )
            async with open_oracle(setting, store=None, models_dir=folder / "m") as oracle:
                learn = await oracle.verdict(plain)
                stuck = await oracle.verdict(fixed)
                v_renamed = await oracle.transfer_record(plain, renamed)
                v_noop = await oracle.transfer_record(plain, noop)
                v_fixed = await oracle.transfer_record(plain, fixed)
                agree += oracle.agreement[tg.game_sha(plain)][0] == args.runs

            def contains_one(r: object) -> bool:
                low, high = getattr(r, "low", None), getattr(r, "high", None)
                return low is not None and high is not None and low <= 1.0 <= high

            def show(r: object) -> str:
                v, low, high = (getattr(r, k) for k in ("value", "low", "high"))
                return "undefined" if v is None else f"{v:.2f} [{low:.2f}, {high:.2f}]"

            counts["renamed"] += contains_one(v_renamed)
            counts["noop"] += contains_one(v_noop)
            counts["fixed"] += (not stuck.playable) and v_fixed.value is None
            counts["learnable"] += learn.playable
            print(f"{seed:>4} {show(v_renamed):>24} {show(v_noop):>24} "
                  f"{'unplayable' if not stuck.playable else 'PLAYABLE':>10} "
                  f"{'playable' if learn.playable else 'NOT playable':>16}", flush=True)
    n = args.seeds
    print(f"\n{'case':<44} {'rate':>6} {'95% Wilson':>14}  target")
    targets = {"renamed": ("renamed copy: V interval contains 1", 0.9),
               "noop": ("no-op copy: V interval contains 1", 0.9),
               "fixed": ("score no move changes: not playable, V undef.", 0.95),
               "learnable": ("learnable game judged playable", 0.9)}
    out: dict[str, float] = {}
    for key, (label, target) in targets.items():
        low, high = wilson(counts[key], n)
        print(f"{label:<44} {counts[key] / n:>6.2f} [{low:.2f}, {high:.2f}]  >= {target}")
        out[f"rate_{key}"] = round(counts[key] / n, 3)
    out["runs_all_agree_on_plain"] = agree
    out["seeds"] = n
    return out


async def part_filter(args: argparse.Namespace) -> dict[str, float]:
    """Pass rates of the trend filter (and of the old arms rule) for a non-learning base
    (`random`) and a learning one (`search`), one trial per seed (maps seed*N..)."""
    from arena.analysis.playability import run_playability
    from arena.gamespace.sampling import fewshot
    from arena.judges.ngram import NgramJudge

    registry = Registry.load()
    judge = NgramJudge() if args.judge == "ngram" else registry.create_judge(args.judge)
    game = tg.games()[0] if args.game == "plain" else load_entry(registry.game(args.game))
    print(f"game {game.name}  N={fewshot.MAPS} maps  m={fewshot.ROUNDS} rounds  "
          f"eps={fewshot.EPSILON}  trials={args.seeds}")
    print(f"{'base':>8} {'trend passes':>13} {'rate [95% Wilson]':>22} {'arms passes':>12}")
    out: dict[str, float] = {}
    for base in ("random", "search"):
        trend = arms = 0
        for trial in range(args.seeds):
            report = await run_playability(
                game, judge, registry, participant=base, maps=fewshot.MAPS,
                rounds=fewshot.ROUNDS, seed=1000 * trial,
            )
            trend += fewshot.trend_test(report.per_map, seed=trial).passed
            arms += report.playable
        low, high = wilson(trend, args.seeds)
        print(f"{base:>8} {trend:>6}/{args.seeds:<6} {trend / args.seeds:>8.2f} "
              f"[{low:.2f}, {high:.2f}] {arms:>6}/{args.seeds}", flush=True)
        out[f"filter_pass_{base}"] = round(trend / args.seeds, 3)
        out[f"arms_pass_{base}"] = round(arms / args.seeds, 3)
    out["filter_trials"] = args.seeds
    return out


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", action="append", choices=("steps", "transfer", "filter"))
    parser.add_argument("--player", default="tiny", help="tiny (the tests' model) or a spec")
    parser.add_argument("--game", default="plain", help="plain (the tests' game) or a name")
    parser.add_argument("--judge", default="ngram")
    parser.add_argument("--finetuner", default=tg.FINETUNER)
    parser.add_argument("--maps", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args(argv)
    results: dict[str, float] = {}
    for part in args.part or ["steps"]:
        if part == "steps":
            results.update(await part_steps(args))
        elif part == "transfer":
            results.update(await part_transfer(args))
        elif part == "filter":
            results.update(await part_filter(args))
    print(" ".join(f"{k}={v}" for k, v in results.items()))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
