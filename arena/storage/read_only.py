"""Opening an arena database read-only, for viewers such as the dashboard.

Nothing a viewer does can change the database or its schema:

- SQLite is opened as the URI ``file:PATH?mode=ro`` (a missing file is an error, never an
  empty new database; a database being written by a running tournament is read through
  WAL, so readers never block the writer);
- PostgreSQL sessions start with ``default_transaction_read_only`` on and every
  transaction is read-only (the dialect's ``postgresql_readonly`` execution option), so the
  server itself refuses a write by mistake. (SQL sent on purpose could lift this; where the
  viewer is not trusted, give it a database role with SELECT only.)

The schema is checked, never migrated: a file that is not an arena database, or one at
another schema version, is refused with a sentence saying what to do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL
from sqlalchemy.exc import SQLAlchemyError

from arena.storage.engine import BUSY_TIMEOUT_MS, StorageError, parse_db_url
from arena.storage.migrations import CURRENT_VERSION, schema_version
from arena.storage.sqlite_file import SQLITE_HEADER


def open_read_only(url: str | None = None) -> Engine:
    """A read-only engine on the arena database at `url` (default: `default_db_url()`),
    with its schema checked; `StorageError` with the fix when it cannot be used."""
    parsed = parse_db_url(url)
    engine = _sqlite(parsed) if parsed.get_backend_name() == "sqlite" else _server(parsed)
    try:
        check_schema(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine


def _sqlite(parsed: URL) -> Engine:
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        raise StorageError(
            f"'{parsed}' is not a database file: the dashboard reads an existing file, e.g. "
            "sqlite:///path/to/arena.db."
        )
    path = Path(database).expanduser().resolve()
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise StorageError(
            f"No arena database at {path}: the file {what}. Pass the file a tournament was "
            "run into with --db (or set XENT_ARENA_DB), or create one with `arena demo` "
            "(the default database; `arena demo --db URL` for another)."
        )
    with path.open("rb") as handle:
        head = handle.read(len(SQLITE_HEADER))
    if head != SQLITE_HEADER:
        raise StorageError(
            f"{path} is not an arena database (it is not an SQLite file). Pass the file a "
            "tournament was run into with --db."
        )
    target = URL.create(
        "sqlite", database=f"file:{quote(str(path))}", query={"mode": "ro", "uri": "true"}
    )
    engine = create_engine(target, connect_args={"check_same_thread": False, "timeout": 60})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA query_only=ON")
        cursor.close()

    return engine


def _server(parsed: URL) -> Engine:
    connect_args: dict[str, Any] = {}
    if parsed.get_backend_name() == "postgresql":
        connect_args["options"] = "-c default_transaction_read_only=on"
    try:
        return create_engine(
            parsed,
            pool_pre_ping=True,
            connect_args=connect_args,
            execution_options={"postgresql_readonly": True},
        )
    except Exception as error:  # e.g. a driver that is not installed
        raise StorageError(
            f"Cannot open {parsed.render_as_string(hide_password=True)}: {error}."
        ) from None


def check_schema(engine: Engine) -> int:
    """The database's schema version; `StorageError` unless it is this arena's."""
    shown = engine.url.render_as_string(hide_password=True)
    try:
        with engine.connect() as connection:
            found = schema_version(connection)
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise StorageError(
            f"Cannot read the database {shown}: {reason}. Check the URL given with --db "
            "(or XENT_ARENA_DB), and that the server is running."
        ) from None
    if found is None:
        raise StorageError(
            f"{shown} is not an arena database (it has no arena tables). Pass the database "
            "a tournament was run into with --db."
        )
    if found > CURRENT_VERSION:
        raise StorageError(
            f"The database {shown} has schema version {found}, newer than this arena's "
            f"{CURRENT_VERSION}. Upgrade xent-arena (pip install -U xent-arena)."
        )
    if found < CURRENT_VERSION:
        raise StorageError(
            f"The database {shown} has schema version {found}, older than this arena's "
            f"{CURRENT_VERSION}. Upgrade it once (this writes to it): "
            "arena dashboard --upgrade --db URL."
        )
    return found
