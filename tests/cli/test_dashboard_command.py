"""`arena dashboard`: every reason it cannot start is one sentence and exit 2, checked
before any server starts (starting it for real is tests/browser)."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

from arena.storage import Store, sqlite_url
from arena.storage.migrations import CURRENT_VERSION

ROOT = Path(__file__).resolve().parents[2]
HIDE_STREAMLIT = "import sys; sys.modules['streamlit'] = None; "


def arena(*args: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    code = prelude + "from arena.cli import main; main(sys.argv[1:])"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", "import sys; " + code, *args], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=120,
    )


def refused(done: subprocess.CompletedProcess[str], *phrases: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    for phrase in phrases:
        assert phrase in done.stderr, done.stderr


def test_missing_streamlit_names_the_extra(tmp_path: Path) -> None:
    done = arena("dashboard", "--db", sqlite_url(tmp_path / "a.db"), prelude=HIDE_STREAMLIT)
    refused(done, "needs Streamlit", "pip install 'xent-arena[dashboard]'")


def test_a_missing_database_is_not_created(tmp_path: Path) -> None:
    refused(arena("dashboard", "--db", sqlite_url(tmp_path / "none.db")), "No arena database at", "arena demo")
    assert not (tmp_path / "none.db").exists()


def test_a_busy_port_and_an_older_schema_upgraded_on_request(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    Store.open(sqlite_url(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE live_runs")
        conn.execute("UPDATE schema_version SET version = 3")
    refused(arena("dashboard", "--db", sqlite_url(path)), "older than this arena's", "--upgrade")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        done = arena("dashboard", "--db", sqlite_url(path), "--port", port, "--upgrade")
    refused(done, f"Cannot listen on 127.0.0.1:{port}", "--port")
    with sqlite3.connect(path) as conn:  # --upgrade migrated it before the port was tried
        assert conn.execute("SELECT version FROM schema_version").fetchone() == (CURRENT_VERSION,)
