"""Benchmark: Bradley–Terry fit plus a 1000-resample match bootstrap.

Default: 100 000 synthetic head-to-head matches (one comparison each) among 50 participants
over 6 games. ``--eval``: that many eval-mode matches instead (a random participant on a
random (game, map) of 6 games x ``--maps`` maps; every pair of comparable matches is a
comparison, so 100 000 matches on 240 maps are about 20 million comparisons, kept as groups).
Prints a table and a last line ``ratings_seconds=<fit + bootstrap seconds>``.

    PYTHONPATH=. python benchmarks/ratings_bench.py [--comparisons N] [--resamples B]
        [--participants P] [--role-effects] [--eval [--maps M]]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from arena.tournaments.ratings.bootstrap import bootstrap, expected_match_counts
from arena.tournaments.ratings.bradley_terry import fit
from arena.tournaments.ratings.comparisons import comparisons_from_records
from arena.tournaments.ratings.synthetic import synthetic_eval_matches, synthetic_matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comparisons", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--participants", type=int, default=50)
    parser.add_argument("--role-effects", action="store_true")
    parser.add_argument("--eval", action="store_true", help="eval-mode matches")
    parser.add_argument("--maps", type=int, default=40, help="maps per game (--eval)")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    truth = {f"p{i:02d}": float(v) for i, v in enumerate(rng.normal(0, 1, args.participants))}
    games = tuple(f"game{i}" for i in range(6))
    t0 = time.perf_counter()
    if args.eval:
        records = synthetic_eval_matches(truth, args.comparisons, games=games, maps=args.maps,
                                         seed=1)
    else:
        records = synthetic_matches(truth, args.comparisons, games=games, seed=1)
    data = comparisons_from_records(records)
    t1 = time.perf_counter()
    weights = expected_match_counts(data.match_game, True)
    full = fit(data, role_effects=args.role_effects, match_weights=weights)
    t2 = time.perf_counter()
    boot = bootstrap(
        data, n_resamples=args.resamples, seed=0, role_effects=args.role_effects, start=full.params
    )
    t3 = time.perf_counter()

    est = dict(zip(data.participants, full.strengths, strict=True))
    names = sorted(truth)
    rho = np.corrcoef(
        np.argsort(np.argsort([truth[n] for n in names])),
        np.argsort(np.argsort([est[n] for n in names])),
    )[0, 1]
    fit_s, boot_s = t2 - t1, t3 - t2
    print(
        f"{'comparisons':>12} {'resamples':>9} {'prepare_s':>9} {'fit_s':>7} {'bootstrap_s':>11} {'total_s':>7}"
    )
    print(
        f"{data.n_comparisons:>12} {args.resamples:>9} {t1 - t0:>9.2f} {fit_s:>7.3f} "
        f"{boot_s:>11.2f} {fit_s + boot_s:>7.2f}"
    )
    print(
        f"mode={'eval' if args.eval else 'head_to_head'} matches={len(data.match_ids)} "
        f"participants={len(data.participants)} games={len(games)} keys={data.n_keys} "
        f"spearman={rho:.3f} not_converged={boot.not_converged} (prepare_s = records + outcomes, "
        "not counted in total)"
    )
    print(f"ratings_seconds={fit_s + boot_s:.2f}")


if __name__ == "__main__":
    main()
