"""Dashboard benchmark (not a test): page render times over a large SQLite database.

1. Builds a database with `--matches` (default 100 000) matches in bulk through the storage
   layer (`Store.save_matches`, 2 000 per transaction): 12 participants with hidden
   strengths, 8 games (5 with one seat, 3 with a main seat against an NPC), 40 maps per
   game, 3 rounds per match, 6 rating snapshots over time with 1 000 bootstrap draws each
   (synthesised around the true strengths, as `store_snapshot` stores them). Bulk matches
   carry no event transcript (the leaderboard and Xent-measure pages never read events);
   one real 10-round match, played with the n-gram judge, is the replay.
2. Renders pages with Streamlit's AppTest (script, data and chart specs; no browser):
   leaderboard and Xent measure cold (caches cleared) and warm (the same page again), and
   the replay of the 10-round match (cold and warm).

"Cold" is a page view with Streamlit's caches empty in a server process that has already
imported its modules (an untimed pass renders each page first, then the caches are
cleared); "warm" is the same view again.

3. Live-ness (issue 18, `benchmarks/_live_bench.py`): (a) one more match is stored and the
   Leaderboard's data function is called until it shows it (seconds from the write);
   (b) the ETA the run's heartbeat reports at 20 % of a real run with slow map preparation,
   against the time the run really took from then on.

Targets (issue 11): leaderboard and Xent measure < 10 s cold and < 2 s warm; replay < 1 s.
The Participant and Pairwise pages (issue 18) are timed the same way.
Issue 18: stored match -> leaderboard data <= 5 s at 100 000 matches; ETA error at 20 %
within 25 %.

Run: PYTHONPATH=. python benchmarks/dashboard_bench.py [--matches 100000] [--db PATH]
[--only pages|live|eta] (with --db an existing benchmark database is reused). The last line
is `leaderboard_warm_s=<x> store_to_board_s=<y> eta_error_pct=<z>` (the figures measured);
the tables list every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.storage import (  # noqa: E402
    MATCH_DONE,
    FinishedMatch,
    GameInfo,
    JudgeProvenance,
    ParticipantInfo,
    SeatResult,
    Store,
    sqlite_url,
)
from arena.storage.snapshot_draws import encode_draws  # noqa: E402
from arena.storage.snapshots import save_rating_snapshot  # noqa: E402
from arena.tournaments.ratings import percentile_intervals, rank_ranges  # noqa: E402

APP = ROOT / "dashboard" / "app.py"
TOURNAMENT = "bench"
PEOPLE = [f"agent-{i:02d}" for i in range(12)]
SOLO_GAMES = ["condense", "synthesize", "horizon", "contrast", "two_ways"]
DUO_GAMES = ["duel", "interception", "secret_sharing"]
MAPS = 40
ROUNDS = 3
BATCH = 2_000
SNAPSHOTS = 6
DRAWS = 1_000
TIMEOUT_S = 600

REPLAY_GAME = (
    "# version: 1\n"
    "assign(s=story(20))\n"
    "elicit(black, t, 8)\n"
    "reward(black, xed(s | t))\n"
)
REPLAY_TOURNAMENT = """
name = "replay"
judge = "ngram"
maps = 1
rounds = 10
seed = 5

[[participants]]
name = "random"
player = "random?words=4"

