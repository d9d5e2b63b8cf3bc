"""Benchmark: matches until the ranking is settled, adaptive pairing against the round robin.

Simulated tournaments with known Bradley–Terry strengths (8, 16 and 32 participants;
head-to-head and eval; close and spread strengths, each a seeded draw: evenly spaced gaps,
each jittered by +-30 %, names shuffled). Outcomes follow the model exactly: head-to-head,
the first seat wins with probability sigmoid(theta_first - theta_second + 0.1) (a small
first-seat advantage, so seat balance matters); eval, every entrant of a map scores
theta + the map's shift + Gumbel noise, so any two entrants of a map compare as
sigmoid(theta_a - theta_b), and all comparisons on one map share its scores.

The pool of planned matches is the same for both ways: head-to-head, rounds of every ordered
pair on a map of its own; eval, maps on which every entrant plays once. Both ways draw
from it:

- **round robin**, in its balanced order: round after round (map after map), rounds and
  matches in a seeded random order (so every prefix is an interleaved sample of the whole);
- **adaptive**: `arena.tournaments.ratings.adaptive.AdaptivePairing`, `--batch` picks per
  call (the matches a run would have in flight; default max(8, participants / 2)).

After every checkpoint (a geometric grid, ``x --step`` matches, the same for both) the board
is rated as `arena ratings` does (Bradley–Terry fit, the default bootstrap unit `auto` with
``--resamples``,
95 % percentile intervals, rank ranges) and the run stops when
`arena.tournaments.ratings.stopping.settled` says the whole ranking is settled (no rank range
wider than one rank). *Matches* is the checkpoint where that happened (``>`` the pool when
it never did); *coverage* is the share of participants whose final rank range contains their
true rank (the strengths the simulation drew; neither way sees them). The savings of a
population is the median over seeds of round-robin matches / adaptive matches; the last
line is the geometric mean of the savings over the populations and the adaptive coverage
over every participant of every run: ``match_savings=X coverage=Y``.

    PYTHONPATH=. python benchmarks/adaptive_bench.py [--seeds 3] [--sizes 8,16,32]
        [--modes h2h,eval] [--spreads close,spread] [--resamples 200] [--batch B]

The default (every size, both modes, 3 seeds) runs for hours on a 2-core machine; one size
at a time is minutes (eval 32, one seed: about 30 minutes); benchmarks/README.md gives the
commands and times of each measurement.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from arena.tournaments.ratings.adaptive import (
    AdaptivePairing,
    AdaptiveSettings,
    Candidate,
    tie_break,
)
from arena.tournaments.ratings.comparisons import comparisons_from_records
from arena.tournaments.ratings.leaderboard import (
    LeaderboardConfig,
    LeaderboardRow,
    leaderboard_from_comparisons,
)
from arena.tournaments.ratings.records import MatchRecord, SeatRecord
from arena.tournaments.ratings.stopping import settled

GAPS = {"close": 0.5, "spread": 1.0}  # natural-log units between neighbours (x jitter)
FIRST_SEAT = 0.1  # head-to-head first-seat advantage
GAME = "g"


@dataclass(frozen=True)
class Population:
    size: int
    mode: str  # "h2h" or "eval"
    spread: str

    @property
    def label(self) -> str:
        return f"{self.mode} n={self.size} {self.spread}"


@dataclass
class Outcome:
    matches: int
    settled: bool
    covered: int
    size: int
    seconds: float


class World:
    """A seeded population: true strengths, the pool of candidates, and outcomes drawn as
    each match is played (the same draws whichever way plays it)."""

    def __init__(self, pop: Population, seed: int, pool_rounds: int) -> None:
        rng = np.random.default_rng([seed, pop.size, len(pop.mode), len(pop.spread)])
        gaps = GAPS[pop.spread] * rng.uniform(0.7, 1.3, pop.size - 1)
        theta = np.concatenate([[0.0], -np.cumsum(gaps)])
        theta -= theta.mean()
        names = [f"p{i:02d}" for i in rng.permutation(pop.size)]
        self.truth = dict(zip(names, theta.tolist(), strict=True))
        self.names = sorted(names)
        self.mode = pop.mode
        self.candidates: list[Candidate] = []
        self.rounds: list[list[str]] = []
        # Common random numbers: an outcome is drawn by what the match is to the way that
        # plays it, not by its key: head-to-head, the k-th meeting of an ordered pair;
        # eval, the k-th map a way opens (its shift and each entrant's noise), so two ways
        # that play the same design see the same outcomes, whichever maps they pick.
        self.meet_draw = rng.random((pop.size, pop.size, pool_rounds))
        self.map_shift = rng.normal(0.0, 3.0, pool_rounds)
        self.map_noise = rng.gumbel(size=(pool_rounds, pop.size))
        self.at = {n: i for i, n in enumerate(self.names)}
        for r in range(pool_rounds):
            keys = []
            if pop.mode == "h2h":
                for a in self.names:
                    for b in self.names:
                        if a != b:
                            key = f"r{r}:{a}:{b}"
                            seats = (("first", a), ("second", b))
                            self.candidates.append(Candidate(key, GAME, seats))
                            keys.append(key)
            else:
                cell = (GAME, "1", "main", r, (("npc", "npc"),), 1)
                for a in self.names:
                    key = f"r{r}:{a}"
                    self.candidates.append(Candidate(key, GAME, (("main", a),), cell))
                    keys.append(key)
            self.rounds.append(keys)
        self.by_key = {c.key: c for c in self.candidates}
        # The round robin walks the rounds (maps), and each round's matches, in the order of
        # the adaptive policy's seeded tie-break
        lottery = {key: tie_break(seed, key) for keys in self.rounds for key in keys}
        self.round_robin = [
            key for keys in sorted(self.rounds, key=lambda ks: min(lottery[k] for k in ks))
            for key in sorted(keys, key=lottery.__getitem__)
        ]

    def record(self, key: str, tally: dict[object, int]) -> MatchRecord:
        """The outcome of `key` for the way whose counts are `tally` (see __init__)."""
        c = self.by_key[key]
        if self.mode == "h2h":
            (_, a), (_, b) = c.seats
            k = tally[(a, b)] = tally.get((a, b), -1) + 1
            p = 1.0 / (1.0 + math.exp(-(self.truth[a] - self.truth[b] + FIRST_SEAT)))
            first = 1.0 if self.meet_draw[self.at[a], self.at[b], k] < p else 0.0
            seats = (SeatRecord("first", a, first), SeatRecord("second", b, 1.0 - first))
            return MatchRecord(key, GAME, "m" + key.split(":")[0], seats)
        (_, who), = c.seats
        assert c.cell is not None
        opened = tally.setdefault(("map", c.cell[3]), len(tally))
        score = self.truth[who] + self.map_shift[opened] + self.map_noise[opened, self.at[who]]
        seats = (SeatRecord("main", who, score), SeatRecord("npc", "npc", 0.0, npc=True))
        return MatchRecord(key, GAME, f"map{c.cell[3]}", seats, mode="eval")

    def true_ranks(self) -> dict[str, int]:
        ranked = sorted(self.truth, key=lambda n: -self.truth[n])
        return {n: i + 1 for i, n in enumerate(ranked)}


def board(records: Sequence[MatchRecord], resamples: int,
          resample: str = "auto") -> list[LeaderboardRow]:
    config = LeaderboardConfig(n_resamples=resamples, seed=0, resample=resample)
    return list(leaderboard_from_comparisons(comparisons_from_records(records), config).rows)


def checkpoints(start: int, step: float, last: int) -> list[int]:
    points, at = [], float(start)
    while at < last:
        points.append(int(at))
        at = max(at * step, at + 1)
    return [*points, last]


def play(
    world: World,
    chooser: Callable[[list[MatchRecord], int], list[str]],
    points: list[int],
    resamples: int,
    top: int | None,
) -> Outcome:
    started = time.perf_counter()
    records: list[MatchRecord] = []
    tally: dict[object, int] = {}  # this way's meetings and maps (World.record)
    rows: list[LeaderboardRow] = []
    done = False
    for point in points:
        while len(records) < point:
            keys = chooser(records, point - len(records))
            if not keys:
                break
            records += [world.record(k, tally) for k in keys]
        rows = board(records, resamples)
        if settled(rows, top, world.names) is None:
            done = True
            break
        if len(records) < point:  # the pool ran out
            break
    truth = world.true_ranks()
    covered = sum(r.rank_low <= truth[r.participant] <= r.rank_high for r in rows)
    return Outcome(len(records), done, covered, len(world.names),
                   time.perf_counter() - started)


def run_population(pop: Population, args: argparse.Namespace) -> tuple[list[Outcome], ...]:
    adaptive_runs, robin_runs = [], []
    for seed in range(args.seeds):
        world = World(pop, seed, args.pool_rounds if pop.mode == "h2h" else args.pool_maps)
        points = checkpoints(pop.size, args.step, len(world.candidates))
        batch = args.batch or max(8, pop.size // 2)
        top = args.settle_top or None
        policy = AdaptivePairing(world.candidates, AdaptiveSettings(seed=seed, settle_top=top))

        def adaptive(records: list[MatchRecord], room: int) -> list[str]:
            return policy.next(records, min(batch, room))  # noqa: B023

        def robin(records: list[MatchRecord], room: int) -> list[str]:
            return world.round_robin[len(records) : len(records) + room]  # noqa: B023

        adaptive_runs.append(play(world, adaptive, points, args.resamples, top))
        robin_runs.append(play(world, robin, points, args.resamples, top))
    return adaptive_runs, robin_runs


def shown(runs: Sequence[Outcome]) -> str:
    values = [r.matches for r in runs]
    text = f"{statistics.median(values):.0f}"
    return text if all(r.settled for r in runs) else f">{text}" if not any(
        r.settled for r in runs) else f"{text} ({sum(not r.settled for r in runs)} unsettled)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3,
                        help="seeds per simulated population (0: none, real runs only)")
    parser.add_argument("--sizes", default="8,16,32")
    parser.add_argument("--modes", default="h2h,eval")
    parser.add_argument("--spreads", default="close,spread")
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--batch", type=int, default=0,
                        help="adaptive picks per call (default: max(8, participants / 2))")
    parser.add_argument("--step", type=float, default=1.1)
    parser.add_argument("--real-seeds", type=int, default=2,
                        help="real tournaments per mode, played both ways (0: none)")
    parser.add_argument("--real-orders", type=int, default=0,
                        help="replay each real eval run in this many orders both ways "
                             "(benchmarks/_adaptive_real.py; 0: none)")
    parser.add_argument("--settle-top", type=int, default=0,
                        help="settled: only the best N must have one rank each (0: all)")
    parser.add_argument("--pool-rounds", type=int, default=250,
                        help="head-to-head: rounds of every ordered pair in the pool")
    parser.add_argument("--pool-maps", type=int, default=1000,
                        help="eval: maps in the pool (every entrant once on each)")
    args = parser.parse_args()

    pops = [
        Population(int(n), mode, spread)
        for mode in args.modes.split(",")
        for spread in args.spreads.split(",")
        for n in args.sizes.split(",")
    ] if args.seeds else []  # --seeds 0: only the real tournaments
    header = ("population", "round robin", "adaptive", "savings", "coverage rr",
              "coverage adaptive", "seconds")
    print(" | ".join(header))
    savings: list[float] = []
    covered = total = 0
    for pop in pops:
        adaptive, robin = run_population(pop, args)
        ratio = statistics.median(
            r.matches / a.matches for a, r in zip(adaptive, robin, strict=True)
        )
        savings.append(ratio)
        covered += sum(a.covered for a in adaptive)
        total += sum(a.size for a in adaptive)
        cov = lambda runs: sum(x.covered for x in runs) / sum(x.size for x in runs)  # noqa: E731
        seconds = sum(x.seconds for x in adaptive + robin)
        print(" | ".join((
            pop.label, shown(robin), shown(adaptive), f"{ratio:.2f}x",
            f"{cov(robin):.1%}", f"{cov(adaptive):.1%}", f"{seconds:.0f}",
        )), flush=True)
    if args.real_seeds:
        real = real_table(args)
        savings += [r for r, _ in real]
        covered += sum(c for _, c in real)
        total += 4 * len(real)  # four participants in each
    geo = math.exp(statistics.mean(math.log(s) for s in savings)) if savings else math.nan
    print(f"match_savings={geo:.2f} coverage={covered / max(total, 1):.3f}")


def real_table(args: argparse.Namespace) -> list[tuple[float, int]]:
    """Real tournaments both ways (`_adaptive_real`): per mode, the median savings and the
    participants covered."""
    from arena.plugins.plugin_manager import create_plugin_manager
    from arena.plugins.registry import Registry
    from benchmarks._adaptive_real import real_cases

    registry = Registry.from_plugin_manager(create_plugin_manager())
    print("\nreal (4 built-in players, n-gram judge, best settled at 95%)")
    print("mode | planned | round robin | adaptive | savings | maps made (rr / adaptive) | "
          "coverage adaptive | seconds")
    found = []
    for mode, maps in (("eval", 24), ("head_to_head", 6)):
        started = time.perf_counter()
        cases = real_cases(mode, args.real_seeds, maps, 0.95, 1, registry)
        ratio = statistics.median(c.robin / c.adaptive for c in cases)
        covered = sum(c.covered for c in cases)
        settled = sum(c.adaptive_settled for c in cases)
        print(" | ".join((
            mode, str(cases[0].planned),
            " ".join(str(c.robin) for c in cases), " ".join(str(c.adaptive) for c in cases),
            f"{ratio:.2f}x ({settled}/{len(cases)} settled)",
            " ".join(f"{c.robin_maps}/{c.adaptive_maps}" for c in cases),
            f"{covered / sum(c.size for c in cases):.1%}",
            f"{time.perf_counter() - started:.0f}",
        )), flush=True)
        # a case where neither way settled (both played the whole plan) says nothing
        found += [(c.robin / c.adaptive, c.covered) for c in cases
                  if c.robin_settled or c.adaptive_settled]
    if args.real_orders:
        from benchmarks._adaptive_real import replayed_cases

        started = time.perf_counter()
        runs = replayed_cases(args.real_seeds, 24, 0.95, 1, registry, args.real_orders)
        for unit in runs[0]:
            robin = [m for run in runs for m in run[unit].robin]
            adaptive = [m for run in runs for m in run[unit].adaptive]
            covered = sum(run[unit].covered for run in runs)
            held = sum(run[unit].held for run in runs)
            cases = sum(run[unit].cases for run in runs)
            print(f"eval replayed ({args.real_orders} orders x {len(runs)} runs, --resample "
                  f"{unit}): matches to settle, round robin mean {statistics.mean(robin):.0f} "
                  f"(median {statistics.median(robin):.0f}), adaptive mean "
                  f"{statistics.mean(adaptive):.0f} (median {statistics.median(adaptive):.0f});"
                  f" savings {statistics.mean(robin) / statistics.mean(adaptive):.2f}x; rank "
                  f"ranges holding the full run's rank {covered}/{cases}, intervals its "
                  f"rating {held}/{cases}", flush=True)
        print(f"({time.perf_counter() - started:.0f} s)")
    return found


if __name__ == "__main__":
    main()
