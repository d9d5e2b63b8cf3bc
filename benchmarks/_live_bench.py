"""Helpers of `dashboard_bench.py` for issue 18's two live-ness figures.

1. Leaderboard latency: over a database of N stored matches, one more match is stored (a
   new participant, so the board must change) and the Leaderboard's data function
   (`arena.dashboard.live_board.live_board`, what the page shows between snapshots) is called
   until it lists the newcomer: seconds from the write to that answer. On screen the page
   adds at most its reload period (`REFRESH_S` of the Leaderboard, 3 s).
2. ETA error: a real tournament (real executor, SQLite, heartbeat) whose maps are slow to
   make (a story source that waits, as the bundled judge on CPU does), then matches of
   players that take a fixed time per move. When 20 % of the matches are stored, the ETA
   the heartbeat reports (what the Live page shows) is read and compared with the time the
   run really took from then on; the ETA the old rate (over the whole run, preparation
   included) would have given is printed beside it.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_manager import create_plugin_manager
from arena.plugins.plugin_types import StorySourceEntry
from arena.plugins.registry import Registry
from arena.protocols.story import StoryRequest
from arena.runtime.maps import JudgeStorySource
from arena.storage import MATCH_DONE, FinishedMatch, ParticipantInfo, SeatResult, Store

ETA_TOURNAMENT = """
name = "eta"
judge = "ngram"
stories = "slow?delay={delay}"
maps = {maps}
rounds = 2
seed = 4

[concurrency]
global = 4

[[participants]]
name = "a"
player = "sleepy?words=3&delay={move}"

[[participants]]
name = "b"
player = "sleepy?words=4&delay={move}"

[[participants]]
name = "c"
player = "sleepy?words=5&delay={move}"

[[games]]
game = "condense.xgl"
"""


class SlowStories:
    """The judge's stories, after `delay` seconds per request batch (map preparation as
    slow as a CPU transformer judge makes it)."""

    def __init__(self, judge: object, delay: float) -> None:
        self._inner = JudgeStorySource(judge)  # type: ignore[arg-type]
        self._delay = delay

    @property
    def name(self) -> str:
        return "slow-" + self._inner.name

    async def stories(self, requests: Sequence[StoryRequest]) -> list[str]:
        await asyncio.sleep(self._delay)
        return await self._inner.stories(requests)


@hookimpl
def arena_story_sources() -> list[StorySourceEntry]:
    return [StorySourceEntry("slow", lambda spec, judge: SlowStories(
        judge, spec.float_param("delay", 1.0)), "benchmark: judge stories, slowly")]


def registry() -> Registry:
    from tests.tournaments import arena_fixtures

    pm = create_plugin_manager()
    pm.register_plugin(arena_fixtures, "tournament_test_fixtures")
    pm.register_plugin(sys.modules[__name__], "live_bench")
    return Registry.from_plugin_manager(pm)


# ------------------------------------------------------------------------------ latency


def leaderboard_latency(db: str, tournament: str, like_key: str) -> dict[str, float]:
    """Seconds from storing one more match to `live_board` listing its new participant (wall
    time, and the CPU time this process spent in it: on a shared machine the wall time
    depends on the load, the CPU time much less)."""
    from arena.dashboard.live_board import done_matches, live_board
    from arena.storage.read_model import ReadModel

    reader = ReadModel.open(db)
    store = Store.open(db)
    try:
        began = time.perf_counter()
        before = live_board(reader, tournament)  # warm: imports, page cache of SQLite
        warm = time.perf_counter() - began
        with store.engine.connect() as conn:
            row = conn.exec_driver_sql(
                "SELECT tournament_id, run_id, game_id, map_id, judge_id, map_index, mode, "
                "main_role, rounds, dialect FROM matches WHERE key = ?", (like_key,)).one()
        name = f"newcomer-{time.time_ns()}"  # new on every run over a kept database
        newcomer = store.ensure_participant(ParticipantInfo(name, "random?words=9"))
        now = datetime.now(UTC)
        match = FinishedMatch(
            key=f"late-{time.time_ns()}", tournament_id=row[0], run_id=row[1], game_id=row[2],
            map_id=row[3], judge_id=row[4], map_index=row[5], play_seed=1, mode=row[6],
            main_role=row[7], rounds=row[8], dialect=row[9], status=MATCH_DONE, error=None,
            started_at=now, finished_at=now,
            seats=(SeatResult(row[7], newcomer, True, 0.0, False, (0.0,) * row[8]),),
            events=(),
        )
        stored_at, cpu_at = time.perf_counter(), time.process_time()
        store.save_matches([match])
        stale_check = time.perf_counter()
        done_matches(reader, tournament)  # what tells the page its snapshot is stale
        stale_s = time.perf_counter() - stale_check
        board = live_board(reader, tournament)
        shown_s = time.perf_counter() - stored_at
        shown_cpu = time.process_time() - cpu_at
        assert name in set(board["participant"]) and name not in set(
            before["participant"]), "the stored match did not reach the board"
    finally:
        store.close()
        reader.close()
    return {"board computed before the write (s)": warm, "staleness check (s)": stale_s,
            "stored -> board shows it (s)": shown_s,
            "  of which CPU of this process (s)": shown_cpu}


# ------------------------------------------------------------------------------ ETA


async def _eta_run(directory: Path, maps: int, delay: float, move: float,
                   at: float) -> dict[str, float]:
    from arena.storage import sqlite_url
    from arena.storage.live import live_runs
    from arena.tournaments.services.run_config import run_file
    from tests.tournaments import arena_fixtures as fx

    fx.write_games(directory, ["condense.xgl"])
    path = directory / "eta.toml"
    path.write_text(ETA_TOURNAMENT.format(delay=delay, maps=maps, move=move), encoding="utf-8")
    db = sqlite_url(directory / "eta.db")
    Store.open(db).close()
    reader = Store.open(db)
    seen: dict[str, float] = {}
    began = time.perf_counter()

    async def watch() -> None:
        while True:
            beats = await asyncio.to_thread(live_runs, reader.engine, tournament="eta")
            if beats:
                p = beats[0].progress
                if p.phase == "playing" and "play_began" not in seen:
                    seen["play_began"] = time.perf_counter()
                if p.done >= at * p.total and p.eta_s is not None and "eta" not in seen:
                    seen["read_at"] = time.perf_counter()
                    seen["eta"] = p.eta_s
                    seen["done"] = p.done
                    seen["total"] = p.total
            await asyncio.sleep(0.1)

    watcher = asyncio.create_task(watch())
    try:
        await run_file(path, db=db, registry=registry())
    finally:
        watcher.cancel()
        reader.close()
    ended = time.perf_counter()
    actual = ended - seen["read_at"]
    elapsed = seen["read_at"] - began
    whole_run_eta = (seen["total"] - seen["done"]) / (seen["done"] / elapsed)
    return {
        "preparation (s)": seen.get("play_began", began) - began,
        "run (s)": ended - began,
        "matches": seen["total"],
        "ETA shown at 20% (s)": seen["eta"],
        "remaining in fact (s)": actual,
        "ETA error at 20% (%)": 100.0 * abs(seen["eta"] - actual) / actual,
        "old whole-run-rate ETA error (%)": 100.0 * abs(whole_run_eta - actual) / actual,
    }


def eta_error(directory: Path, maps: int = 20, delay: float = 1.0, move: float = 0.4,
              at: float = 0.2) -> dict[str, float]:
    return asyncio.run(_eta_run(directory, maps, delay, move, at))