[[games]]
game = "replay_game.xgl"
"""


def _game(name: str) -> GameInfo:
    source = f"# version: 1\n# {name}: benchmark stand-in\nelicit(black, t, 8)\n"
    return GameInfo(name, "1", "xgl", hashlib.sha256(source.encode()).hexdigest(), source)


def build(path: Path, matches: int) -> dict[str, float]:
    """Write the benchmark database at `path`; returns build timings."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    directory = path.parent
    (directory / "replay_game.xgl").write_text(REPLAY_GAME, encoding="utf-8")
    replay_file = directory / "replay.toml"
    replay_file.write_text(REPLAY_TOURNAMENT, encoding="utf-8")
    from arena.plugins.registry import Registry
    from arena.tournaments.services.run_config import run_file

    db = sqlite_url(path)
    asyncio.run(run_file(replay_file, db=db, registry=Registry.load()))
    timings["replay match played (s)"] = time.perf_counter() - started

    started = time.perf_counter()
    store = Store.open(db)
    rng = np.random.default_rng(0)
    config = {"name": TOURNAMENT, "mode": "eval", "base": PEOPLE[0]}
    tournament = store.ensure_tournament(TOURNAMENT, "eval", json.dumps(config))
    people = store.ensure_participants(
        [ParticipantInfo(name, f"random?words={i + 2}") for i, name in enumerate(PEOPLE)]
    )
    npc = store.ensure_participant(ParticipantInfo("npc", "random?words=1"))
    names = SOLO_GAMES + DUO_GAMES
    games = store.ensure_games([_game(name) for name in names])
    judge = store.ensure_judge(JudgeProvenance("ngram", "ngram", "char-5gram"))
    run = store.start_run(
        tournament, planned=matches, pending=matches, config_sha256="bench", version="bench"
    )
    maps = {
        (g, m): store.ensure_map(games[g], 1000 + m, "judge", {"1:1": f"story {m}"})[0]
        for g in range(len(names))
        for m in range(MAPS)
    }
    strength = np.linspace(-2.0, 2.0, len(PEOPLE))
    game_shift = rng.normal(0.0, 3.0, len(names))
    start = datetime.now(UTC) - timedelta(days=30)
    batch: list[FinishedMatch] = []
    for i in range(matches):
        g = i % len(names)
        p = (i // len(names)) % len(PEOPLE)
        m = (i // (len(names) * len(PEOPLE))) % MAPS
        scores = strength[p] + game_shift[g] + rng.normal(0.0, 1.0, ROUNDS)
        seats = [SeatResult("black" if g < len(SOLO_GAMES) else "alice", people[p], True,
                            float(scores.max()), False, tuple(float(s) for s in scores))]
        if g >= len(SOLO_GAMES):
            other = game_shift[g] + rng.normal(0.0, 1.0, ROUNDS)
            seats.append(SeatResult("bob", npc, False, float(other.max()), False,
                                    tuple(float(s) for s in other)))
        when = start + timedelta(seconds=25 * i)
        batch.append(FinishedMatch(
            key=f"bench-{i}", tournament_id=tournament, run_id=run, game_id=games[g],
            map_id=maps[(g, m)], judge_id=judge, map_index=m, play_seed=i, mode="eval",
            main_role=seats[0].role, rounds=ROUNDS, dialect="xgl", status=MATCH_DONE,
            error=None, started_at=when, finished_at=when + timedelta(seconds=2),
            seats=tuple(seats), events=(),
        ))
        if len(batch) == BATCH:
            store.save_matches(batch)
            batch = []
    if batch:
        store.save_matches(batch)
    store.finish_run(run, "done")
    timings["bulk matches written (s)"] = time.perf_counter() - started

    started = time.perf_counter()
    for k in range(SNAPSHOTS):
        spread = 120.0 / np.sqrt(k + 1)
        elo = 1000.0 + 173.7 * strength + rng.normal(0.0, spread / 4, len(PEOPLE))
        draws = elo + rng.normal(0.0, spread, (DRAWS, len(PEOPLE)))
        low, high = percentile_intervals(draws, 0.95)
        rank_low, rank_high = rank_ranges(low, high)
        rows = sorted(
            ({"participant": name, "rating": float(elo[j]), "ci_low": float(low[j]),
              "ci_high": float(high[j]), "rank_low": int(rank_low[j]),
              "rank_high": int(rank_high[j]), "n_comparisons": matches * (k + 1) // SNAPSHOTS,
              "provisional": False} for j, name in enumerate(PEOPLE)),
            key=lambda r: -float(r["rating"]),  # type: ignore[arg-type]
        )
        save_rating_snapshot(store.engine, tournament, "bradley_terry", {
            "tournaments": [TOURNAMENT], "run_id": run,
            "matches": matches * (k + 1) // SNAPSHOTS, "scale": "elo",
            "config": {"n_resamples": DRAWS, "confidence": 0.95, "seed": 0, "scale": "elo"},
            "rows": rows, "role_effects": {}, "online_elo": {}, "draws": encode_draws(PEOPLE, draws),
        })
    store.close()
    timings["snapshots written (s)"] = time.perf_counter() - started
    return timings


def _replay_match(db: str) -> int:
    store = Store.open(db)
    try:
        with store.engine.connect() as conn:
            found = conn.exec_driver_sql(
                "SELECT m.id FROM matches m JOIN tournaments t ON t.id = m.tournament_id "
                "WHERE t.name = 'replay' AND m.rounds = 10 ORDER BY m.id LIMIT 1"
            ).scalar()
    finally:
        store.close()
    assert found is not None, "the replay match was not stored"
    return int(found)


def measure(db: str) -> list[tuple[str, float]]:
    """Seconds per page render: (label, seconds)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    os.environ["XENT_ARENA_DB"] = db
    sys.argv = [str(APP)]  # the app reads `--db` from the arguments: not this script's

    def app(params: dict[str, str]) -> AppTest:
        at = AppTest.from_file(str(APP), default_timeout=TIMEOUT_S)
        for key, value in params.items():
            at.query_params[key] = value
        return at

    def timed(at: AppTest, label: str) -> float:
        began = time.perf_counter()
        at.run()
        seconds = time.perf_counter() - began
        if at.exception:
            raise SystemExit(f"{label}: the page raised {[e.value for e in at.exception]}")
        return seconds

    match = _replay_match(db)
    pages = (
        ("leaderboard", "views/leaderboard.py", {"tournament": TOURNAMENT}, "Leaderboard", "agent-11"),
        ("xent_measure", "views/xent_measure.py", {"tournament": TOURNAMENT}, "Xent measure", "agent-11"),
        ("participant", "views/participant.py", {"tournament": TOURNAMENT, "name": "agent-11"},
         "Participant", "agent-11"),
        ("pairwise", "views/pairwise.py", {"tournament": TOURNAMENT}, "Pairwise", "agent-11"),
        ("replay (10 rounds)", "views/replay.py", {"tournament": "replay", "match": str(match)},
         "Replay", "elicit_response"),
    )

    def opened(page: str, params: dict[str, str]) -> AppTest:
        at = app(params)
        at.run()  # the entry page first, as a browser opening the link does
        at.switch_page(page)
        return at

    def check(at: AppTest, title: str, needle: str) -> None:
        """The page really rendered its data (not an empty or error state)."""
        titles = [t.value for t in at.title]
        shown = " ".join(d.value.to_string() for d in at.dataframe)
        if title not in titles or needle not in shown:
            raise SystemExit(f"{title}: the page did not show its data (titles {titles})")

    # Imports (Streamlit, pandas, Altair, the app's modules) are paid once per server
    # process, not per page view: one untimed pass over the pages first.
    for _, page, params, title, needle in pages:
        at = opened(page, params)
        at.run()
        check(at, title, needle)

    results = []
    for name, page, params, title, needle in pages:
        at = opened(page, params)
        st.cache_data.clear()
        st.cache_resource.clear()
        results.append((f"{name} cold", timed(at, name)))
        check(at, title, needle)
        results.append((f"{name} warm", timed(at, name)))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--db", type=Path, default=None, help="reuse (or create) this file")
    parser.add_argument("--only", choices=("pages", "live", "eta"), default=None,
                        help="one part of the benchmark (default: all)")
    args = parser.parse_args()
    keep = tempfile.TemporaryDirectory(prefix="dashboard-bench-")
    path = args.db or Path(keep.name) / "bench.db"
    build_times: dict[str, float] = {}
    if args.only != "eta" and not path.exists():
        build_times = build(path, args.matches)
    db = sqlite_url(path)
    last: list[str] = []
    if args.only != "eta":
        print(f"database: {path} ({path.stat().st_size / 1e6:.0f} MB, {args.matches} matches)")
        for label, seconds in build_times.items():
            print(f"  build: {label:<28} {seconds:8.1f}")
    if args.only in (None, "pages"):
        figures = measure(db)
        targets = {"leaderboard cold": 10.0, "leaderboard warm": 2.0, "xent_measure cold": 10.0,
                   "xent_measure warm": 2.0, "replay (10 rounds) cold": 1.0,
                   "replay (10 rounds) warm": 1.0, "participant cold": 10.0,
                   "participant warm": 2.0, "pairwise cold": 10.0, "pairwise warm": 2.0}
        print(f"{'page':<28} {'seconds':>8} {'target':>8}  ok")
        for label, seconds in figures:
            target = targets[label]
            print(f"{label:<28} {seconds:8.2f} {target:8.1f}  "
                  f"{'yes' if seconds < target else 'NO'}")
        values = dict(figures)
        print(f"xent_measure_warm_s={values['xent_measure warm']:.3f}")
        last.append(f"leaderboard_warm_s={values['leaderboard warm']:.3f}")
    if args.only in (None, "live"):
        from _live_bench import leaderboard_latency

        live = leaderboard_latency(db, TOURNAMENT, "bench-0")
        print(f"{'live leaderboard':<40} {'seconds':>8} {'target':>8}")
        for label, seconds in live.items():
            goal = "5.0" if label.startswith("stored") else ""
            print(f"{label:<40} {seconds:8.2f} {goal:>8}")
        last.append(f"store_to_board_s={live['stored -> board shows it (s)']:.3f}")
    if args.only in (None, "eta"):
        from _live_bench import eta_error

        eta = eta_error(Path(keep.name))
        print(f"{'ETA at 20 % of a run':<40} {'value':>8} {'target':>8}")
        for label, value in eta.items():
            goal = "25" if label.startswith("ETA error") else ""
            print(f"{label:<40} {value:8.1f} {goal:>8}")
        last.append(f"eta_error_pct={eta['ETA error at 20% (%)']:.1f}")
    print(" ".join(last))
    keep.cleanup()


if __name__ == "__main__":
    main()
