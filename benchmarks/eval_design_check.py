"""Benchmark context: does the oracle's best eval design settle the board at its predicted cost?

`adaptive_oracle.py` bounds what any eval pairing could save by counting what a map's
comparisons are worth (`map_share`). This script checks that count against the board itself.
For each population (drawn as `adaptive_bench.py` draws them) it plays two *fixed* designs as
simulated eval maps (every entrant of a map scores its strength plus Gumbel noise, as in
`adaptive_bench.py`):

- the round robin's full maps, and
- the best design the oracle found (maps of windows of neighbours in the true order),

each at multiples of the number of maps the oracle predicts will just settle it. Each play is
rated as `arena ratings` rates it (Bradley–Terry, 95 % intervals from the bootstrap that
`--resample` names, the arena's default `auto` unless told), and the
script counts how often the ranking is settled (every rank range a single rank).

At one multiple (x1) it also compares each entrant's standard deviation four ways, median
over entrants:
- **Monte Carlo**: the spread of the point fit over independent plays of the same design,
  which is the truth these intervals estimate;
- **match**: the board's match bootstrap (`--resample match`; eval boards' default before
  whole maps);
- **map**: the board's two-stage map bootstrap (`--resample map`);
- **cluster**: the board's whole-map bootstrap (`--resample cluster`).

A design's *matches to settle* are those of the first multiple at which at least half its
plays settled (inf: none did); the board's savings are the round robin's over the best
design's. The last line gives the medians over the populations of the savings the oracle
predicts and of those the board gives: ``predicted_savings=X realised_savings=Y``.

    PYTHONPATH=. python benchmarks/eval_design_check.py [--sizes 8,16]
        [--spreads close,spread] [--seeds 1] [--plays 6] [--resamples 200]
        [--resample auto|match|map|cluster]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

from arena.tournaments.ratings.bootstrap import RESAMPLING, bootstrap
from arena.tournaments.ratings.bradley_terry import fit
from arena.tournaments.ratings.comparisons import comparisons_from_records
from arena.tournaments.ratings.records import MatchRecord, SeatRecord
from arena.tournaments.ratings.stopping import settled
from benchmarks.adaptive_bench import GAPS, board
from benchmarks.adaptive_oracle import Design, eval_designs, population

MULTIPLES = (1.0, 1.25, 1.5, 2.0, 2.5)  # of the maps the oracle predicts


class Play:
    """One play of a design: its maps (each a list of entrant indices) and their records."""

    def __init__(self, design: Design, counts: np.ndarray, theta: np.ndarray, seed: list[int]):
        rng = np.random.default_rng(seed)
        self.maps: list[list[MatchRecord]] = []
        for unit, count in zip(design.units, counts, strict=True):
            # stochastic rounding keeps the expected number of maps
            for _ in range(int(count) + int(rng.random() < count - int(count))):
                noise = rng.gumbel(size=len(unit))
                k = len(self.maps)
                self.maps.append([
                    MatchRecord(f"{k}:{a}", "g", f"map{k}", (
                        SeatRecord("main", name(a), float(theta[a] + noise[j])),
                        SeatRecord("npc", "npc", 0.0, npc=True)), mode="eval")
                    for j, a in enumerate(unit)
                ])

    @property
    def records(self) -> list[MatchRecord]:
        return [r for m in self.maps for r in m]


def name(i: int) -> str:
    return f"p{i:02d}"


def centred(records: list[MatchRecord], names: list[str]) -> np.ndarray:
    data = comparisons_from_records(records)
    theta = np.asarray(fit(data).strengths)
    return (theta - theta.mean())[[data.participants.index(n) for n in names]]


def spreads(design: Design, counts: np.ndarray, theta: np.ndarray, seed: int,
            resamples: int) -> dict[str, float]:
    """Median over entrants of each way's standard deviation (module docstring)."""
    names = [name(i) for i in range(len(theta))]
    truth = np.std([centred(Play(design, counts, theta, [seed, 7, r]).records, names)
                    for r in range(40)], axis=0)
    play = Play(design, counts, theta, [seed, 8])
    data = comparisons_from_records(play.records)
    order = [data.participants.index(n) for n in names]
    out = {"Monte Carlo": float(np.median(truth))}
    for unit in ("match", "map", "cluster"):
        drawn = bootstrap(data, n_resamples=resamples, seed=0, resample=unit).strengths
        out[unit] = float(np.median(drawn.std(axis=0)[order]))
    return out


def cost_to_settle(counts: list[int], plays: int, cost: float) -> float:
    """The matches at the first multiple where at least half the plays settled (inf: none)."""
    return next((cost * m for m, ok in zip(MULTIPLES, counts, strict=True)
                 if 2 * ok >= plays), float("inf"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8,16")
    parser.add_argument("--spreads", default="close,spread")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--plays", type=int, default=6, help="plays per design and multiple")
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--resample", default="auto", choices=RESAMPLING,
                        help="the board's bootstrap unit when counting settled plays")
    args = parser.parse_args()
    print("population | design | predicted matches | "
          + " | ".join(f"settled at x{m}" for m in MULTIPLES) + " | matches to settle")
    widths: list[str] = []
    realised: list[float] = []
    predicted: list[float] = []
    for size in (int(s) for s in args.sizes.split(",")):
        for spread in args.spreads.split(","):
            for seed in range(args.seeds):
                theta = population(size, GAPS[spread], seed)
                names = [name(i) for i in range(size)]
                design, robin, best = eval_designs(theta)
                label = f"eval n={size} {spread} seed {seed}"
                settle = {}
                for way, counts in (("round robin", robin), ("best design", best)):
                    cost = float(design.cost @ counts)
                    oks = [
                        sum(settled(board(Play(design, counts * multiple, theta,
                                               [seed, int(100 * multiple), p]).records,
                                          args.resamples, args.resample), None,
                                    names) is None
                            for p in range(args.plays))
                        for multiple in MULTIPLES
                    ]
                    settle[way] = cost_to_settle(oks, args.plays, cost)
                    print(f"{label} | {way} | {cost:.0f} | "
                          + " | ".join(f"{ok}/{args.plays}" for ok in oks)
                          + f" | {settle[way]:.0f}", flush=True)
                    sd = spreads(design, counts, theta, seed, args.resamples)
                    widths.append(f"{label} | {way} | " + " | ".join(
                        f"{v:.3f}" for v in sd.values()) + " | "
                        + f"{sd['match'] / sd['Monte Carlo']:.2f}x | "
                        + f"{sd['cluster'] / sd['Monte Carlo']:.2f}x")
                predicted.append(float(design.cost @ robin / (design.cost @ best)))
                realised.append(settle["round robin"] / settle["best design"])
                print(f"{label}: the oracle predicts {predicted[-1]:.2f}x, the board gives "
                      f"{realised[-1]:.2f}x", flush=True)
    print("\nstandard deviation of a centred strength (median over entrants), at x1")
    print("population | design | Monte Carlo | match | map | cluster | match / Monte Carlo | cluster / Monte Carlo")
    print("\n".join(widths))
    print(f"predicted_savings={statistics.median(predicted):.2f} "
          f"realised_savings={statistics.median(realised):.2f}")


if __name__ == "__main__":
    main()
