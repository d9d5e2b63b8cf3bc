"""An SQLite database file, checked before SQLite touches it.

SQLite's own errors ("unable to open database file", "file is not a database") say
neither which path nor what to do, and opening a file read-write can change it even when
the command only reads. So the path is inspected first:

- a directory, a missing parent directory, a directory we may not write into, a file that
  is not an SQLite database: one sentence naming the path and the fix;
- a file that does not exist yet is created only by commands that write
  (`create=True`); read commands say there is no database instead of leaving an empty one;
- a read-only file (no write permission, or no write bit in its mode, which counts even
  for root) or a file in a read-only directory is opened read-only (`mode=ro`, plus
  `immutable=1` when its write-ahead log is empty), so nothing in or next to it changes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from urllib.parse import quote

from arena.errors import StorageError

SQLITE_HEADER = b"SQLite format 3\x00"


def _writable(path: Path) -> bool:
    """Writable by us, and meant to be: a mode without any write bit counts as read-only
    even for root, who could write it anyway."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return bool(stat.S_IMODE(mode) & 0o222) and os.access(path, os.W_OK)


def _check_header(path: Path) -> None:
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except PermissionError:
        raise StorageError(
            f"The database file {path} cannot be read: permission denied. Fix its "
            f"permissions (chmod u+r {path}) or choose another file with --db."
        ) from None
    except OSError as error:
        raise StorageError(
            f"The database file {path} cannot be read: {error.strerror}. Choose another "
            "file with --db."
        ) from None
    if head and head != SQLITE_HEADER:
        raise StorageError(
            f"{path} is not an arena database (it is not an SQLite file). Nothing was "
            "written to it; choose another file with --db, or move this one away."
        )


def _check_new(path: Path) -> None:
    parent = path.parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise StorageError(
            f"Cannot create the database {path}: the folder {parent} {what}. Create it "
            f"(mkdir -p {parent}) or choose another path with --db."
        )
    if not _writable(parent):
        raise StorageError(
            f"Cannot create the database {path}: the folder {parent} is not writable. "
            "Choose a path in a folder you can write to with --db."
        )


def sqlite_connect_target(
    database: str, *, create: bool, read_only: bool = False
) -> tuple[str, dict[str, str]]:
    """What pysqlite should open for the file `database`: the plain path and no URI
    options, or a `file:` URI and its options (`mode=ro`, `immutable=1`) for a read-only
    file, or when `read_only` asks for it (the URL's `?mode=ro`). Raises `StorageError` for
    every path SQLite could not use (see the module docstring)."""
    path = Path(database).expanduser()
    create = create and not read_only  # a database opened read-only is never created
    if path.is_dir():
        raise StorageError(
            f"The database path {path} is a directory, not a file. Give a file in it, "
            f"e.g. --db sqlite:///{path / 'arena.db'}."
        )
    if not path.exists():
        if not create:
            raise StorageError(
                f"There is no arena database at {path}. Run a tournament into it first "
                "(arena run FILE --db ...), or point --db (or $XENT_ARENA_DB) at an "
                "existing database."
            )
        _check_new(path)
        return str(path), {}
    _check_header(path)
    if not create and path.stat().st_size == 0:  # SQLite would write its header into it
        raise StorageError(
            f"The database {path} is empty: it holds no arena data yet. Run a tournament "
            "into it first (arena run FILE --db ...), or point --db at the right database."
        )
    folder_writable = _writable(path.parent)
    if _writable(path) and folder_writable and not read_only:
        return str(path), {}
    options = {"uri": "true", "mode": "ro"}
    wal = Path(f"{path}-wal")
    # immutable only where nobody may write: a file read with ?mode=ro may be live
    if (not _writable(path) or not folder_writable) and (
        not wal.exists() or wal.stat().st_size == 0
    ):
        # Nothing waits in the write-ahead log and nobody may write the file: reading it
        # as immutable needs no WAL index, so no -shm/-wal file is left next to it.
        options["immutable"] = "1"
    return f"file:{quote(str(path.resolve()))}", options
