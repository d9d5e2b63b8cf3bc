"""Runs end honestly: SIGTERM stops `arena run` like Ctrl-C (finished matches kept, the run
marked interrupted, one line said), and a run left `running` by `kill -9` is marked
interrupted by the next process that opens the tournament. Real subprocesses, real signals.

The tournament has a fast participant and one whose seat waits for a remote agent that
never connects, so the run is reliably still going, with finished matches, when stopped.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.plugins.registry import Registry
from arena.storage import Store, sqlite_url
from arena.storage import tables as t
from arena.storage.abandoned_runs import interrupt_abandoned_runs
from arena.storage.live import RunProgress, write_live
from arena.tournaments.cli.run import INTERRUPTED
from arena.tournaments.services.run_config import run_file

REPO = Path(__file__).resolve().parents[2]
GAME = "assign(s=story(20))\nelicit(black, t, 6)\nreward(black, xed(s | t))\n"
WAITER = """
[[participants]]
name = "waiter"
player = "remote:nobody?port=0&timeout=600"
"""
TOURNAMENT = """
name = "stoppable"
judge = "ngram"
maps = 3

[concurrency]
global = 8

[[participants]]
name = "fast"
player = "random?words=3"

[[games]]
game = "g.xgl"
"""


def ignore_sigint() -> None:
    """What a shell script's `cmd &` does to its background job."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def start_run(folder: Path, *, sigint_ignored: bool = False) -> subprocess.Popen[str]:
    (folder / "g.xgl").write_text(GAME)
    (folder / "t.toml").write_text(TOURNAMENT + WAITER)
    env = {**os.environ, "PYTHONPATH": str(REPO), "ARENA_REMOTE_TOKEN": "test-token"}
    command = [sys.executable, "-c", "from arena.cli import main; main()", "run", "t.toml",
               "--db", "arena.db", "--no-progress"]
    return subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=ignore_sigint if sigint_ignored else None)


def rows(db: Path, query: str) -> list[tuple[object, ...]]:
    if not db.exists():
        return []
    with sqlite3.connect(db, timeout=30) as conn:
        try:
            return conn.execute(query).fetchall()
        except sqlite3.OperationalError:  # the tables are not there yet
            return []


def wait_for_fast_matches(child: subprocess.Popen[str], db: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        if rows(db, "SELECT count(*) FROM matches") == [(3,)]:
            return
        time.sleep(0.1)
    child.kill()
    raise AssertionError(f"the fast matches were never stored: {child.communicate()}")


@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["sigint-default", "sigint-ignored"])
async def test_sigterm_stops_a_run_like_ctrl_c(tmp_path: Path, sigint_ignored: bool) -> None:
    # With SIGINT ignored (`arena run ... &` in a script) SIGTERM used to be ignored too:
    # the run went on to the end (issue 24 item 9).
    child = start_run(tmp_path, sigint_ignored=sigint_ignored)
    db = tmp_path / "arena.db"
    wait_for_fast_matches(child, db)
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, (out, err)
    assert "Traceback" not in err and err.count(INTERRUPTED) == 1, err
    assert err.strip().splitlines()[-1] == INTERRUPTED, err  # after the waiting remote seat
    assert rows(db, "SELECT status FROM runs") == [("interrupted",)]
    assert rows(db, "SELECT status, count(*) FROM matches GROUP BY status") == [("done", 3)]
    before = rows(db, "SELECT key, status, play_seed, event_count, run_id FROM matches ORDER BY key")

    (tmp_path / "t.toml").write_text(TOURNAMENT)  # resume, without the seat that never plays
    summary = await run_file(tmp_path / "t.toml", db=sqlite_url(db), registry=Registry.load())
    assert (summary.status, summary.written, summary.already_done) == ("done", 0, 3)
    assert rows(db, "SELECT id, status FROM runs ORDER BY id") == [(1, "interrupted"), (2, "done")]
    assert rows(db, "SELECT key, status, play_seed, event_count, run_id FROM matches ORDER BY key") == before


