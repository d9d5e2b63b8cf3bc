"""Honest intervals at every moment: does a board read at 1/4, 1/3 and 1/2 of a run have
95 % intervals that contain the final board's rating? (issue 30)

Two kinds of tournaments, eval and head-to-head each:

- **simulated**: the real pairings of a small tournament, scores drawn from known
  strengths plus what makes matches dependent in a real run: a participant x game
  interaction, a participant x map one, map difficulty per role, a first-seat advantage and
  noise (three sizes of the interactions, cycled over the seeds); the eval ones on 8 and 6
  maps of each game, and on 24 (where a prefix has enough maps for `--resample auto` to draw
  whole maps);
- **real**: small tournaments played by the engine (`random`, `scripted` and `search`
  players, the `ngram` judge by default), read back from the database.

For each tournament and prefix, every rated participant counts once: covered when the
prefix's 95 % interval contains the final rating (the final board's point, the same under
every column). Columns, side by side on the same matches:

- **before**: the prefix in planning order (game by game, as runs played before issue 30),
  intervals from the match bootstrap (the leaderboard's before issue 30);
- **balanced, match**: the prefix in the run's order (`balanced_order`; real runs: the
  order the engine stored them), match bootstrap;
- **balanced, map**: the same prefix, intervals from the map bootstrap (`--resample map`:
  a game's maps are drawn, then their matches);
- **balanced, auto**: the same prefix, intervals from the arena's default (`--resample
  auto`: whole maps, as `--resample cluster`, for an eval prefix with at least 4 maps of
  every game; matches otherwise).

Prints a table per kind and prefix and, last, `coverage_after=<share>`: the balanced,
auto column over every kind and prefix (the arena's default).

    PYTHONPATH=. python benchmarks/midrun_bench.py [--seeds 20] [--real-seeds 5]
        [--resamples 300] [--judge ngram] [--no-real]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.plugins.registry import Registry
from arena.storage import MATCH_DONE, Store, sqlite_url
from arena.tournaments.planning.config import parse_tournament
from arena.tournaments.planning.match_order import balanced_order
from arena.tournaments.planning.pairings import GameSlot, MatchPlan, plan_matches
from arena.tournaments.ratings import MatchRecord, SeatRecord
from arena.tournaments.ratings.service import RatingInputs, RatingOptions, compute_ratings
from arena.tournaments.records.from_store import records_from_store
from arena.tournaments.running.prepare import prepare_tournament
from arena.tournaments.services.run_config import play_config

PREFIXES = (1 / 4, 1 / 3, 1 / 2)
COLUMNS = ("before", "balanced, match", "balanced, map", "balanced, auto")
# (participant x game, participant x map, noise) standard deviations, natural-log units
SIZES = ((0.2, 0.2, 1.0), (0.5, 0.5, 0.7), (1.0, 0.8, 0.5))
Tally = dict[tuple[str, float, str], list[int]]


@dataclass(frozen=True)
class Run:
    """One tournament's records in the two orders."""

    kind: str
    planned: list[MatchRecord]  # planning order (game by game)
    played: list[MatchRecord]  # the run's order


def board(records: Sequence[MatchRecord], resample: str, resamples: int) -> dict[str, Any]:
    options = RatingOptions(n_resamples=resamples, resample=resample, min_comparisons=0)
    rows = compute_ratings(RatingInputs(("bench",), tuple(records)), options).rows
    return {r.participant: r for r in rows}


def tally(run: Run, resamples: int, into: Tally) -> None:
    final = board(run.played, "match", 10)  # the point does not depend on the bootstrap
    for share in PREFIXES:
        k = int(len(run.played) * share)
        boards = {
            COLUMNS[0]: board(run.planned[:k], "match", resamples),
            COLUMNS[1]: board(run.played[:k], "match", resamples),
            COLUMNS[2]: board(run.played[:k], "map", resamples),
            COLUMNS[3]: board(run.played[:k], "auto", resamples),
        }
        for column, rows in boards.items():
            cell = into.setdefault((run.kind, share, column), [0, 0])
            for name, row in final.items():
                cell[0] += row.rating >= rows[name].ci_low and row.rating <= rows[name].ci_high
                cell[1] += 1


# ----------------------------------------------------------------------------- simulated


