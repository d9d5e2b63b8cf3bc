"""Real tournaments for `adaptive_bench.py`: small eval and head-to-head tournaments of
built-in players (random and three search budgets) on two bundled games each, judged by the
n-gram judge, played three ways on one seed key (so every way sees the same maps and the
same outcome of any match it plays):

- **full**: the whole round robin, whose final ranking stands in for the truth;
- **round robin**: `stop_when = "settled"`, in balanced order;
- **adaptive**: `pairing = "adaptive"` with the same stopping rule.

Matches: stored when the run stopped (the plan's size when it never settled); maps: the
maps each way made (drawn from the judge and stored); coverage: the share of participants
whose rank range at the stop contains their rank in the full run.

Three runs say little about a stopping time, which varies widely with the order the maps
come in. `replayed_cases` therefore also replays each full run offline in many orders: the
outcome of every planned match is known (the full run played it, on the same seed key), so
the round robin in `balanced_order` with another seed, and the policy with another
tie-break seed, each stop where the board (as the stop watch rates it, every round of 4)
first says settled; once with each bootstrap unit asked for (the match bootstrap and the
default, side by side), counting how often the rank ranges and the 95 % intervals at the
stop hold the full run's ranks and ratings.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlalchemy import text

from arena.plugins.registry import Registry
from arena.storage import MATCH_DONE, Store, sqlite_url
from arena.tournaments.planning.config import parse_tournament
from arena.tournaments.planning.match_order import balanced_order
from arena.tournaments.ratings.adaptive import AdaptivePairing, AdaptiveSettings, candidates_of
from arena.tournaments.ratings.leaderboard import LeaderboardRow
from arena.tournaments.ratings.records import MatchRecord
from arena.tournaments.ratings.service import RatingOptions, compute_ratings
from arena.tournaments.ratings.stopping import settled
from arena.tournaments.records.rating_store import load_inputs
from arena.tournaments.running.prepare import prepare_tournament
from arena.tournaments.services.run_config import play_config

NAME = "bench"
ROUND = 4  # matches per round: the real runs' concurrency


@dataclass(frozen=True)
class RealOutcome:
    planned: int
    robin: int
    adaptive: int
    robin_settled: bool
    adaptive_settled: bool
    covered: int
    size: int
    robin_maps: int = 0
    adaptive_maps: int = 0


def config(seed: int, maps: int, rules: dict[str, Any], mode: str) -> dict[str, Any]:
    people = [  # graded: more search budget plays better (eval games; see the README)
        {"name": "random", "player": "random"},
        {"name": "search2", "player": "search?budget=2&beam=1"},
        {"name": "search8", "player": "search?budget=8&beam=2"},
        {"name": "search32", "player": "search?budget=32&beam=4"},
    ]
    data: dict[str, Any] = {
        "name": NAME, "judge": "ngram", "seed": seed, "rounds": 1, "mode": mode,
        "maps": maps, "concurrency": {"global": 4}, **rules,
    }
    if mode == "eval":
        return data | {
            "npc": "npc",
            "participants": [{"name": "npc", "player": "random?words=6", "npc_only": True},
                             *people],
            "games": [{"game": "single_text"}, {"game": "condense"}],
        }
    return data | {
        "participants": people,
        "games": [{"game": "derailing"}, {"game": "describe_to_partner"}],
    }


def _keyed(url: str, key: str) -> None:
    """The tournament, created with a known seed key before its first run."""
    store = Store.open(url)
    try:
        store.ensure_tournament(NAME, "eval", "{}")  # the run stores its own config
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE tournaments SET seed_key = :k WHERE name = :n"),
                         {"k": key, "n": NAME})
    finally:
        store.close()


def maps_made(url: str) -> int:
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM maps")).scalar_one())
    finally:
        store.close()


async def _run(data: dict[str, Any], url: str, registry: Registry) -> tuple[int, str, list[Any]]:
    parsed = parse_tournament(data, "the benchmark", registry=registry)
    prepared = prepare_tournament(parsed, registry, "the benchmark")
    store = Store.open(url)
    try:
        summary = await play_config(parsed, store, registry, prepared=prepared)
        done = len(store.stored_matches(NAME, status=MATCH_DONE))
        board = compute_ratings(load_inputs(store, [NAME]), RatingOptions(min_comparisons=0))
    finally:
        store.close()
    return done, summary.status, list(board.rows)


async def real_case(
    mode: str, seed: int, maps: int, confidence: float, top: int, registry: Registry
) -> RealOutcome:
    key = f"{seed:04x}" * 16
    settle = {"stop_when": "settled", "confidence": confidence, "settle_top": top}
    with tempfile.TemporaryDirectory(prefix="adaptive-bench-") as folder:
        urls = {w: sqlite_url(Path(folder) / f"{w}.db") for w in ("full", "robin", "adaptive")}
        for url in urls.values():
            _keyed(url, key)
        planned, _, final = await _run(config(seed, maps, {}, mode), urls["full"], registry)
        robin, robin_status, _ = await _run(
            config(seed, maps, settle, mode), urls["robin"], registry)
        adaptive, adaptive_status, board = await _run(
            config(seed, maps, {**settle, "pairing": "adaptive"}, mode), urls["adaptive"],
            registry,
        )
        made = {w: maps_made(url) for w, url in urls.items()}
    truth = {r.participant: i + 1 for i, r in enumerate(
        sorted(final, key=lambda r: -r.rating))}
    covered = sum(r.rank_low <= truth[r.participant] <= r.rank_high for r in board)
    return RealOutcome(planned, robin, adaptive, robin_status.startswith("stopped"),
                       adaptive_status.startswith("stopped"), covered, len(board),
                       made["robin"], made["adaptive"])


def real_cases(
    mode: str, seeds: int, maps: int, confidence: float, top: int, registry: Registry
) -> list[RealOutcome]:
    return [asyncio.run(real_case(mode, seed, maps, confidence, top, registry))
            for seed in range(seeds)]


@dataclass
class Replays:
    """One full eval run replayed in many orders on one board unit: the matches each way
    took to settle, and how many of the participants' rank ranges (``covered``) and 95 %
    intervals (``held``) at those stops held their rank and rating in the full run (out of
    ``cases``)."""

    robin: list[int] = field(default_factory=list)
    adaptive: list[int] = field(default_factory=list)
    covered: int = 0
    held: int = 0
    cases: int = 0


def replayed_cases(
    seeds: int, maps: int, confidence: float, top: int, registry: Registry, orders: int,
    units: Sequence[str] = ("match", "auto"),
) -> list[dict[str, Replays]]:
    """Per full eval run and bootstrap unit: the replays' stops (module docstring)."""
    return [replayed(seed, maps, confidence, top, registry, orders, units)
            for seed in range(seeds)]


