"""`--db 'sqlite:///FILE?mode=ro'` (issue 29 item 13): SQLAlchemy printed an SAWarning
without --verbose ("Query string argument(s) 'mode' are not accepted by the pysqlite
driver") and the file was not opened read-only at all. Now the URL opens it read-only,
silently."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from arena.storage import Store
from arena.tournaments.services.exchange.importers import import_file

REPO = Path(__file__).resolve().parents[2]


def test_a_read_only_url_reads_without_a_warning_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    results = tmp_path / "r.csv"
    results.write_text("game,participant_a,score_a,participant_b,score_b\nduel,a,1,b,0\n")
    store = Store.open(f"sqlite:///{db}", create=True)
    import_file(store, results, "ext")
    store.close()
    before = db.read_bytes()  # (SQLite may add its WAL index beside a WAL database)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path]),
           "XENT_ARENA_LOG_DIR": str(tmp_path / "logs")}
    url = f"sqlite:///{db}?mode=ro"
    read = subprocess.run(
        [sys.executable, "-m", "arena.cli", "ratings", "-t", "ext", "--db", url],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert read.returncode == 0, read.stderr
    assert "Leaderboard of ext" in read.stdout
    assert "Warning" not in read.stderr and read.stderr == "", read.stderr
    write = subprocess.run(
        [sys.executable, "-m", "arena.cli", "import", str(results), "-t", "other", "--db", url],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert write.returncode == 2 and "read-only" in write.stderr, write.stderr
    assert "Warning" not in write.stderr
    assert db.read_bytes() == before
