"""Killing the Ray node agent (raylet) under `arena run --executor ray` (issue 24 item 16):
Ray's C++ core ends the driver at once with exit 1, which used to print nothing. Now one
sentence says what happened and how to resume, naming the crash log the arena writes for
internal errors, and the same command (here on the local executor) finishes the run with
every match stored once. Real `arena run`, a real local Ray, a real SIGKILL."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
GAME = "assign(s=story(20))\nelicit(black, t, 6)\nreward(black, xed(s | t))\n"
MAPS = 150
TOURNAMENT = f"""
name = "raylet-death"
judge = "ngram"
maps = {MAPS}
executor = "ray"

[concurrency]
global = 2

[ray]
judges = 1
judge_gpus = 0

[[participants]]
name = "three"
player = "random?words=3"

[[games]]
game = "g.xgl"
"""


def stored(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=30) as conn:
            return int(conn.execute("SELECT count(*) FROM matches").fetchone()[0])
    except sqlite3.Error:
        return 0


def arena_run(folder: Path, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XENT_ARENA_LOG_DIR": str(folder / "logs")}
    return subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import main; main()", "run", "t.toml", "--db",
         "arena.db", "--no-progress", *extra],
        cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # its Ray processes are found by session, and all cleaned up
    )


def test_a_dead_raylet_is_one_sentence_a_crash_log_and_a_resumable_run(tmp_path: Path) -> None:
    (tmp_path / "g.xgl").write_text(GAME)
    (tmp_path / "t.toml").write_text(TOURNAMENT)
    db = tmp_path / "arena.db"
    child = arena_run(tmp_path)
    try:
        deadline = time.monotonic() + 300
        while stored(db) < 3 and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        assert child.poll() is None and stored(db) >= 3, child.communicate(timeout=60)
        raylets = subprocess.run(
            ["pgrep", "-s", str(child.pid), "-f", "raylet"], capture_output=True, text=True
        ).stdout.split()
        assert raylets, "no raylet in the run's session"
        for pid in raylets:
            os.kill(int(pid), signal.SIGKILL)
        _, err = child.communicate(timeout=180)
    finally:
        if child.poll() is None:
            child.kill()
        subprocess.run(["pkill", "-9", "-s", str(child.pid)], check=False)  # Ray's leftovers
    assert child.returncode == 1, err
    lines = [line for line in err.splitlines() if line.startswith("error: Ray's node agent")]
    assert len(lines) == 1, err
    assert "run the same command to resume" in lines[0] and "Traceback" not in err
    logs = list((tmp_path / "logs").glob("crash-*.log"))
    assert len(logs) == 1 and str(logs[0]) in lines[0], (logs, lines)
    assert "RayNodeLost" in logs[0].read_text() and "raylet" in logs[0].read_text()
    before = stored(db)
    assert 3 <= before < MAPS
    with sqlite3.connect(db) as conn:  # a match cut off by the death may be stored as error
        done = conn.execute("SELECT count(*) FROM matches WHERE status = 'done'").fetchone()[0]

    resumed = arena_run(tmp_path, "--executor", "local")
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, (out, err)
    assert f"{MAPS - done} match(es) stored this run" in out and f"{done} already done" in out
    with sqlite3.connect(db) as conn:
        assert conn.execute(
            "SELECT count(*), count(DISTINCT key) FROM matches WHERE status = 'done'"
        ).fetchone() == (MAPS, MAPS)
        assert conn.execute("SELECT status FROM runs ORDER BY id").fetchall() == [
            ("interrupted",), ("done",),
        ]
