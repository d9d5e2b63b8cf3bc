"""Game-space calibration benchmark (issue 19; not a test): do the numbers mean something?

Parts (``--part``, several allowed):

- ``steps``: the fine-tuning gain S_G(F_G[M]) - S_G(M) against the optimiser steps bought,
  R seeds per step count, on --game (default: the tests' PLAIN game with the tests' tiny
  long-context GPT-2, or ``--player hf:bundled --game single_text``). Shows whether the gain
  grows with steps and where MIN_STEPS sits.
- ``transfer``: the calibration cases over --seeds seeds, each a whole setting (R runs x K
  maps, two-level bootstrap): a renamed copy and a no-op copy of a learnable game have V's
  interval containing 1 (both have the game's evaluation form, so with common random
  numbers V is 1 exactly, and the table also counts the seeds where it was [1, 1]); a game
  whose score no move can change is not playable (V undefined); a learnable game is judged
  playable (and, per seed, with the first r of the R runs). Fine-tuner and budget: the
  tests' (tests/gamespace/transfer_games.py).
- ``filter``: the few-shot playability filter's pass rates for a non-learning (`random`)
  and a learning (`search`) base participant on --filter-games, at the filter's defaults
  (see arena.gamespace.sampling.fewshot); the non-learner plays --random-factor times more
  trials (it is cheap, and a rate near 0 needs many trials to bound).

Power: each rate comes with its Wilson 95 % interval and says whether the interval shows
the target (its low end at or above it; for the non-learner's filter rate, its high end at
or below 5 %). n/n successes show a >= 0.90 target from n = 35 seeds, >= 0.95 from n = 73.

The last line is ``name=value`` pairs (the rates, and the number of seeds).

Run: PYTHONPATH=. nice -n 10 python benchmarks/gamespace_calibration.py --part transfer --seeds 36 --runs 2
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.gamespace.transfer.evaluate import game_scores
from arena.gamespace.transfer.finetune import MIN_STEPS
from arena.gamespace.transfer.measure import DEFAULT_RUNS
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
        print(f"{'steps':>5} {'tokens':>8} {'wall_s':>7} {'mean gain':>10} {'worse':>5}  "
              "per-seed gains (worse: runs below the base model)")
        tuner = registry.create_finetuner(args.finetuner)
        for steps in args.steps:
            gains, tokens, started = [], 0, time.perf_counter()
            for seed in range(args.first_seed, args.first_seed + args.runs):
                result = await tuner.finetune(FineTuneRequest(
                    player, game.view, judge, 10**12, seed, folder / f"s{steps}-{seed}",
                    max_steps=steps,
                ))
                after = await game_scores(result.player, game, judge=judge, registry=registry,
                                          maps=args.maps, seed=0)
                gains.append(statistics.fmean(a - b for a, b in zip(after, before, strict=True)))
                tokens += result.tokens
            mean = statistics.fmean(gains)
            worse = sum(g < 0 for g in gains)
            print(f"{steps:>5} {tokens // args.runs:>8} "
                  f"{(time.perf_counter() - started) / args.runs:>7.1f} {mean:>+10.3f} "
                  f"{worse:>5}  " + " ".join(f"{g:+.2f}" for g in gains), flush=True)
            out[f"gain_at_{steps}_steps"] = round(mean, 3)
            out[f"runs_worse_at_{steps}_steps"] = worse
    out["min_steps"] = MIN_STEPS
    return out


@dataclass
class Case:
    """One calibration case: its label, target rate and the seeds that met it."""

    label: str
    target: float
    hits: int = 0

    def row(self, n: int) -> tuple[str, float, float, float, str]:
        """label, rate, Wilson low/high, and what the interval shows at this n."""
        low, high = wilson(self.hits, n)
        if low >= self.target:
            shown = "shown (low >= target)"
        elif high < self.target:
            shown = "MISSED (high < target)"
        else:
            shown = f"not shown at n={n}"
        return self.label, self.hits / n, low, high, shown


def print_cases(cases: dict[str, Case], n: int) -> None:
    print(f"\n{'case':<48} {'rate':>6} {'95% Wilson':>14}  {'target':>7}  power")
    for case in cases.values():
        label, rate, low, high, shown = case.row(n)
        print(f"{label:<48} {rate:>6.2f} [{low:.2f}, {high:.2f}]  >= {case.target:<4} {shown}")


async def part_transfer(args: argparse.Namespace) -> dict[str, float]:
    """The calibration cases over --seeds settings (seed s: evaluation maps, runs and
    bootstrap), each R runs x K maps, the tests' tiny model and games (a fresh oracle and
    store per seed, tuned models kept in a temporary folder). The copies are a renamed copy
    (other name, other comment, register t renamed x) and a copy with a no-op instruction;
    both have plain's evaluation form, so their V is 1 exactly when the pairing holds."""
    from arena.gamespace.transfer.arithmetic import runs_gain
    from arena.gamespace.transfer.measure import TransferSetting, open_oracle
    from arena.match_setup import load_game_text

    cases = {
        "renamed": Case("renamed copy: V interval contains 1", 0.9),
        "noop": Case("no-op copy: V interval contains 1", 0.9),
        "fixed": Case("score no move changes: not playable, V undef.", 0.95),
        "learnable": Case("learnable game judged playable", 0.9),
    }
    exact = agree = defined = 0
    registry = Registry.load()
    prefix = {r: 0 for r in range(1, args.runs + 1)}  # playable with the first r runs
    first, n = args.first_seed, args.seeds
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        model = tg.save_long_context_model(folder / "tiny")
        plain, renamed, fixed = tg.games()
        noop = load_game_text(tg.NOOP, "noop.xgl")
        print(f"finetuner {args.finetuner}  budget {args.budget} tokens  runs {args.runs}  "
              f"maps {args.maps}  seeds {first}..{first + n - 1}")
        print(f"{'seed':>4} {'V(renamed)':>20} {'V(noop)':>20} {'fixed':>10} {'plain':>12} "
              f"{'runs ok':>7}  playable with first r runs")
        for seed in range(first, first + n):
            setting = TransferSetting(
                tg.player_spec(model), args.finetuner, args.budget, maps=args.maps, seed=seed,
                judge="ngram", runs=args.runs,
            )
            async with open_oracle(
                setting, store=None, registry=registry, models_dir=folder / "m"
            ) as oracle:
                learn = await oracle.verdict(plain)
                stuck = await oracle.verdict(fixed)
                v_renamed = await oracle.transfer_record(plain, renamed)
                v_noop = await oracle.transfer_record(plain, noop)
                v_fixed = await oracle.transfer_record(plain, fixed)
                runs = [await oracle.run_verdict(plain, r) for r in range(args.runs)]
                agreeing = oracle.agreement[tg.game_sha(plain)][0]
            agree += agreeing == args.runs
            ok = sum(r.gain_low > 0 for r in runs)
            first_r = []
            for r in range(1, args.runs + 1):
                if r == 1:
                    passed = runs[0].playable
                else:
                    passed = runs_gain(runs[0].scores_before, [x.scores_after for x in runs[:r]],
                                       seed=seed).playable
                prefix[r] += passed
                first_r.append("y" if passed else "n")

            def contains_one(r: object) -> bool:
                low, high = getattr(r, "low", None), getattr(r, "high", None)
                return low is not None and high is not None and low <= 1.0 <= high

            def show(r: object) -> str:
                v, low, high = (getattr(r, k) for k in ("value", "low", "high"))
                return "undefined" if v is None else f"{v:.2f} [{low:.2f}, {high:.2f}]"

            cases["renamed"].hits += contains_one(v_renamed)
            cases["noop"].hits += contains_one(v_noop)
            exact += all((v.value, v.low, v.high) == (1.0, 1.0, 1.0) for v in (v_renamed, v_noop))
            defined += all(v.value is not None for v in (v_renamed, v_noop))
            cases["fixed"].hits += (not stuck.playable) and v_fixed.value is None
            cases["learnable"].hits += learn.playable
            print(f"{seed:>4} {show(v_renamed):>20} {show(v_noop):>20} "
                  f"{'unplayable' if not stuck.playable else 'PLAYABLE':>10} "
                  f"{'playable' if learn.playable else 'NOT playable':>12} "
                  f"{ok:>3}/{args.runs:<3}  {' '.join(first_r)}", flush=True)
    print_cases(cases, n)
    print(f"copies with V exactly 1, interval [1, 1]: {exact} of the {defined} seeds where V "
          f"is defined (pairing held); undefined in {n - defined} (plain judged not playable, "
          "Def. 37)")
    print("learnable game judged playable with the first r runs: " + ", ".join(
        f"r={r}: {k}/{n}" for r, k in prefix.items()))
    out: dict[str, float] = {f"rate_{k}": round(c.hits / n, 3) for k, c in cases.items()}
    out["copies_exactly_1"] = exact
    out["copies_defined"] = defined
    out["runs_all_agree_on_plain"] = agree
    out["seeds"] = n
    return out


