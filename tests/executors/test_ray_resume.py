"""Kill -9 of a Ray driver mid-run, then a new driver: exactly the matches and scores of
an uninterrupted run (the local executor's, with the same seed key)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.storage import sqlite_url
from arena.tournaments.services.run_config import run_file
from tests.executors import ray_fixtures as rf
from tests.tournaments import arena_fixtures as fx
from tests.tournaments.test_resume import BODY, snapshot, stored_count

ROOT = Path(__file__).resolve().parents[2]
SLOWER = BODY.replace("delay=0.03", "delay=0.3").replace("maps = 4", "maps = 2")

pytestmark = pytest.mark.timeout(420)


async def test_a_killed_ray_driver_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    path = fx.tournament_file(tmp_path, SLOWER)
    reference_db = sqlite_url(tmp_path / "reference.db")
    reference = await run_file(path, db=reference_db, registry=rf.registry())
    db_file = tmp_path / "killed.db"
    rf.share_seed_key(reference_db, sqlite_url(db_file), "resume")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        str(ROOT / "tests/executors/ray_driver_child.py"),
        str(path),
        sqlite_url(db_file),
    ]
    child = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 180
    while child.poll() is None and stored_count(db_file) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    killed_at = stored_count(db_file)
    assert 0 < killed_at < reference.planned, "the driver finished before its kill"

    final = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    status, written = final.stdout.split()[-2:]
    assert (status, int(written)) == ("done", reference.planned - killed_at)
    assert snapshot(sqlite_url(db_file)) == snapshot(reference_db)
