"""Storage: schema versions and migrations, SQLite setup, atomic idempotent match writes,
and concurrent writers (tasks in one process, and two processes on one file)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection

from arena import events as ev
from arena.storage import (
    CURRENT_VERSION,
    DB_ENV,
    MATCH_DONE,
    MATCH_ERROR,
    FinishedMatch,
    GameInfo,
    JudgeProvenance,
    MatchWriter,
    ParticipantInfo,
    SeatResult,
    StorageError,
    Store,
    create_db_engine,
    default_db_url,
    migrate,
    sqlite_url,
)
from arena.storage.migrations import schema_version
from arena.storage.queries import match_counts, match_events, stored_matches

ROOT = Path(__file__).resolve().parents[2]


def make_ids(store: Store) -> dict[str, int]:
    """Identity rows every match needs (get-or-create, so safe to call repeatedly)."""
    tournament = store.ensure_tournament("t", "eval", "{}")
    ids = {
        "tournament": tournament,
        "alice": store.ensure_participant(ParticipantInfo("alice", "random?words=2", "builtin_players", "0.1", "", {"words": "2"})),
        "npc": store.ensure_participant(ParticipantInfo("npc", "random")),
        "game": store.ensure_game(GameInfo("duel", "1", "xgl", "abc", "elicit(alice, t, 5)\n", "duel.xgl")),
        "judge": store.ensure_judge(JudgeProvenance("ngram", "ngram", "char-ngram-5", "rev", "float64", 98)),
        "run": store.start_run(tournament, planned=1, pending=1, config_sha256="x", version="0"),
    }
    ids["map"] = store.ensure_map(ids["game"], 42, "judge:ngram", {"1:9": "a story"})[0]
    return ids


def match(ids: dict[str, int], key: str, *, status: str = MATCH_DONE, best: float = 1.5) -> FinishedMatch:
    events: list[ev.Event] = [
        ev.RoundStarted(round=1, line=0),
        ev.ElicitRequest(round=1, line=1, player="alice", registers={}, targets=["t"], max_len=5),
        ev.ElicitResponse(round=1, line=1, player="alice", values={"t": "hello"}, cut=False),
        ev.RoundFinished(round=1, line=0, scores={"alice": best, "bob": -best}),
    ]
    now = datetime.now(UTC)
    return FinishedMatch(
        key=key, tournament_id=ids["tournament"], run_id=ids["run"], game_id=ids["game"],
        map_id=ids["map"], judge_id=ids["judge"], map_index=0, play_seed=7, mode="eval",
        main_role="alice", rounds=1, dialect="xgl", status=status,
        error=None if status == MATCH_DONE else "boom", started_at=now, finished_at=now,
        seats=(
            SeatResult("alice", ids["alice"], True, best, False, (best,)),
            SeatResult("bob", ids["npc"], False, -best, False, (-best,)),
        ),
        events=events,
    )


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(sqlite_url(tmp_path / "arena.db"))
    yield opened  # type: ignore[misc]
    opened.close()


def test_a_new_database_is_created_at_the_current_version(tmp_path: Path) -> None:
    engine = create_db_engine(sqlite_url(tmp_path / "new.db"))
    assert migrate(engine) == 0
    assert migrate(engine) == CURRENT_VERSION  # second call: nothing to do
    with engine.connect() as conn:
        assert schema_version(conn) == CURRENT_VERSION


def test_sqlite_runs_in_wal_with_busy_timeout_and_foreign_keys(store: Store) -> None:
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert int(conn.execute(text("PRAGMA busy_timeout")).scalar() or 0) >= 10_000
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_an_older_schema_is_upgraded_step_by_step_keeping_data(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "old.db")
    old = Store.open(url)
    ids = make_ids(old)
    old.save_matches([match(ids, "k1")])
    old.close()

    applied: list[int] = []
    now = CURRENT_VERSION  # two hypothetical future steps on top of today's schema

    def to_next(conn: Connection) -> None:
        applied.append(now + 1)
        conn.execute(text("ALTER TABLE matches ADD COLUMN note TEXT DEFAULT ''"))
        conn.execute(text("UPDATE matches SET note = 'migrated'"))

    def to_after(conn: Connection) -> None:
        applied.append(now + 2)
        conn.execute(text("CREATE INDEX ix_matches_note ON matches (note)"))

    engine = create_db_engine(url)
    steps = {now + 1: to_next, now + 2: to_after}
    assert migrate(engine, migrations=steps, target=now + 2) == now
    assert migrate(engine, migrations=steps, target=now + 2) == now + 2
    assert applied == [now + 1, now + 2]
    with engine.connect() as conn:
        assert schema_version(conn) == now + 2
        assert conn.execute(text("SELECT key, note FROM matches")).all() == [("k1", "migrated")]
    with pytest.raises(StorageError, match="newer than this arena"):
        migrate(engine)  # this code only knows CURRENT_VERSION


def test_the_default_database_is_in_the_user_data_dir_or_the_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(DB_ENV, "sqlite:///" + str(tmp_path / "env.db"))
    assert default_db_url().endswith("env.db")
    monkeypatch.delenv(DB_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = default_db_url()
    assert url.startswith("sqlite:///") and url.endswith("arena.db") and "xent-arena" in url


def test_a_match_round_trips_with_seats_rounds_and_events(store: Store) -> None:
    ids = make_ids(store)
    original = match(ids, "key-1")
    assert store.save_matches([original]) == [True]
    (stored,) = stored_matches(store.engine, "t")
    assert (stored.key, stored.status, stored.event_count) == ("key-1", MATCH_DONE, 4)
    assert (stored.game, stored.game_version, stored.code_sha256, stored.map_seed) == ("duel", "1", "abc", 42)
    assert (stored.judge_model, stored.judge_revision, stored.judge_dtype) == ("char-ngram-5", "rev", "float64")
    assert [(s.role, s.participant, s.main, s.best, s.round_scores) for s in stored.seats] == [
        ("alice", "alice", True, 1.5, (1.5,)),
        ("bob", "npc", False, -1.5, (-1.5,)),
    ]
    assert match_events(store.engine, "key-1") == list(original.events)
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT number, scores_json FROM rounds")).all() == [
            (1, '{"alice": 1.5, "bob": -1.5}')
        ]


def test_writes_are_idempotent_and_an_error_is_replaced_by_a_result(store: Store) -> None:
    ids = make_ids(store)
    assert store.save_matches([match(ids, "k", status=MATCH_ERROR)]) == [True]
    assert match_counts(store.engine, "t") == {MATCH_ERROR: 1}
    assert store.save_matches([match(ids, "k")]) == [True]
    assert store.save_matches([match(ids, "k", best=9.0)]) == [False]  # done: kept as is
    (stored,) = stored_matches(store.engine, "t")
    assert stored.status == MATCH_DONE and stored.seats[0].best == 1.5
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM events")).scalar() == 4
        assert conn.execute(text("SELECT count(*) FROM seats")).scalar() == 2
    assert store.done_keys(ids["tournament"]) == {"k"}


def test_a_failing_batch_rolls_back_whole_matches_only(store: Store) -> None:
    ids = make_ids(store)
    bad = match(ids, "bad")
    bad = FinishedMatch(**{**bad.__dict__, "game_id": 999})  # violates a foreign key
    with pytest.raises(Exception):  # noqa: B017 - any integrity error
        store.save_matches([match(ids, "good"), bad])
    assert stored_matches(store.engine, "t") == []  # nothing half-written
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM events")).scalar() == 0


async def test_the_writer_stores_a_bad_record_as_an_error_and_the_rest_normally(store: Store) -> None:
    ids = make_ids(store)
    bad = FinishedMatch(**{**match(ids, "bad").__dict__, "events": [object()]})  # not an event
    async with MatchWriter(store) as writer:
        writer.submit(match(ids, "good"))
        writer.submit(bad)  # type: ignore[arg-type]
    found = {m.key: m for m in stored_matches(store.engine, "t")}
    assert found["good"].status == MATCH_DONE
    assert found["bad"].status == MATCH_ERROR and "storing the match failed" in (found["bad"].error or "")



async def test_a_match_stored_as_an_error_is_reported_as_one(store: Store) -> None:
    # issue 24 item 5: a match that could not be stored (a lone surrogate in a move) was
    # stored as an error while the run's summary, fed by on_written, said "0 error(s)".
    ids = make_ids(store)
    unstorable = match(ids, "bad")
    unstorable.events[2] = ev.ElicitResponse(  # type: ignore[index]
        round=1, line=1, player="alice", values={"t": "a\ud800b"}, cut=False
    )
    reported: dict[str, str] = {}
    async with MatchWriter(
        store, on_written=lambda m, ok: reported.setdefault(m.key, m.status)
    ) as writer:
        writer.submit(match(ids, "good"))
        writer.submit(unstorable)
    assert reported == {"good": MATCH_DONE, "bad": MATCH_ERROR}
    found = {m.key: m for m in stored_matches(store.engine, "t")}
    assert found["bad"].status == MATCH_ERROR and "surrogate" in (found["bad"].error or "")


def test_the_first_stored_map_wins(store: Store) -> None:
    ids = make_ids(store)
    again = store.ensure_map(ids["game"], 42, "judge:ngram", {"1:9": "another text"})
    assert again == (ids["map"], {"1:9": "a story"})
    assert store.find_map(ids["game"], 42, "judge:ngram") == again
    assert store.find_map(ids["game"], 43, "judge:ngram") is None


async def test_many_concurrent_matches_share_one_writer_while_others_read(store: Store) -> None:
    ids = make_ids(store)
    stop = threading.Event()
    reads: list[int] = []

    def reader() -> None:
        while not stop.is_set():
            reads.append(sum(match_counts(store.engine, "t").values()))

    thread = threading.Thread(target=reader)
    thread.start()
    stored: list[str] = []
    try:
        async with MatchWriter(store, max_batch=16, on_written=lambda m, ok: stored.append(m.key)) as writer:

            async def one(i: int) -> None:
                await asyncio.sleep(0.001 * (i % 7))
                writer.submit(match(ids, f"m{i}"))

            async with asyncio.TaskGroup() as group:
                for i in range(300):
                    group.create_task(one(i))
    finally:
        stop.set()
        thread.join()
    assert sorted(stored) == sorted(f"m{i}" for i in range(300))
    assert writer.written == 300 and writer.transactions < 300  # batched
    assert match_counts(store.engine, "t") == {MATCH_DONE: 300}
    assert reads and max(reads) <= 300


CHILD = """
import sys
from tests.tournaments.test_storage import make_ids, match
from arena.storage import Store
store = Store.open(sys.argv[1])
ids = make_ids(store)
written = 0
for i in range(int(sys.argv[3])):
    key = f"shared{i}" if i % 3 == 0 else f"{sys.argv[2]}-{i}"
    written += sum(store.save_matches([match(ids, key)]))
    store.done_keys(ids["tournament"])
