"""The executor: every planned match stored once, identical maps, per-match isolation,
concurrency limits, cancellation, and the `run` / `matches` commands."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.events import Event
from arena.plugins.registry import Registry
from arena.storage import MATCH_DONE, MATCH_ERROR, FinishedMatch, Store, sqlite_url
from arena.storage.queries import map_texts, match_events, stored_matches
from arena.tournaments.cli.run import main as cli_main
from arena.tournaments.planning.config import load_tournament
from arena.tournaments.running.executors.engine import RunSummary, run_tournament
from arena.tournaments.running.prepare import prepare_tournament
from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx


@pytest.fixture(scope="module")
def registry() -> Registry:
    return fx.registry()


async def run(path: Path, db: str, registry: Registry, **kwargs: object) -> RunSummary:
    return await run_file(path, db=db, registry=registry, **kwargs)  # type: ignore[arg-type]


def stored(db: str, tournament: str = "small") -> list:  # type: ignore[type-arg]
    store = Store.open(db)
    try:
        return stored_matches(store.engine, tournament)
    finally:
        store.close()


async def test_every_planned_match_is_stored_once_and_a_rerun_adds_nothing(tmp_path: Path, registry: Registry) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)
    db = sqlite_url(tmp_path / "a.db")
    summary = await run(path, db, registry)
    # condense: 1 role x 2 maps x 2 entrants; duel: 2 roles x 2 maps x 2 entrants
    assert (summary.planned, summary.written, summary.errors, summary.status) == (12, 12, 0, "done")
    assert summary.rounds == 4 * 2 + 8 * 1
    matches = stored(db)
    assert len({m.key for m in matches}) == 12
    for m in matches:
        assert m.status == MATCH_DONE and m.event_count > 0
        assert len(m.seats) == (1 if m.game == "condense" else 2)
        assert [s.participant for s in m.seats if s.main] in (["alpha"], ["beta"])
        assert all(s.participant == "npc" for s in m.seats if not s.main)
        assert len(m.seats[0].round_scores) == m.rounds
    again = await run(path, db, registry)
    assert (again.already_done, again.pending, again.written) == (12, 0, 0)
    assert len(stored(db)) == 12


async def test_all_entrants_play_identical_stored_maps(tmp_path: Path, registry: Registry) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)
    db = sqlite_url(tmp_path / "a.db")
    await run(path, db, registry)
    matches = stored(db)
    by_map = Counter((m.game, m.map_index, m.map_id) for m in matches)
    # one stored map per (game, map); duel's alice and bob see different things of a map,
    # so each of its 2 map slots is a map for alice and one for bob (issue 24)
    assert len({(g, i) for g, i, _ in by_map}) == len(by_map) == 2 + 2 * 2
    store = Store.open(db)
    try:
        texts = {m.map_id: map_texts(store.engine, m.map_id) for m in matches}
        assert all(t and all(v.strip() for v in t.values()) for t in texts.values())
        for m in matches:  # the story the players saw is the stored map text
            (assign,) = [e for e in match_events(store.engine, m.key) if e.type == "assign"][:1]
            assert assign.values["s"] in texts[m.map_id].values()  # type: ignore[union-attr]
    finally:
        store.close()


ISOLATION = """
name = "iso"
judge = "flaky"
npc = "npc"
[[participants]]
name = "npc"
player = "sleepy?words=2"
npc_only = true
[[participants]]
name = "good"
player = "sleepy?words=3"
[[participants]]
name = "crasher"
player = "scripted:<raise>"
[[participants]]
name = "boomer"
player = "scripted:BOOM"
[[games]]
game = "condense.xgl"
[[games]]
game = "broken.xgl"
"""


async def test_crashing_players_judge_calls_and_games_stay_inside_their_match(tmp_path: Path, registry: Registry) -> None:
    path = fx.tournament_file(tmp_path, ISOLATION)
    db = sqlite_url(tmp_path / "iso.db")
    summary = await run(path, db, registry)
    assert summary.written == summary.planned == 6
    found = {(m.game, m.seats[0].participant): m for m in stored(db, "iso")}
    good, crasher, boomer = (found[("condense", p)] for p in ("good", "crasher", "boomer"))
    assert good.status == MATCH_DONE and good.seats[0].best is not None
    assert crasher.status == MATCH_DONE and crasher.seats[0].forfeit  # a player crash is a forfeit
    assert boomer.status == MATCH_ERROR and "flaky judge" in (boomer.error or "")
    assert all(found[("broken", p)].status == MATCH_ERROR for p in ("good", "boomer"))
    assert "out of range" in (found[("broken", "good")].error or "")
    assert found[("broken", "crasher")].seats[0].forfeit  # forfeits before the bad line
    assert summary.errors == 3


async def test_a_rerun_retries_matches_stored_as_errors(tmp_path: Path, registry: Registry) -> None:
    path = fx.tournament_file(tmp_path, ISOLATION)
    db = sqlite_url(tmp_path / "iso.db")
    await run(path, db, registry)
    again = await run(path, db, registry)
    assert (again.already_done, again.pending, again.written, again.errors) == (3, 3, 3, 3)
    assert len(stored(db, "iso")) == 6


LIMITS = """
name = "limits"
judge = "ngram"
npc = "npc"
maps = 6
[concurrency]
global = {total}
providers = {{ sleepy = {sleepy} }}
[[participants]]
name = "npc"
player = "random"
npc_only = true
[[participants]]
name = "slow"
player = "sleepy?delay=0.02"
[[games]]
game = "condense.xgl"
"""


@pytest.mark.parametrize(("total", "sleepy", "peak"), [(8, 2, 2), (3, 8, 3)])
async def test_global_and_per_provider_limits_bound_matches_in_flight(
    tmp_path: Path, registry: Registry, total: int, sleepy: int, peak: int
) -> None:
    path = fx.tournament_file(tmp_path, LIMITS.format(total=total, sleepy=sleepy))
    fx.ACTIVE.update(now=0, peak=0)
    summary = await run(path, sqlite_url(tmp_path / "l.db"), registry)
    assert summary.written == 6
    assert fx.ACTIVE["peak"] == peak


async def test_cancelling_stores_only_whole_matches_and_marks_the_run(tmp_path: Path, registry: Registry) -> None:
    body = fx.SMALL.replace('player = "sleepy?words=3"', 'player = "sleepy?words=3&delay=0.05"')
    body = body.replace("maps = 2", "maps = 6").replace("global = 4", "global = 2")
    path = fx.tournament_file(tmp_path, body)
    db = sqlite_url(tmp_path / "c.db")
    config = load_tournament(path)
    prepared = prepare_tournament(config, registry)
    store = Store.open(db)
    judge = registry.create_judge("ngram")
    three_stored = asyncio.Event()

    class Sink:
        count = 0

        def start(self, total: int, done: int) -> None:
            pass

        def preparing(self, done: int, total: int) -> None:
            pass

        def playing(self) -> None:
            pass

        def stored(self, match: FinishedMatch, written: bool) -> None:
            Sink.count += 1
            if Sink.count >= 3:
                three_stored.set()

        def close(self) -> None:
            pass

    task = asyncio.create_task(run_tournament(prepared, registry=registry, judge=judge, store=store, progress=Sink()))
    await three_stored.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    matches = stored(db)
    assert 3 <= len(matches) < len(prepared.plans)
    with store.engine.connect() as conn:
        for m in matches:
            rows = conn.execute(text("SELECT count(*) FROM events WHERE match_id = :i"), {"i": m.id}).scalar()
            assert rows == m.event_count
            assert len(m.seats) == (1 if m.game == "condense" else 2)
        assert conn.execute(text("SELECT status FROM runs")).scalars().all() == ["interrupted"]
    store.close()
    rest = await run(path, db, registry)
    assert rest.written == len(prepared.plans) - len(matches)
    assert len(stored(db)) == len(prepared.plans)


async def test_events_reach_the_event_hook_with_their_match_key(tmp_path: Path, registry: Registry) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL)
    prepared = prepare_tournament(load_tournament(path), registry)
    seen: list[tuple[str, str]] = []

    def hook(event: Event, key: str) -> None:
        seen.append((event.type, key))

    store = Store.open(sqlite_url(tmp_path / "e.db"))
    try:
        await run_tournament(prepared, registry=registry, judge=registry.create_judge("ngram"), store=store, on_event=hook)
        keys = {p.key for p in prepared.plans}
        assert {k for _, k in seen} == keys
        for m in stored_matches(store.engine, "small"):
            assert [t for t, k in seen if k == m.key] == [e.type for e in match_events(store.engine, m.key)]
    finally:
        store.close()


async def test_key_env_names_are_stored_and_keys_never_are(tmp_path: Path, registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-0123456789abcdefghij"
    monkeypatch.setenv("ARENA_TEST_KEY", secret)
    body = fx.SMALL.replace('player = "sleepy?words=3"', 'player = "sleepy?words=3&api_key_env=ARENA_TEST_KEY"')
    path = fx.tournament_file(tmp_path, body)
    db_file = tmp_path / "k.db"
    await run(path, sqlite_url(db_file), registry)
    specs = {s.spec for m in stored(sqlite_url(db_file)) for s in m.seats}
    assert "sleepy?words=3&api_key_env=ARENA_TEST_KEY" in specs
    for file in tmp_path.glob("k.db*"):
        assert secret.encode() not in file.read_bytes()


def cli(args: list[str]) -> int:
    try:
        cli_main(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


def test_the_run_and_matches_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = fx.SMALL.replace('player = "sleepy?words=2"', 'player = "random?words=2"')
    body = body.replace('player = "sleepy?words=3"', 'player = "scripted:a story|the cat"')
    path = fx.tournament_file(tmp_path, body)
    db = sqlite_url(tmp_path / "cli.db")
    assert cli(["run", str(path), "--db", db, "--no-progress"]) == 0
    assert "done: 12 match(es) stored" in capsys.readouterr().out
    assert cli(["matches", "--tournament", "small", "--db", db, "--limit", "3"]) == 0
    header, *lines, more = capsys.readouterr().out.strip().splitlines()
    assert header.split()[:4] == ["match", "game", "map", "status"]
    assert len(lines) == 3 and all(" done " in line for line in lines)
    # a duel's NPC seat is marked (the run interleaves the games: duels among the latest)
    assert all("(npc)" in line for line in lines if "duel@" in line)
    assert any("duel@" in line for line in lines)
    assert more == "Showing the latest 3 of 12 stored matches (use --limit 12 to see them all)."
    assert cli(["matches", "-t", "small", "--db", db, "--status", "error"]) == 0
    assert capsys.readouterr().out == "No error matches in tournament 'small'.\n"
    assert cli(["matches", "--tournament", "smal", "--db", db]) == 2
    assert "Did you mean 'small'?" in capsys.readouterr().err


def test_a_bad_tournament_file_exits_2_with_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = fx.tournament_file(tmp_path, fx.SMALL.replace("maps = 2", "maps = 0").replace('judge = "ngram"', 'judge = "ngrm"'))
    assert cli(["run", str(path), "--db", sqlite_url(tmp_path / "x.db")]) == 2
    err = capsys.readouterr().err
    assert "maps = 0" in err and "Input should be greater than or equal to 1" in err


HEAD_TO_HEAD = """
name = "h2h"
mode = "head_to_head"
judge = "ngram"
maps = 2
[[participants]]
name = "a"
player = "random?words=2"
[[participants]]
name = "b"
player = "sleepy?words=3"
[[participants]]
name = "c"
player = "scripted:the cat sat"
[[games]]
game = "zerosum.xgl"
"""


async def test_head_to_head_rotates_participants_through_every_seat(tmp_path: Path, registry: Registry) -> None:
    path = fx.tournament_file(tmp_path, HEAD_TO_HEAD)
    db = sqlite_url(tmp_path / "h.db")
    summary = await run(path, db, registry)
    assert summary.written == summary.planned == 2 * 6  # 2 maps x 3P2 seatings
    matches = stored(db, "h2h")
    seats = Counter((s.participant, s.role) for m in matches for s in m.seats)
    assert set(seats.values()) == {4} and len(seats) == 6
    for m in matches:
        assert m.mode == "head_to_head" and m.main_role is None
        black, white = m.seats
        assert all(s.main for s in m.seats) and black.participant != white.participant
        assert black.best == pytest.approx(-white.best)  # zero-sum game


def test_the_progress_bar_shows_counts_and_judge_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.tournaments.running.progress import RichProgress

    progress = RichProgress("demo", lambda: {"requests": 9.0, "batches": 3.0, "mean_batch_size": 2.5})
    progress.start(total=4, done=1)
    record = fx_record()
    for _ in range(3):
        progress.stored(record, True)
    progress.close()
    err = capsys.readouterr().err
    assert "4/4" in err and "batches=3" in err and "mean_batch_size=2.50" in err


def fx_record() -> FinishedMatch:
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    return FinishedMatch("k", 1, 1, 1, 1, 1, 0, 0, "eval", "black", 1, "xgl", MATCH_DONE, None, now, now, (), ())


async def test_a_map_that_cannot_be_made_skips_only_its_matches(tmp_path: Path, registry: Registry) -> None:
    body = ISOLATION.replace('game = "broken.xgl"', 'game = "boomstory.xgl"')
    path = fx.tournament_file(tmp_path, body)
    db = sqlite_url(tmp_path / "m.db")
    summary = await run(path, db, registry)
    assert (summary.status, summary.map_failures, summary.written) == ("incomplete", 3, 3)
    assert {m.game for m in stored(db, "iso")} == {"condense"}
    store = Store.open(db)
    try:
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT status FROM runs")).scalars().all() == ["incomplete"]
    finally:
        store.close()


def test_the_plugin_adds_run_and_matches_to_the_arena_command() -> None:
    import arena.tournaments.plugin
    from arena.plugins.plugin_manager import create_plugin_manager

    pm = create_plugin_manager()
    if not pm.is_registered(arena.tournaments.plugin):  # until pyproject declares the entry point
        pm.register_plugin(arena.tournaments.plugin, "builtin_tournaments")
    found = Registry.from_plugin_manager(pm)
    assert {"run", "matches"} <= set(found.command_names())
    assert not [f for f in found.failures() if f.name == "builtin_tournaments"]