async def part_filter(args: argparse.Namespace) -> dict[str, float]:
    """Pass rates of the trend filter (and of the old arms rule) for a non-learning base
    (`random`) and a learning one (`search`), one trial per seed (maps 1000*trial..), at
    the filter's defaults unless --epsilon/--filter-maps/--filter-rounds say otherwise."""
    from arena.analysis.playability import run_playability
    from arena.gamespace.sampling import fewshot
    from arena.judges.ngram import NgramJudge

    registry = Registry.load()
    judge = NgramJudge() if args.judge == "ngram" else registry.create_judge(args.judge)
    epsilon = args.epsilon if args.epsilon is not None else fewshot.EPSILON
    maps, rounds = args.filter_maps or fewshot.MAPS, args.filter_rounds or fewshot.ROUNDS
    out: dict[str, float] = {}
    for name in args.filter_games:
        game = tg.games()[0] if name == "plain" else load_entry(registry.game(name))
        print(f"game {game.name}  N={maps} maps  m={rounds} rounds  eps={epsilon}")
        print(f"{'base':>8} {'trials':>6} {'trend passes':>12} {'rate [95% Wilson]':>20} "
              f"{'arms passes':>11} {'s/trial':>7}")
        for base, trials in (("random", args.seeds * args.random_factor), ("search", args.seeds)):
            trend = arms = 0
            started = time.perf_counter()
            for trial in range(trials):
                report = await run_playability(
                    game, judge, registry, participant=base, maps=maps, rounds=rounds,
                    seed=1000 * trial,
                )
                trend += fewshot.trend_test(report.per_map, epsilon=epsilon, seed=trial).passed
                arms += report.playable
            low, high = wilson(trend, trials)
            print(f"{base:>8} {trials:>6} {trend:>12} {trend / trials:>8.3f} [{low:.3f}, "
                  f"{high:.3f}] {arms:>11} {(time.perf_counter() - started) / trials:>7.2f}",
                  flush=True)
            out[f"filter_pass_{name}_{base}"] = round(trend / trials, 3)
            out[f"filter_wilson_{'high' if base == 'random' else 'low'}_{name}_{base}"] = round(
                high if base == "random" else low, 3)
    out["filter_epsilon"] = epsilon
    return out


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", action="append", choices=("steps", "transfer", "filter"))
    parser.add_argument("--player", default="tiny", help="tiny (the tests' model) or a spec")
    parser.add_argument("--game", default="plain", help="plain (the tests' game) or a name")
    parser.add_argument("--judge", default="ngram")
    parser.add_argument("--finetuner", default=tg.FINETUNER)
    parser.add_argument("--maps", type=int, default=8)
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS)
    parser.add_argument("--budget", type=int, default=tg.BUDGET, help="transfer: tokens")
    parser.add_argument("--first-seed", type=int, default=0, help="transfer, steps: first seed")
    parser.add_argument("--epsilon", type=float, default=None, help="filter: eps")
    parser.add_argument("--filter-maps", type=int, default=None, help="filter: N")
    parser.add_argument("--filter-rounds", type=int, default=None, help="filter: m")
    parser.add_argument("--filter-games", nargs="+", default=["single_text"],
                        help="filter: games (plain: the tests' game)")
    parser.add_argument("--random-factor", type=int, default=5,
                        help="filter: the non-learner plays this many times --seeds trials")
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