def _slot(name: str, roles: Sequence[str], maps: int, eval_mode: bool, shared: bool) -> GameSlot:
    views = dict.fromkeys(roles, "all") if shared else {}
    npcs = dict.fromkeys(roles, "npc") if eval_mode else {}
    return GameSlot(name, "1", "h", "xgl", tuple(roles), maps=maps, npcs=npcs, views=views)


def simulated_plans(eval_mode: bool, entrants: int, maps: int) -> list[MatchPlan]:
    """A small tournament's plans in planning order: three games, one with two roles that
    see different things of a map."""
    games = [
        _slot("solo" if eval_mode else "duel", ["black"] if eval_mode else ["black", "white"],
              maps, eval_mode, True),
        _slot("partners", ["alice", "bob"], maps, eval_mode, False),
        _slot("pack" if eval_mode else "derail", ["black"] if eval_mode else ["black", "white"],
              maps, eval_mode, True),
    ]
    names = [f"p{i}" for i in range(entrants)]
    specs = {n: "random" for n in [*names, "npc"]}
    mode = "eval" if eval_mode else "head_to_head"
    return plan_matches("bench", mode, games, names, specs, balanced=False)


def simulate(plans: Sequence[MatchPlan], seed: int) -> dict[str, MatchRecord]:
    """A record per plan: a seat scores map difficulty + strength + participant x game +
    participant x map + first-seat advantage + noise (the higher score wins)."""
    rng = np.random.default_rng(seed)
    by_game, by_map, noise = SIZES[seed % len(SIZES)]
    names = sorted({s.participant for p in plans for s in p.seats if s.main})
    strength = dict(zip(names, rng.normal(0.0, 0.7, len(names)), strict=True))
    drawn: dict[tuple[object, ...], float] = {}

    def effect(key: tuple[object, ...], sd: float) -> float:
        if key not in drawn:
            drawn[key] = float(rng.normal(0.0, sd))
        return drawn[key]

    out = {}
    for plan in plans:
        seats = []
        for i, seat in enumerate(plan.seats):
            if not seat.main:
                seats.append(SeatRecord(seat.role, seat.participant, 0.0, npc=True))
                continue
            who = seat.participant
            score = (
                effect(("map", plan.game, plan.map_index, seat.role), 2.0)
                + strength[who]
                + effect(("game", who, plan.game), by_game)
                + effect(("pxm", who, plan.game, plan.map_index), by_map)
                + (0.5 if i == 0 else 0.0)
                + rng.normal(0.0, noise)
            )
            seats.append(SeatRecord(seat.role, who, float(score)))
        mode = "eval" if plan.mode == "eval" else "head_to_head"
        out[plan.key] = MatchRecord(plan.key, plan.game, f"{plan.game}/{plan.map_index}",
                                    tuple(seats), mode=mode)
    return out


def simulated_runs(seeds: int) -> list[Run]:
    runs = []
    for kind, eval_mode, shapes in (
        ("simulated eval", True, ((3, 8), (5, 6))),
        ("simulated eval, 24 maps", True, ((4, 24),)),
        ("simulated h2h", False, ((3, 2), (4, 2))),
    ):
        for entrants, maps in shapes:
            plans = simulated_plans(eval_mode, entrants, maps)
            for seed in range(seeds):
                records = simulate(plans, seed * 101 + entrants)
                played = [records[p.key] for p in balanced_order(plans, seed)]
                runs.append(Run(kind, [records[p.key] for p in plans], played))
    return runs


# ----------------------------------------------------------------------------- real


def real_config(eval_mode: bool, seed: int, judge: str) -> dict[str, Any]:
    people = [
        {"name": "random", "player": "random"},
        {"name": "scripted", "player": "scripted:once upon a time there was|the end"},
        {"name": "search", "player": "search?budget=12&beam=3"},
    ]
    data: dict[str, Any] = {
        "name": f"{'eval' if eval_mode else 'h2h'}-{seed}", "judge": judge, "seed": seed,
        "rounds": 1, "concurrency": {"global": 4},
    }
    if eval_mode:
        data |= {
            "mode": "eval", "maps": 8, "npc": "npc",
            "participants": [
                {"name": "npc", "player": "random?words=6", "npc_only": True},
                {"name": "reader", "player": "search?budget=8&beam=2", "npc_only": True},
                *people,
            ],
            "games": [
                {"game": "single_text"}, {"game": "condense"},
                {"game": "describe_to_partner", "npc": {"alice": "npc", "bob": "reader"}},
            ],
        }
    else:
        data |= {
            "mode": "head_to_head", "maps": 3, "participants": people,
            "games": [{"game": "derailing"}, {"game": "describe_to_partner"}],
        }
    return data


