"""Every database mistake is one sentence and exit 2, and nothing stored is touched: garbage
files, directories, missing or read-only folders, read-only databases (which still serve
every read and a re-run of a finished tournament without a single write), unknown URL
schemes, a missing PostgreSQL driver, and read commands pointed at a database that does not
exist (no empty file is left behind)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arena.errors import StorageError
from arena.storage import Store, sqlite_url

REPO = Path(__file__).resolve().parents[2]
GAME = "assign(s=story(20))\nelicit(black, t, 6)\nreward(black, xed(s | t))\n"
TOURNAMENT = """
name = "tiny"
judge = "ngram"
npc = "npc"
maps = 2

[[participants]]
name = "npc"
player = "random?words=2"
npc_only = true

[[participants]]
name = "alpha"
player = "random?words=3"

[[participants]]
name = "beta"
player = "random?words=5"

[[games]]
game = "g.xgl"
"""


def arena(*args: str, cwd: Path | None = None, python: str = "") -> subprocess.CompletedProcess[str]:
    """`arena ARGS` in a real subprocess (`python` runs first, e.g. to hide a module)."""
    code = f"{python}\nfrom arena.cli import main\nmain()"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("XENT_ARENA_DB", None)
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
        cwd=cwd, timeout=120,
    )


def assert_one_clear_error(done: subprocess.CompletedProcess[str], *phrases: str) -> None:
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output, output
    assert done.stderr.startswith("error: "), output
    for phrase in phrases:
        assert phrase in output, output


def fingerprint(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file of `folder`: content hash and modification time."""
    return {
        p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(folder.iterdir())
    }


@pytest.fixture
def writable_again(tmp_path: Path) -> Iterator[None]:
    yield
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def open_error(url: str, *, create: bool = True) -> str:
    with pytest.raises(StorageError) as caught:
        Store.open(url, create=create)
    message = str(caught.value)
    assert "\n" not in message, message
    return message


def test_a_garbage_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    garbage = os.urandom(8192)
    path.write_bytes(garbage)
    message = open_error(sqlite_url(path))
    assert str(path) in message and "not an arena database" in message
    assert open_error(str(path), create=False)  # a plain path is an SQLite file too
    assert path.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arena.db"]


def test_a_directory_is_not_a_database(tmp_path: Path) -> None:
    message = open_error(sqlite_url(tmp_path))
    assert "is a directory" in message and f"{tmp_path / 'arena.db'}" in message


def test_a_database_in_a_missing_folder_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "arena.db"
    message = open_error(sqlite_url(path))
    assert "does not exist" in message and f"mkdir -p {path.parent}" in message
    assert not (tmp_path / "no").exists()


