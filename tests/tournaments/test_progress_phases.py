"""A run shows its map preparation as a phase, and its ETA counts only play (issue 18, item
3): the terminal bar says "preparing maps k/N" and keeps N/total and the ETA on its first
line at 100 and 120 columns when judge statistics appear; the heartbeat the Live page reads
says the phase; the rate ignores the preparation time."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena.plugins.registry import Registry
from arena.storage import MATCH_DONE, FinishedMatch, Store, sqlite_url
from arena.storage.live import PLAYING, PREPARING, live_runs
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.running.executors.engine import run_tournament
from arena.tournaments.running.live_reporter import LiveReporter
from arena.tournaments.running.prepare import prepare_tournament
from arena.tournaments.running.progress import MatchClock, RichProgress
from tests.tournaments import arena_fixtures as fx

JUDGE_STATS = {"requests": 1234.0, "batches": 321.0, "mean_batch_size": 3.84,
               "cache_hits": 417.0, "tokens_per_s": 18234.5, "mean_queue_wait_ms": 12.75}


def record() -> FinishedMatch:
    now = datetime.now(UTC)
    return FinishedMatch("k", 1, 1, 1, 1, 1, 0, 0, "eval", "black", 1, "xgl", MATCH_DONE,
                         None, now, now, (), ())


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_eta_counts_only_the_time_since_play_began() -> None:
    """The issue's run: 165 s making maps, then 300 matches at 0.5 per second; at 53/300
    the old rate (over the whole run) said 13m56s-like figures, the remaining was ~8 min."""
    clock = Clock()
    eta = MatchClock(clock)
    clock.now = 165.0  # preparation
    eta.playing()
    for _ in range(53):
        clock.now += 2.0
        eta.stored()
    remaining = 300 - 53
    truth = remaining * 2.0
    assert eta.eta_s(remaining) == pytest.approx(truth)
    whole_run_rate = 53 / clock.now  # what counting the preparation would give
    assert remaining / whole_run_rate > 1.5 * truth
    assert MatchClock(clock).eta_s(10) is None  # no match yet: no ETA


@pytest.mark.parametrize("width", [100, 120])
def test_the_bar_keeps_counts_and_eta_when_judge_statistics_appear(width: int) -> None:
    bar = RichProgress("demo", lambda: JUDGE_STATS)
    bar.start(total=120, done=0)
    bar.preparing(3, 30)
    shown = bar.render_text(width)
    assert "preparing maps 3/30" in shown and "0/120" in shown
    bar.playing()
    for _ in range(7):
        bar.stored(record(), True)
    shown = bar.render_text(width)
    bar.close()
    first, *rest = shown.splitlines()
    assert "7/120" in first and "ETA " in first and "errors 0" in first, shown
    assert "ETA -:--:--" not in first  # a rate exists once matches are stored
    assert any("judge batches=321" in line for line in rest), shown
    assert all(len(line) <= width for line in shown.splitlines())


def test_the_heartbeat_says_preparing_then_playing(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "h.db"))
    try:
        reporter = LiveReporter(store, run_id=1, tournament_id=1, total=10, done_before=0)
        reporter.preparing(2, 5)
        now = reporter.progress()
        assert (now.phase, now.maps_done, now.maps_total, now.eta_s) == (PREPARING, 2, 5, None)
        reporter.playing()
        reporter.stored(record(), True)
        now = reporter.progress()
        assert now.phase == PLAYING and now.eta_s is not None and now.matches_per_min > 0
    finally:
        store.close()


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def start(self, total: int, done: int) -> None:
        self.calls.append(("start", total, done))

    def preparing(self, done: int, total: int) -> None:
        self.calls.append(("preparing", done, total))

    def playing(self) -> None:
        self.calls.append(("playing", 0, 0))

    def stored(self, match: FinishedMatch, written: bool) -> None:
        self.calls.append(("stored", 0, 0))

    def close(self) -> None:
        self.calls.append(("close", 0, 0))


async def test_a_run_reports_its_map_preparation_before_play(tmp_path: Path) -> None:
    registry: Registry = fx.registry()
    path = fx.tournament_file(tmp_path, fx.SMALL)
    prepared = prepare_tournament(load_tournament(path, registry), registry, str(path))
    maps = len({(p.game, p.map_index) for p in prepared.plans})
    store = Store.open(sqlite_url(tmp_path / "p.db"))
    sink = Recorder()
    try:
        await run_tournament(prepared, registry=registry, judge=registry.create_judge("ngram"),
                             store=store, progress=sink)
        beat = live_runs(store.engine, tournament="small")[0].progress
    finally:
        store.close()
    kinds = [c[0] for c in sink.calls]
    assert kinds[0] == "start" and kinds[-1] == "close"
    preparing = [c for c in sink.calls if c[0] == "preparing"]
    assert preparing[0] == ("preparing", 0, maps) and preparing[-1] == ("preparing", maps, maps)
    # play begins once a first map is ready (issue 35: the rest are made meanwhile)
    first_ready = next(i for i, c in enumerate(sink.calls) if c[0] == "preparing" and c[1])
    assert first_ready < kinds.index("playing") < kinds.index("stored")
    assert (beat.phase, beat.maps_done, beat.maps_total) == (PLAYING, maps, maps)


def test_a_version_7_database_gains_the_phase_columns(tmp_path: Path) -> None:
    from sqlalchemy import inspect, text

    from arena.storage import create_db_engine
    from arena.storage.migrations import CURRENT_VERSION, schema_version

    url = sqlite_url(tmp_path / "v7.db")
    Store.open(url).close()
    engine = create_db_engine(url)
    with engine.begin() as conn:
        for column in ("phase", "maps_done", "maps_total"):
            conn.execute(text(f"ALTER TABLE live_runs DROP COLUMN {column}"))
        conn.execute(text("UPDATE schema_version SET version = 7"))
    engine.dispose()
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            assert schema_version(conn) == CURRENT_VERSION >= 8
            columns = {c["name"] for c in inspect(conn).get_columns("live_runs")}
        assert {"phase", "maps_done", "maps_total"} <= columns
    finally:
        store.close()


def test_maps_made_after_play_began_keep_the_phase_and_the_eta(tmp_path: Path) -> None:
    """Issue 35: maps are made while matches play; a map ready after the first match keeps
    the heartbeat's phase at playing (with the map count) and the bar's ETA."""
    store = Store.open(sqlite_url(tmp_path / "o.db"))
    try:
        reporter = LiveReporter(store, run_id=1, tournament_id=1, total=10, done_before=0)
        reporter.preparing(1, 5)
        reporter.playing()
        reporter.stored(record(), True)
        reporter.preparing(2, 5)
        now = reporter.progress()
        assert (now.phase, now.maps_done, now.maps_total) == (PLAYING, 2, 5)
        assert now.eta_s is not None
    finally:
        store.close()
    bar = RichProgress("demo")
    bar.start(total=10, done=0)
    bar.preparing(1, 5)
    bar.playing()
    bar.stored(record(), True)
    bar.preparing(2, 5)
    shown = bar.render_text(100)
    bar.close()
    assert "ETA " in shown and "preparing maps" not in shown, shown
