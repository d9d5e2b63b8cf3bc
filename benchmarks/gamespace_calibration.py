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
import json
import math
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


def previous_interval(
    sb: list[float], sa: list[list[float]], tb: list[float], ta: list[list[float]], seed: int,
) -> tuple[float, float] | None:
    """V's interval as it was computed before issue 36, kept here only to show the two side
    by side: a percentile bootstrap drawing runs, then maps anew for each drawn run (as if
    runs had maps of their own), 2000 resamples; None where it called V undefined."""
    import numpy as np

    b1, a1, b2, a2 = (np.asarray(x, dtype=float) for x in (sb, sa, tb, ta))
    rng = np.random.default_rng(seed)
    runs, maps = a1.shape
    run_idx = rng.integers(0, runs, size=(2000, runs))
    map_idx = rng.integers(0, maps, size=(2000, runs, maps))
    source = (a1 - b1)[run_idx[:, :, None], map_idx].mean(axis=(1, 2))
    target = (a2 - b2)[run_idx[:, :, None], map_idx].mean(axis=(1, 2))
    if np.percentile(source, 2.5) <= 0.0:
        return None
    defined = source != 0.0
    low, high = np.percentile(target[defined] / source[defined], [2.5, 97.5])
    return float(low), float(high)


async def measure_seed(
    seed: int, args: argparse.Namespace, registry: Registry, model: Path, folder: Path,
) -> dict[str, Any]:
    """One seed of the transfer part: a whole setting (R runs x K maps, its own evaluation
    maps and run seeds), a fresh oracle; what the summary needs, JSON-ready."""
    import itertools

    from arena.gamespace.transfer.arithmetic import runs_gain
    from arena.gamespace.transfer.measure import TransferSetting, open_oracle
    from arena.match_setup import load_game_text

    plain, renamed, fixed = tg.games()
    noop = load_game_text(tg.NOOP, "noop.xgl")
    family = [plain, *tg.unrecognised()]  # one game, five texts
    setting = TransferSetting(
        tg.player_spec(model), args.finetuner, args.budget, maps=args.maps, seed=seed,
        judge="ngram", runs=args.runs,
    )
    started = time.perf_counter()
    async with open_oracle(setting, store=None, registry=registry, models_dir=folder) as oracle:
        verdicts = {g.name: await oracle.verdict(g) for g in [*family, fixed]}
        recognised = {
            g.name: await oracle.transfer_record(plain, g) for g in (renamed, noop, fixed)
        }
        runs = [await oracle.run_verdict(plain, r) for r in range(args.runs)]
        pairs = []
        for source, target in itertools.permutations(family, 2):
            record = await oracle.transfer_record(source, target)
            paired = await oracle.paired_scores(source, target)
            gains = [
                statistics.fmean(a - b for row in after for a, b in zip(row, before, strict=True))
                for before, after in ((paired.source_before, paired.source_after),
                                      (paired.target_before, paired.target_after))
            ]
            pairs.append({
                "source": source.name, "target": target.name, "value": record.value,
                "low": record.low, "high": record.high, "reason": record.reason,
                "source_gain": gains[0], "target_gain": gains[1],
                "previous": previous_interval(paired.source_before, paired.source_after,
                                              paired.target_before, paired.target_after, seed),
            })
        agreeing = oracle.agreement[tg.game_sha(plain)][0]
        tuned = oracle.runs_tuned
    prefix = [
        runs_gain(runs[0].scores_before, [x.scores_after for x in runs[:r]]).playable
        for r in range(1, args.runs + 1)
    ]
    return {
        "seed": seed, "wall_s": round(time.perf_counter() - started, 1), "runs_tuned": tuned,
        "setting": {"runs": args.runs, "maps": args.maps, "finetuner": args.finetuner,
                    "budget": args.budget},
        "verdicts": {k: {"playable": v.playable, "gain": v.score_after - v.score_before,
                         "low": v.gain_low, "high": v.gain_high} for k, v in verdicts.items()},
        "recognised": {k: [v.value, v.low, v.high] for k, v in recognised.items()},
        "runs_ok": sum(r.gain_low > 0 for r in runs), "runs_agreeing": agreeing,
        "playable_with_first_r": prefix, "pairs": pairs,
    }


def contains(low: float | None, high: float | None, value: float) -> bool:
    return low is not None and high is not None and low <= value <= high


def show_v(pair: dict[str, Any]) -> str:
    if pair["value"] is None:
        return "undefined"
    return f"{pair['value']:.2f} [{pair['low']:.2f}, {pair['high']:.2f}]"