def test_a_database_in_a_read_only_folder_is_not_created(
    tmp_path: Path, writable_again: None
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    message = open_error(sqlite_url(folder / "arena.db"))
    assert "not writable" in message and str(folder) in message
    assert list(folder.iterdir()) == []


def test_unknown_schemes_and_missing_drivers_name_the_fix() -> None:
    message = open_error("mysqlx://user@127.0.0.1/arena")
    assert "Unknown database URL scheme 'mysqlx'" in message and "sqlite:///" in message
    message = open_error("postgresql+pg8000://user@127.0.0.1/arena")
    assert "xent-arena[postgres]" in message and "postgresql+psycopg://" in message


def test_postgres_without_its_driver_installed_names_the_extra(tmp_path: Path) -> None:
    # The driver is installed here (CI installs every extra), so the child hides it the way
    # a missing package looks to Python: `import psycopg` raises ImportError.
    done = arena(
        "ratings", "-t", "x", "--db", "postgresql+psycopg://arena@127.0.0.1:5/arena",
        python="import sys; sys.modules['psycopg'] = None",
    )
    assert_one_clear_error(done, "xent-arena[postgres]", "psycopg")


def test_read_commands_never_create_a_database(tmp_path: Path) -> None:
    db = str(tmp_path / "typo.db")
    commands = [
        ("ratings", "-t", "tiny", "--db", db),
        ("matches", "--tournament", "tiny", "--db", db),
        ("export", "-t", "tiny", "--out", str(tmp_path / "out"), "--db", db),
        ("schedule", "list", "--db", db),
    ]
    with ThreadPoolExecutor(len(commands)) as pool:
        results = list(pool.map(lambda args: arena(*args), commands))
    for done in results:
        assert_one_clear_error(done, f"There is no arena database at {db}")
    assert list(tmp_path.iterdir()) == []
    empty = tmp_path / "empty.db"
    empty.touch()
    assert "holds no arena data" in open_error(str(empty), create=False)
    assert empty.stat().st_size == 0


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    """A folder holding a tournament file, its game, and a database where it is complete."""
    (tmp_path / "g.xgl").write_text(GAME)
    (tmp_path / "t.toml").write_text(TOURNAMENT)
    done = arena("run", "t.toml", "--db", "arena.db", "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "4 match(es) stored this run" in done.stdout
    return tmp_path


@pytest.mark.parametrize("lock", ["file", "folder"])
def test_a_read_only_database_serves_reads_and_is_never_written(
    finished: Path, lock: str, writable_again: None
) -> None:
    db = finished / "arena.db"
    if lock == "file":
        db.chmod(0o444)
    else:
        finished.chmod(0o555)
    before = fingerprint(finished)
    rerun = arena("run", "t.toml", "--db", "arena.db", "--no-progress", cwd=finished)
    assert rerun.returncode == 0, rerun.stderr
    assert "0 match(es) stored this run" in rerun.stdout and "4 already done" in rerun.stdout
    ratings = arena("ratings", "-t", "tiny", "--db", str(db))
    assert ratings.returncode == 0, ratings.stderr
    assert "alpha" in ratings.stdout and "beta" in ratings.stdout
    matches = arena("matches", "--tournament", "tiny", "--db", str(db))
    assert matches.returncode == 0 and len(matches.stdout.splitlines()) >= 4, matches.stderr
    assert fingerprint(finished) == before  # byte-identical, same mtimes, no -wal/-shm


def test_a_read_only_database_with_matches_to_play_is_refused_before_playing(
    finished: Path, writable_again: None
) -> None:
    (finished / "t.toml").write_text(TOURNAMENT.replace("maps = 2", "maps = 3"))
    db = finished / "arena.db"
    db.chmod(0o444)
    before = fingerprint(finished)
    done = arena("run", "t.toml", "--db", "arena.db", "--no-progress", cwd=finished)
    assert_one_clear_error(done, "read-only", "2 match(es) of tournament 'tiny'", str(db))
    assert fingerprint(finished) == before


def test_commands_that_write_refuse_a_read_only_database_in_one_sentence(
    finished: Path, writable_again: None
) -> None:
    db = finished / "arena.db"
    db.chmod(0o444)
    before = fingerprint(finished)
    (finished / "results.csv").write_text(
        "game,participant_a,score_a,participant_b,score_b\ng,x,1.0,y,0.5\n"
    )
    commands = [
        ("schedule", "add", "t.toml", "--every", "3600", "--db", str(db)),
        ("import", "results.csv", "-t", "external", "--db", str(db)),
    ]
    with ThreadPoolExecutor(len(commands)) as pool:
        results = list(pool.map(lambda args: arena(*args, cwd=finished), commands))
    for done in results:
        assert_one_clear_error(done, "read-only", str(db))
    after = fingerprint(finished)
    del after["results.csv"]
    assert after == before


def test_an_unusable_default_location_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder should be")
    monkeypatch.delenv("XENT_ARENA_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    message = open_error("", create=False)  # "" means: the default database
    assert "default database" in message and "--db" in message
    assert blocker.read_text() == "a file where the data folder should be"
