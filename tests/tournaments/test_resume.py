"""Resume after `kill -9`: a tournament killed at random moments, several times, then run
to completion, stores exactly the matches of an uninterrupted run with the same seeds (and
the same secret seed key, which a tournament keeps in its database)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.storage import Store, sqlite_url
from arena.storage.queries import match_events, stored_matches
from arena.tournaments.services.run_config import run_file
from tests.tournaments import arena_fixtures as fx

ROOT = Path(__file__).resolve().parents[2]

BODY = """
name = "resume"
judge = "ngram"
npc = "npc"
maps = 4
rounds = 2
seed = 11

[concurrency]
global = 4

[[participants]]
name = "npc"
player = "sleepy?words=2&delay=0.02"
npc_only = true

[[participants]]
name = "alpha"
player = "sleepy?words=3&delay=0.03"

[[participants]]
name = "beta"
player = "random?words=4"

[[participants]]
name = "gamma"
player = "scripted:the story|once upon a time"

[[games]]
game = "condense.xgl"

[[games]]
game = "duel.xgl"

[[games]]
game = "zerosum.xgl"
rounds = 1
"""


def child_command(path: Path, db_file: Path) -> list[str]:
    return [sys.executable, str(ROOT / "tests/tournaments/resume_child.py"), str(path), sqlite_url(db_file)]


def snapshot(db: str) -> dict[str, tuple[object, ...]]:
    """Every stored match, by key: status, seats, rounds and the full transcript."""
    store = Store.open(db)
    try:
        found = {}
        for m in stored_matches(store.engine, "resume"):
            seats = tuple((s.role, s.participant, s.main, s.best, s.forfeit, s.round_scores) for s in m.seats)
            events = tuple(e.model_dump_json() for e in match_events(store.engine, m.key))
            assert len(events) == m.event_count
            found[m.key] = (m.status, m.map_index, m.play_seed, seats, events)
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM matches")).scalar() == len(found)
            assert conn.execute(text("SELECT count(*) FROM events")).scalar() == sum(len(v[4]) for v in found.values())  # type: ignore[arg-type]
        return found
    finally:
        store.close()


def share_seed_key(reference_db: str, db_file: Path) -> None:
    """Give the tournament in `db_file` the reference's seed key, as if it were that
    database (the key, not the file, decides the seeds players receive)."""
    reference = Store.open(reference_db)
    try:
        with reference.engine.connect() as conn:
            key = conn.execute(text("SELECT seed_key FROM tournaments WHERE name = 'resume'")).scalar_one()
    finally:
        reference.close()
    store = Store.open(sqlite_url(db_file))
    try:
        store.ensure_tournament("resume", "eval", "{}")  # the run replaces mode and config
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE tournaments SET seed_key = :k WHERE name = 'resume'"), {"k": key})
    finally:
        store.close()


def stored_count(db_file: Path) -> int:
    if not db_file.exists():
        return 0
    store = Store.open(sqlite_url(db_file))
    try:
        with store.engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM matches")).scalar() or 0)
    finally:
        store.close()


@pytest.mark.slow
async def test_killed_runs_resume_to_exactly_the_uninterrupted_result(tmp_path: Path) -> None:
    path = fx.tournament_file(tmp_path, BODY)
    reference_db = sqlite_url(tmp_path / "reference.db")
    reference = await run_file(path, db=reference_db, registry=fx.registry())
    assert reference.written == reference.planned == 4 * 3 + 2 * (2 * 4 * 3)

    db_file = tmp_path / "killed.db"
    share_seed_key(reference_db, db_file)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = child_command(path, db_file)
    rng = random.Random(int(os.environ.get("RESUME_TEST_SEED", "0")) or None)
    counts = []
    for _ in range(3):
        before = stored_count(db_file)
        child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while child.poll() is None and stored_count(db_file) <= before and time.monotonic() < deadline:
            time.sleep(0.02)  # wait until this run stores something, then kill at a random moment
        time.sleep(rng.uniform(0.0, 0.3))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        counts.append(stored_count(db_file))
    print("stored after each kill:", counts, "of", reference.planned)
    assert counts[-1] < reference.planned, "every run finished before its kill; slow the players"
    assert counts == sorted(counts)

    final = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    assert snapshot(sqlite_url(db_file)) == snapshot(reference_db)


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_keeping_finished_matches(tmp_path: Path) -> None:
    body = BODY.replace("delay=0.03", "delay=0.3").replace("delay=0.02", "delay=0.2")
    path = fx.tournament_file(tmp_path, body)
    db_file = tmp_path / "interrupted.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(child_command(path, db_file), cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while child.poll() is None and stored_count(db_file) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert "Traceback" not in err
    store = Store.open(sqlite_url(db_file))
    try:
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT status FROM runs")).scalars().all() == ["interrupted"]
    finally:
        store.close()
    stored = snapshot(sqlite_url(db_file))  # checks every stored match is complete
    assert 3 <= len(stored) < 60
