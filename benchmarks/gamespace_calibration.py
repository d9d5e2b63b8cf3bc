"""Game-space calibration benchmark (issue 19; not a test): do the numbers mean something?

Parts (``--part``, several allowed):

- ``steps``: the fine-tuning gain S_G(F_G[M]) - S_G(M) against the optimiser steps bought,
  R seeds per step count, on --game (default: the tests' PLAIN game with the tests' tiny
  long-context GPT-2, or ``--player hf:bundled --game single_text``). Shows whether the gain
  grows with steps and where MIN_STEPS sits.
- ``transfer``: the calibration cases over --seeds seeds, each a whole setting (R runs x K
  maps). By construction: a renamed copy and a no-op copy of a learnable game share its
  evaluation form and its runs, so V is 1 [1, 1]. Measured (issue 36): plain and four copies
  the canonical form does not recognise (`tests.gamespace.transfer_games.UNRECOGNISED`),
  each tuned and scored apart; V for every ordered pair, beside the interval used before
  issue 36 on the same scores, the pooled V that each seed estimates, and whether the
  verdicts of a game and its copy agree. Also: a game whose score no move can change is not
  playable (V undefined); a learnable game is judged playable. Resumable (--results FILE).
- ``pool``: a pool of real runs (--pool-runs per text, --pool-maps maps) and a resampling
  study on it: many draws of R runs x K maps, V's interval now and before issue 36 on the
  same scores, against 1 and against the pool's own V; and the verdicts' power.
- ``filter``: the few-shot playability filter's pass rates for a non-learning (`random`)
  and a learning (`search`) base participant on --filter-games, at the filter's defaults
  (see arena.gamespace.sampling.fewshot); the non-learner plays --random-factor times more
  trials (it is cheap, and a rate near 0 needs many trials to bound).

Power: each rate comes with its Wilson 95 % interval and says whether the interval shows
the target (its low end at or above it; for the non-learner's filter rate, its high end at
or below 5 %). n/n successes show a >= 0.90 target from n = 35 seeds, >= 0.95 from n = 73.

The last line is ``name=value`` pairs (the rates, and the number of seeds).

Run: PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 19 python benchmarks/gamespace_calibration.py
--part transfer --seeds 20 --results /tmp/calib-bench/transfer.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.gamespace.transfer.evaluate import game_scores
from arena.gamespace.transfer.finetune import MIN_STEPS
from arena.gamespace.transfer.measure import DEFAULT_MAPS, DEFAULT_RUNS
from arena.match_setup import LoadedGame, load_entry
from arena.plugins.registry import Registry
from arena.protocols.finetune import FineTuneRequest
from benchmarks._calibration_table import rate_row, show_v, summarise, wilson
from tests.gamespace import transfer_games as tg


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
        judge="ngram", runs=args.runs, view=args.view,
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
                    "budget": args.budget, "view": args.view},
        "verdicts": {k: {"playable": v.playable, "gain": v.score_after - v.score_before,
                         "low": v.gain_low, "high": v.gain_high} for k, v in verdicts.items()},
        "recognised": {k: [v.value, v.low, v.high] for k, v in recognised.items()},
        "runs_ok": sum(r.gain_low > 0 for r in runs), "runs_agreeing": agreeing,
        "playable_with_first_r": prefix, "pairs": pairs,
    }


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


POOL_EVAL_SEED = 99_000  # the pool's evaluation maps (apart from every transfer seed)
POOL_TUNE_SEED = 50_000  # pool run j is tuned with seed POOL_TUNE_SEED + j


async def build_pool(args: argparse.Namespace, folder: Path) -> None:
    """The pool of real runs behind `part_pool`: for plain and each unrecognised copy,
    --pool-runs fine-tuning runs, each tuned model (and M) scored at every one of the five
    texts on --pool-maps maps. One JSON file per (text, run) in `folder`; files already
    there are kept (resumable)."""
    from arena.gamespace.transfer.evaluate import evaluation_form
    from arena.judges.ngram import NgramJudge
    from arena.match_setup import load_game_text

    registry, judge = Registry.load(), NgramJudge()
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / "tiny"
    if not (model / "config.json").is_file():
        tg.save_long_context_model(model)
    player = tg.player_spec(model)
    games = {"plain": load_game_text(tg.PLAIN, "plain.xgl")}
    games.update({g.name: g for g in tg.unrecognised()})
    maps = args.pool_maps
    show_code = args.view == "code"
    base = folder / "base.json"
    if not base.is_file():
        base.write_text(json.dumps({
            name: await game_scores(player, g, judge=judge, registry=registry, maps=maps,
                                    seed=POOL_EVAL_SEED, show_code=show_code)
            for name, g in games.items()
        }))
    tuner = registry.create_finetuner(args.finetuner)
    for j in range(args.pool_runs):
        for name, game in games.items():
            out = folder / f"{name}-{j}.json"
            if out.is_file():
                continue
            started = time.perf_counter()
            result = await tuner.finetune(FineTuneRequest(
                player, evaluation_form(game).view, judge, args.budget, POOL_TUNE_SEED + j,
                folder / "m" / f"{name}-{j}", show_code=show_code,
            ))
            scores = {
                other: await game_scores(result.player, g, judge=judge, registry=registry,
                                         maps=maps, seed=POOL_EVAL_SEED, show_code=show_code)
                for other, g in games.items()
            }
            out.write_text(json.dumps({"steps": result.steps, "tokens": result.tokens,
                                       "scores": scores}))
            shutil.rmtree(folder / "m" / f"{name}-{j}", ignore_errors=True)
            print(f"pool {name}-{j}: {time.perf_counter() - started:.0f} s", flush=True)


async def part_pool(args: argparse.Namespace) -> dict[str, float]:
    """A resampling study on a pool of real runs (`build_pool`): --pool-trials times per
    ordered pair of the five texts, draw R runs of the source and K maps (with replacement:
    the pool is the population) and compute V's interval now and as it was before issue 36
    (`previous_interval`), on the same scores. "Pooled V" is the ratio of the mean gains
    over the whole pool: what a draw estimates. Cheap once the pool exists (no tuning), so
    many draws; but they share one pool of runs and maps, so this checks the interval's
    arithmetic on real score tables, and the transfer part (independent seeds) checks the
    rest."""
    import glob
    import itertools

    import numpy as np

    from arena.gamespace.transfer.arithmetic import runs_gain, runs_transfer_value

    folder = Path(args.pool_dir or f"/tmp/calib-pool-{args.view}")
    await build_pool(args, folder)
    base = {k: np.asarray(v) for k, v in json.loads((folder / "base.json").read_text()).items()}
    names = list(base)
    runs = {
        name: [json.loads(Path(f).read_text())["scores"]
               for f in sorted(glob.glob(str(folder / f"{name}-*.json")))][: args.pool_runs]
        for name in names
    }
    rng = np.random.default_rng(0)
    maps = len(base["plain"])
    print(f"pool: {min(len(r) for r in runs.values())} runs per text, {maps} maps; draws of "
          f"R = {args.runs} runs x K = {args.maps} maps, {args.pool_trials} per pair")
    print(f"{'pair':<22} {'pooled V':>8} {'now: contains 1':>16} {'contains pooled':>16} "
          f"{'before: contains 1':>19} {'contains pooled':>16} {'defined now':>11}")
    totals = {k: [0, 0] for k in ("now_1", "now_pooled", "before_1", "before_pooled")}
    plain_totals = {k: [0, 0] for k in totals}
    degenerate = []
    for source, target in itertools.permutations(names, 2):
        s_after = np.asarray([r[source] for r in runs[source]])
        t_after = np.asarray([r[target] for r in runs[source]])
        pooled = (t_after - base[target]).mean() / (s_after - base[source]).mean()
        counts = {k: [0, 0] for k in totals}
        defined = 0
        for trial in range(args.pool_trials):
            mi = rng.integers(0, maps, args.maps)
            ri = rng.integers(0, len(s_after), args.runs)
            table = (base[source][mi], s_after[ri][:, mi], base[target][mi], t_after[ri][:, mi])
            now = runs_transfer_value(*table).value
            if now is not None:
                defined += 1
                for key, value in (("now_1", 1.0), ("now_pooled", pooled)):
                    counts[key][0] += now.low <= value <= now.high
                    counts[key][1] += 1
            before = previous_interval(
                table[0].tolist(), table[1].tolist(), table[2].tolist(), table[3].tolist(),
                trial,
            )
            if before is not None:
                for key, value in (("before_1", 1.0), ("before_pooled", pooled)):
                    counts[key][0] += before[0] <= value <= before[1]
                    counts[key][1] += 1
        # dead and reordered have the same per-map scores but in one pool run on one map:
        # most draws give [1, 1] and miss a pooled V of 0.9997; left out of the totals
        if abs(pooled - 1.0) < 1e-3 and source != "plain" and target != "plain":
            degenerate.append(f"V_{source}({target})")
        else:
            for key in totals:
                totals[key][0] += counts[key][0]
                totals[key][1] += counts[key][1]
                if "plain" in (source, target):
                    plain_totals[key][0] += counts[key][0]
                    plain_totals[key][1] += counts[key][1]
        share = {k: c[0] / max(c[1], 1) for k, c in counts.items()}
        print(f"V_{source}({target})".ljust(22) + f" {pooled:>8.2f} {share['now_1']:>16.2f} "
              f"{share['now_pooled']:>16.2f} {share['before_1']:>19.2f} "
              f"{share['before_pooled']:>16.2f} {defined / args.pool_trials:>11.2f}", flush=True)
    for label, which in (("copy vs plain", plain_totals), ("every pair", totals)):
        for key in which:
            hits, n = which[key]
            print(rate_row(f"{label}: {key.replace('_', ', contains ')}", hits, n))
    print("left out (pooled V 1 up to one map of one run, most draws [1, 1]): "
          + ", ".join(degenerate))
    print("(the Wilson intervals count draws as independent; the draws share one pool of "
          "runs and maps, so they are too narrow)")
    print("Def. 35 over the same draws (R runs x K maps of each text's own runs):")
    out: dict[str, float] = {}
    for name in names:
        after = np.asarray([r[name] for r in runs[name]])
        true_gain = (after - base[name]).mean()
        covered = playable = 0
        for _ in range(args.pool_trials):
            mi = rng.integers(0, maps, args.maps)
            ri = rng.integers(0, len(after), args.runs)
            verdict = runs_gain(base[name][mi], after[ri][:, mi]).gain
            covered += verdict.gain.low <= true_gain <= verdict.gain.high
            playable += verdict.playable
        print(f"  {name:<10} pooled gain {true_gain:+6.1f}  interval contains it "
              f"{covered / args.pool_trials:.3f}  judged playable {playable / args.pool_trials:.3f}")
        out[f"pool_playable_{name}"] = round(playable / args.pool_trials, 3)
    for key, (hits, n) in plain_totals.items():
        out[f"pool_plain_{key}"] = round(hits / max(n, 1), 3)
    for key, (hits, n) in totals.items():
        out[f"pool_all_{key}"] = round(hits / max(n, 1), 3)
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
    parser.add_argument("--part", action="append",
                        choices=("steps", "transfer", "pool", "filter"))
    parser.add_argument("--player", default="tiny", help="tiny (the tests' model) or a spec")
    parser.add_argument("--game", default="plain", help="plain (the tests' game) or a name")
    parser.add_argument("--judge", default="ngram")
    parser.add_argument("--finetuner", default=tg.FINETUNER)
    parser.add_argument("--maps", type=int, default=DEFAULT_MAPS)
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
    parser.add_argument("--pool-dir", default=None,
                        help="pool: its folder (default /tmp/calib-pool-VIEW)")
    parser.add_argument("--view", default="infoset", choices=["infoset", "code"],
                        help="transfer, pool: what the players see (the oracle's default: "
                        "their information set; code: the program's text)")
    parser.add_argument("--pool-runs", type=int, default=16, help="pool: runs per text")
    parser.add_argument("--pool-maps", type=int, default=96, help="pool: maps")
    parser.add_argument("--pool-trials", type=int, default=300, help="pool: draws per pair")
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
        elif part == "pool":
            results.update(await part_pool(args))
        elif part == "filter":
            results.update(await part_filter(args))
    print(" ".join(f"{k}={v}" for k, v in results.items()))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