print(written)
"""


def test_two_processes_write_one_sqlite_file_without_locking_errors(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "shared.db")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, url, name, "150"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for name in ("one", "two")
    ]
    outputs = [child.communicate(timeout=240) for child in children]
    for child, (_out, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0, err
        assert "locked" not in err
    written = sum(int(out.strip()) for out, _ in outputs)
    store = Store.open(url)
    try:
        keys = [m.key for m in stored_matches(store.engine, "t")]
        assert len(keys) == len(set(keys)) == written == 50 + 2 * 100
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM participants")).scalar() == 2
            assert conn.execute(text("SELECT count(*) FROM maps")).scalar() == 1
            assert conn.execute(text("SELECT count(*) FROM events")).scalar() == 4 * written
    finally:
        store.close()


def test_rating_snapshots_and_schedules_round_trip(store: Store) -> None:
    from datetime import timedelta

    from arena.storage.schedules import delete_schedule, mark_schedule_run, save_schedule, schedules
    from arena.storage.snapshots import rating_snapshots, save_rating_snapshot

    ids = make_ids(store)
    save_rating_snapshot(store.engine, ids["tournament"], "bradley_terry", {"alice": 1012.5})
    save_rating_snapshot(store.engine, None, "elo", {"alice": 1000})
    latest = rating_snapshots(store.engine, "t")
    assert [(s.tournament, s.method, dict(s.payload)) for s in latest] == [("t", "bradley_terry", {"alice": 1012.5})]
    assert [s.method for s in rating_snapshots(store.engine)] == ["elo", "bradley_terry"]

    save_schedule(store.engine, "nightly", "0 3 * * *", "demo.toml", {"concurrency": 4})
    now = datetime.now(UTC).replace(microsecond=0)
    mark_schedule_run(store.engine, "nightly", now, now + timedelta(days=1))
    save_schedule(store.engine, "nightly", "0 4 * * *", "demo.toml", enabled=False)
    (found,) = schedules(store.engine)
    assert (found.cron, found.enabled, dict(found.args)) == ("0 4 * * *", False, {})
    assert found.last_run_at is not None and found.last_run_at.replace(tzinfo=UTC) == now
    assert delete_schedule(store.engine, "nightly") and schedules(store.engine) == []