def rate_row(label: str, hits: int, n: int, note: str = "") -> str:
    low, high = wilson(hits, n)
    rate = hits / n if n else float("nan")
    return f"{label:<58} {hits:>4}/{n:<4} {rate:>5.2f} [{low:.2f}, {high:.2f}]  {note}"


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    """The calibration table over every measured seed (rows: one per seed)."""
    n = len(rows)
    names = [name for name in ("plain", *tg.UNRECOGNISED)]
    copies = list(tg.UNRECOGNISED)
    out: dict[str, float] = {"seeds": n}
    print(f"\n{n} seeds, each R x K = {rows[0]['setting']['runs']} x "
          f"{rows[0]['setting']['maps']} at the tests' fine-tuner and budget; rate, "
          "Wilson 95 %")
    # 1. by construction: one evaluation form, the same runs
    print("\nBY CONSTRUCTION (the canonical form recognises the copy: it reuses plain's runs)")
    for name in ("renamed", "noop"):
        hits = sum(contains(r["recognised"][name][1], r["recognised"][name][2], 1.0)
                   for r in rows)
        exact = sum(r["recognised"][name] == [1.0, 1.0, 1.0] for r in rows)
        print(rate_row(f"{name} copy: V contains 1", hits, n, f"(V = 1 [1, 1]: {exact})"))
        out[f"bycon_{name}_contains_1"] = round(hits / n, 3)
    # 2. measured: unrecognised copies, tuned and scored apart
    every = [(r, p) for r in rows for p in r["pairs"]]
    pooled: dict[tuple[str, str], float] = {}
    for source in names:
        for target in names:
            if source != target:
                chosen = [p for _, p in every if (p["source"], p["target"]) == (source, target)]
                pooled[(source, target)] = (
                    sum(p["target_gain"] for p in chosen) / sum(p["source_gain"] for p in chosen)
                )
    print("\nMEASURED (copies the canonical form does not recognise; each tuned and scored "
          "apart)")
    print("pooled V: the ratio of the mean gains over all seeds' runs and maps (what one "
          "seed's V estimates)")
    print(f"{'pair':<24} {'pooled V':>8}  {'contains 1':>16} {'contains pooled':>16} "
          f"{'previous: contains 1':>21} {'undefined':>9}")
    plain_pairs = [(s, t) for c in copies for s, t in (("plain", c), (c, "plain"))]
    for source, target in [*plain_pairs, ("dead", "reordered"), ("reordered", "dead")]:
        chosen = [p for _, p in every if (p["source"], p["target"]) == (source, target)]
        defined = [p for p in chosen if p["value"] is not None]
        one = sum(contains(p["low"], p["high"], 1.0) for p in defined)
        truth = sum(contains(p["low"], p["high"], pooled[(source, target)]) for p in defined)
        before = [p["previous"] for p in chosen if p["previous"] is not None]
        old = sum(contains(b[0], b[1], 1.0) for b in before)
        print(f"V_{source}({target})".ljust(24) + f" {pooled[(source, target)]:>8.2f}  "
              f"{one:>3}/{len(defined):<3} {one / max(len(defined), 1):>5.2f}     "
              f"{truth:>3}/{len(defined):<3} {truth / max(len(defined), 1):>5.2f}     "
              f"{old:>3}/{len(before):<3} {old / max(len(before), 1):>5.2f}      "
              f"{len(chosen) - len(defined):>5}")
    for label, which in (("copy vs plain, both directions", set(plain_pairs)),
                         ("every ordered pair of the five texts", set(pooled))):
        chosen = [p for _, p in every if (p["source"], p["target"]) in which]
        defined = [p for p in chosen if p["value"] is not None]
        one = sum(contains(p["low"], p["high"], 1.0) for p in defined)
        truth = sum(contains(p["low"], p["high"], pooled[(p["source"], p["target"])])
                    for p in defined)
        before = [p["previous"] for p in chosen if p["previous"] is not None]
        old = sum(contains(b[0], b[1], 1.0) for b in before)
        print(rate_row(f"{label}: V contains 1", one, len(defined), "(target >= 0.90)"))
        print(rate_row(f"{label}: V contains the pooled V", truth, len(defined),
                       "(calibration: 0.95)"))
        print(rate_row(f"{label}: previous interval contains 1", old, len(before)))
        print(rate_row(f"{label}: V defined", len(defined), len(chosen)))
        key = "plain" if "plain" in label else "all"
        out[f"measured_{key}_contains_1"] = round(one / max(len(defined), 1), 3)
        out[f"measured_{key}_contains_pooled"] = round(truth / max(len(defined), 1), 3)
        out[f"previous_{key}_contains_1"] = round(old / max(len(before), 1), 3)
    print("(pairs of one seed share their scores: the pooled rows' Wilson intervals, which "
          "count pairs as independent, are too narrow; the per-pair rows count seeds)")
    agree = {c: sum(r["verdicts"][c]["playable"] == r["verdicts"]["plain"]["playable"]
                    for r in rows) for c in copies}
    for c in copies:
        print(rate_row(f"verdicts of plain and {c} agree", agree[c], n))
    out["verdicts_agree"] = round(sum(agree.values()) / (n * len(copies)), 3)
    # 3. the other cases
    print("\nOTHER CASES")
    playable = {name: sum(r["verdicts"][name]["playable"] for r in rows)
                for name in names}
    for name in names:
        print(rate_row(f"learnable game judged playable: {name}", playable[name], n,
                       "(target >= 0.90)"))
    fixed = sum((not r["verdicts"]["fixed"]["playable"])
                and r["recognised"]["fixed"][0] is None for r in rows)
    print(rate_row("score no move changes: not playable, V undefined", fixed, n,
                   "(target >= 0.95)"))
    runs = rows[0]["setting"]["runs"]
    ok = sum(r["runs_ok"] for r in rows)
    print(rate_row("single runs on plain that improved it (own interval > 0)", ok, n * runs))
    print("plain judged playable with the first r runs: " + ", ".join(
        f"r={k + 1}: {sum(r['playable_with_first_r'][k] for r in rows)}/{n}"
        for k in range(runs)))
    out["learnable_plain"] = round(playable["plain"] / n, 3)
    out["fixed"] = round(fixed / n, 3)
    minutes = sum(r["wall_s"] for r in rows) / 60
    print(f"\nCOST: {minutes:.0f} min of wall time for {n} seeds ({minutes / n:.1f} min a seed: "
          f"{sum(r['runs_tuned'] for r in rows) / n:.0f} fine-tuning runs and every "
          "evaluation), one process at nice 19 on this shared 2-core machine")
    out["minutes_per_seed"] = round(minutes / n, 2)
    return out