def replayed(
    seed: int, maps: int, confidence: float, top: int, registry: Registry, orders: int,
    units: Sequence[str],
) -> dict[str, Replays]:
    data = config(seed, maps, {}, "eval")
    with tempfile.TemporaryDirectory(prefix="adaptive-replay-") as folder:
        url = sqlite_url(Path(folder) / "full.db")
        _keyed(url, f"{seed:04x}" * 16)
        asyncio.run(_run(data, url, registry))
        store = Store.open(url)
        try:
            inputs = load_inputs(store, [NAME])
        finally:
            store.close()
    outcome = {r.match_id: r for r in inputs.records}
    parsed = parse_tournament(data, "the benchmark", registry=registry)
    plans = [p for p in prepare_tournament(parsed, registry, "the benchmark").plans
             if p.key in outcome]
    entrants = sorted({s.participant for r in outcome.values() for s in r.players if not s.npc})
    final = compute_ratings(inputs, RatingOptions(min_comparisons=0, n_resamples=10)).rows
    truth = {r.participant: i + 1 for i, r in enumerate(final)}  # rows come best first
    rating = {r.participant: r.rating for r in final}
    found = {unit: Replays() for unit in units}

    def stop(pick: Callable[[list[MatchRecord]], list[str]], options: RatingOptions,
             into: Replays) -> int:
        played: list[MatchRecord] = []
        rows: Sequence[LeaderboardRow] = ()
        while keys := pick(played):
            played += [outcome[k] for k in keys]
            rows = compute_ratings(replace(inputs, records=tuple(played)), options).rows
            if settled(rows, top, entrants) is None:
                break
        into.covered += sum(r.rank_low <= truth[r.participant] <= r.rank_high for r in rows)
        into.held += sum(r.ci_low <= rating[r.participant] <= r.ci_high for r in rows)
        into.cases += len(rows)
        return len(played)

    for unit, into in found.items():
        options = RatingOptions(confidence=confidence, resample=unit)  # the stop watch's board
        for order in range(orders):
            walk = [p.key for p in balanced_order(plans, order)]
            into.robin.append(stop(
                lambda played: walk[len(played):len(played) + ROUND], options, into))  # noqa: B023
            policy = AdaptivePairing(candidates_of(plans), AdaptiveSettings(
                confidence=confidence, settle_top=top, seed=order))
            into.adaptive.append(stop(
                lambda played: policy.next(played, ROUND), options, into))  # noqa: B023
    return found