def test_sigterm_stops_any_command_like_ctrl_c(tmp_path: Path) -> None:
    (tmp_path / "g.xgl").write_text(GAME)
    env = {**os.environ, "PYTHONPATH": str(REPO), "ARENA_REMOTE_TOKEN": "test-token"}
    child = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import main; main()", "play", "g.xgl",
         "--judge", "ngram", "--player", "black=remote:nobody?port=0&timeout=600"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert child.stderr is not None
    waiting = child.stderr.readline()  # the seat waits for an agent that never comes
    assert "waiting for remote agent" in waiting, waiting
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, (out, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


async def test_a_run_killed_by_sigkill_is_marked_interrupted_by_the_next_process(
    tmp_path: Path,
) -> None:
    child = start_run(tmp_path)
    db = tmp_path / "arena.db"
    wait_for_fast_matches(child, db)
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=60)
    assert rows(db, "SELECT id, status FROM runs") == [(1, "running")]  # nobody said otherwise

    (tmp_path / "t.toml").write_text(TOURNAMENT)  # the next process: without the waiter
    summary = await run_file(tmp_path / "t.toml", db=sqlite_url(db), registry=Registry.load())
    assert summary.abandoned_runs == (1,)
    assert (summary.status, summary.written, summary.already_done) == ("done", 0, 3)
    assert rows(db, "SELECT id, status FROM runs ORDER BY id") == [(1, "interrupted"), (2, "done")]
    assert rows(db, "SELECT count(*) FROM live_matches WHERE run_id = 1") == [(0,)]


def test_only_runs_whose_process_is_gone_are_marked(tmp_path: Path) -> None:
    store = Store.open(sqlite_url(tmp_path / "arena.db"))
    tournament = store.ensure_tournament("t", "eval", "{}")
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        now = t.utcnow()
        runs: dict[str, tuple[int, str]] = {}
        for name, host, pid, beat_age, expected in [
            ("dead pid here", None, 2**22 + 12345, 0, "interrupted"),  # no such process
            ("live pid here", None, live.pid, 5, "running"),
            ("live pid, silent for an hour (reused)", None, live.pid, 3600, "interrupted"),
            ("this process", None, os.getpid(), 3600, "running"),
            ("elsewhere, beating", "other-host", 1, 5, "running"),
            ("elsewhere, silent", "other-host", 1, 3600, "interrupted"),
        ]:
            run_id = store.start_run(tournament, planned=1, pending=1, config_sha256="x", version="0")
            runs[name] = (run_id, expected)
            with store.engine.begin() as conn:
                if host is not None:
                    conn.execute(text("UPDATE runs SET host = :h WHERE id = :i"), {"h": host, "i": run_id})
                conn.execute(text("UPDATE runs SET pid = :p WHERE id = :i"), {"p": pid, "i": run_id})
            write_live(store.engine, RunProgress(run_id, tournament, "running", 1, 0))
            with store.engine.begin() as conn:
                conn.execute(
                    text("UPDATE live_runs SET updated_at = :u WHERE run_id = :i"),
                    {"u": now - timedelta(seconds=beat_age), "i": run_id},
                )
        marked = interrupt_abandoned_runs(store.engine, tournament, now=now)
        assert sorted(marked) == sorted(i for i, e in runs.values() if e == "interrupted")
        with store.engine.connect() as conn:
            status = dict(conn.execute(text("SELECT id, status FROM runs")).all())
            beats = dict(conn.execute(text("SELECT run_id, status FROM live_runs")).all())
        for name, (run_id, expected) in runs.items():
            assert status[run_id] == beats[run_id] == expected, name
        assert interrupt_abandoned_runs(store.engine, tournament, now=now) == []
    finally:
        live.kill()
        live.wait()
        store.close()


@pytest.fixture(autouse=True)
def _no_default_db(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XENT_ARENA_DB", raising=False)