async def part_transfer(args: argparse.Namespace) -> dict[str, float]:
    """The calibration cases over --seeds settings (seed s: evaluation maps and fine-tuning
    runs), each R runs x K maps, the tests' tiny model and games, a fresh oracle per seed.

    By construction: a renamed copy (other name, comment, register) and a no-op copy have
    plain's evaluation form, reuse its runs, and get V = 1 [1, 1]. Measured: plain and its
    four unrecognised copies (`tests.gamespace.transfer_games.UNRECOGNISED`) are each tuned
    R times and V is measured for every ordered pair, beside the interval used before issue
    36 (same scores). Also: a game whose score no move can change, and verdicts.

    Resumable: with --results FILE, each seed's row is appended to FILE (JSON lines) when it
    is done, seeds already there are skipped, and the table covers every row in FILE."""
    registry = Registry.load()
    first, n = args.first_seed, args.seeds
    results = Path(args.results) if args.results else None
    rows: list[dict[str, Any]] = []
    if results is not None and results.is_file():
        rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    done = {int(r["seed"]) for r in rows}
    print(f"finetuner {args.finetuner}  budget {args.budget} tokens  runs {args.runs}  "
          f"maps {args.maps}  seeds {first}..{first + n - 1}  ({len(done)} already in "
          f"{results})")
    print(f"{'seed':>4} {'min':>5} {'plain':>6} {'V_plain(register)':>20} "
          f"{'V_register(plain)':>20} {'V_plain(expr)':>20}  copies playable")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        model = tg.save_long_context_model(folder / "tiny")
        for seed in range(first, first + n):
            if seed in done:
                continue
            row = await measure_seed(seed, args, registry, model, folder / f"m{seed}")
            shutil.rmtree(folder / f"m{seed}", ignore_errors=True)
            rows.append(row)
            if results is not None:
                with results.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(row) + "\n")
            pick = {(p["source"], p["target"]): p for p in row["pairs"]}
            verdicts = row["verdicts"]
            print(f"{seed:>4} {row['wall_s'] / 60:>5.1f} "
                  f"{'yes' if verdicts['plain']['playable'] else 'NO':>6} "
                  f"{show_v(pick[('plain', 'register')]):>20} "
                  f"{show_v(pick[('register', 'plain')]):>20} "
                  f"{show_v(pick[('plain', 'expr')]):>20}  " + " ".join(
                      f"{c}:{'y' if verdicts[c]['playable'] else 'n'}"
                      for c in tg.UNRECOGNISED), flush=True)
    return summarise(rows) if rows else {"seeds": 0}


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
    parser.add_argument("--results", default=None,
                        help="transfer: a JSON-lines file; seeds in it are skipped, new "
                        "ones appended, and the table covers every row in it (resumable)")
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