async def real_run(data: dict[str, Any], folder: Path, registry: Registry) -> Run:
    config = parse_tournament(data, "the benchmark", registry=registry)
    prepared = prepare_tournament(config, registry, "the benchmark")
    store = Store.open(sqlite_url(folder / f"{config.name}.db"))
    try:
        await play_config(config, store, registry, prepared=prepared)
        played = records_from_store(store.stored_matches(config.name, status=MATCH_DONE))
    finally:
        store.close()
    planned_keys = plan_matches(
        config.name, config.mode, [g.slot for g in prepared.games.values()],
        list(prepared.entrants), {p.name: p.player for p in config.participants},
        seed=config.seed, judge=config.judge, balanced=False,
    )
    by_key = {r.match_id: r for r in played}
    planned = [by_key[p.key] for p in planned_keys if p.key in by_key]
    kind = "real eval" if config.mode == "eval" else "real h2h"
    return Run(kind, planned, sorted(played, key=lambda r: r.order))


# ----------------------------------------------------------------------------- report


def report(found: Tally, kinds: Sequence[str]) -> float:
    print(f"{'kind':23} {'prefix':>6} " + " ".join(f"{c:>16}" for c in COLUMNS))
    totals = defaultdict(lambda: [0, 0])

    def share(cell: list[int]) -> str:
        return f"{cell[0]:>4}/{cell[1]:<4} {cell[0] / cell[1]:5.0%}"

    for kind in kinds:
        for prefix in PREFIXES:
            cells = [found[(kind, prefix, c)] for c in COLUMNS]
            for column, cell in zip(COLUMNS, cells, strict=True):
                totals[column][0] += cell[0]
                totals[column][1] += cell[1]
            label = {1 / 4: "1/4", 1 / 3: "1/3", 1 / 2: "1/2"}[prefix]
            print(f"{kind:23} {label:>6} " + " ".join(f"{share(c):>16}" for c in cells))
    print(f"{'all':23} {'':>6} " + " ".join(f"{share(totals[c]):>16}" for c in COLUMNS))
    worst = min(
        found[(k, p, COLUMNS[3])][0] / found[(k, p, COLUMNS[3])][1] for k in kinds for p in PREFIXES
    )
    print(f"coverage_before={totals[COLUMNS[0]][0] / totals[COLUMNS[0]][1]:.3f} "
          f"coverage_map={totals[COLUMNS[2]][0] / totals[COLUMNS[2]][1]:.3f} "
          f"coverage_match={totals[COLUMNS[1]][0] / totals[COLUMNS[1]][1]:.3f} "
          f"worst_cell_after={worst:.3f} (target >= 0.90)")
    return totals[COLUMNS[3]][0] / totals[COLUMNS[3]][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="simulated runs per shape")
    parser.add_argument("--real-seeds", type=int, default=5, help="real runs per mode")
    parser.add_argument("--resamples", type=int, default=300)
    parser.add_argument("--judge", default="ngram", help="judge of the real runs")
    parser.add_argument("--no-real", action="store_true", help="simulated runs only")
    args = parser.parse_args()

    started = time.perf_counter()
    found: Tally = {}
    kinds = ["simulated eval", "simulated eval, 24 maps", "simulated h2h"]
    for run in simulated_runs(args.seeds):
        tally(run, args.resamples, found)
    if not args.no_real:
        kinds += ["real eval", "real h2h"]
        registry = Registry.load()
        with tempfile.TemporaryDirectory() as folder:
            for seed in range(args.real_seeds):
                for eval_mode in (True, False):
                    data = real_config(eval_mode, seed, args.judge)
                    run = asyncio.run(real_run(data, Path(folder), registry))
                    tally(run, args.resamples, found)
    after = report(found, kinds)
    print(f"({time.perf_counter() - started:.0f} s)")
    print(f"coverage_after={after:.3f}")


if __name__ == "__main__":
    main()
