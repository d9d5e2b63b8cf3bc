"""Database engines: the default location, SQLite pragmas, and write transactions.

SQLite is tuned for many concurrent matches and several processes on one file:

- WAL journal, so readers (the dashboard) never block the writer and a killed process
  leaves every committed transaction intact and every other one absent;
- `busy_timeout`, so a writer waits for another process's transaction instead of failing;
- write transactions start with `BEGIN IMMEDIATE` (see `write_engine`): a deferred
  transaction that reads first and then writes can hit "database is locked" without waiting
  when another process committed in between; taking the write lock up front avoids it;
- foreign keys on (SQLite leaves them off by default).

Any other SQLAlchemy URL (e.g. ``postgresql+psycopg://...``) is used as given.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import NoSuchModuleError
from sqlalchemy.pool import StaticPool

from arena.errors import StorageError as StorageError  # re-exported: its historical home
from arena.storage.sqlite_file import sqlite_connect_target

DB_ENV = "XENT_ARENA_DB"
APP_NAME = "xent-arena"
BUSY_TIMEOUT_MS = 60_000
_WRITE_OPTION = "arena_write"


def default_db_url() -> str:
    """`$XENT_ARENA_DB`, else ``sqlite:///<user data dir>/arena.db`` (directory created)."""
    configured = os.environ.get(DB_ENV, "").strip()
    if configured:
        return configured
    from platformdirs import user_data_dir

    directory = Path(user_data_dir(APP_NAME))
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StorageError(
            f"Cannot create the folder of the default database, {directory}: "
            f"{error.strerror}. Choose a database with --db or ${DB_ENV}, e.g. "
            "--db sqlite:///path/to/arena.db."
        ) from None
    return f"sqlite:///{directory / 'arena.db'}"


def sqlite_url(path: str | os.PathLike[str]) -> str:
    """The SQLAlchemy URL of an SQLite file."""
    return f"sqlite:///{Path(path)}"


def shown_url(url: str) -> str:
    """`url` as a person may see it: the password hidden (as given when it does not parse)."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def parse_db_url(url: str | None = None) -> URL:
    """The SQLAlchemy URL of `url` (default: `default_db_url()`); a URL without a scheme is
    the path of an SQLite file. `StorageError` with an example when it cannot be parsed."""
    text = (url or default_db_url()).strip()
    if "://" not in text:
        text = sqlite_url(text)
    try:
        return make_url(text)
    except Exception as error:
        raise StorageError(
            f"Bad database URL '{text}': {error}. Use e.g. sqlite:///path/to/arena.db or "
            "postgresql+psycopg://user@host/db."
        ) from None


def create_db_engine(url: str | None = None, *, create: bool = True) -> Engine:
    """An engine for `url` (default: `default_db_url()`), with the SQLite setup above.

    A URL without a scheme is taken as the path of an SQLite file. `create=False` (read
    commands) refuses a database file that does not exist yet instead of creating an
    empty one. A read-only SQLite file is opened read-only (`is_read_only`). Every
    problem with the URL or the file is a `StorageError` naming it and the fix.
    """
    parsed = parse_db_url(url)
    if parsed.get_backend_name() != "sqlite":
        return _server_engine(parsed)
    database = parsed.database or ""
    in_memory = database in ("", ":memory:") or database.startswith("file::memory:")
    if not (in_memory or database.startswith("file:")):  # a `file:` URI is used as given
        # `sqlite:///f.db?mode=ro` asks for read-only: pysqlite reads URI options only from
        # a `file:` URI (else it warns and ignores them), so the target is made one.
        asked = parsed.query.get("mode") == "ro"
        target, options = sqlite_connect_target(database, create=create, read_only=asked)
        parsed = parsed.difference_update_query(["mode"]).set(database=target)
        parsed = parsed.update_query_dict(options)
    read_only = parsed.query.get("mode") == "ro"
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": 60}}
    if in_memory:  # one shared connection, or every thread would see its own empty database
        kwargs["poolclass"] = StaticPool
    engine = create_engine(parsed, **kwargs)
    _install_sqlite_hooks(engine, wal=not (in_memory or read_only))
    return engine


def is_read_only(engine: Engine) -> bool:
    """Whether the engine was opened read-only (a read-only SQLite file)."""
    return is_sqlite(engine) and engine.url.query.get("mode") == "ro"


def describe(engine: Engine) -> str:
    """The database as a person wrote it: an SQLite file's path, else the URL without
    its password."""
    database = engine.url.database or ""
    if is_sqlite(engine) and database not in ("", ":memory:"):
        return unquote(database.removeprefix("file:"))
    return engine.url.render_as_string(hide_password=True)


def database_key(engine: Engine) -> str:
    """The database's URL, password hidden: a key for what a reader keeps per database."""
    return engine.url.render_as_string(hide_password=True)


def _server_engine(parsed: URL) -> Engine:
    """An engine for a database server (PostgreSQL), with its driver's absence and unknown
    schemes said plainly."""
    shown = parsed.render_as_string(hide_password=True)
    try:
        return create_engine(parsed, pool_pre_ping=True)
    except NoSuchModuleError:
        raise StorageError(
            f"Unknown database URL scheme '{parsed.drivername}' in '{shown}'. Use "
            "sqlite:///path/to/arena.db or postgresql+psycopg://user@host/db."
        ) from None
    except ImportError as error:
        backend = parsed.get_backend_name()
        missing = getattr(error, "name", None) or str(error)
        if backend == "postgresql":
            raise StorageError(
                f"The database URL '{shown}' needs the PostgreSQL driver '{missing}', which "
                "is not installed. Install it with pip install 'xent-arena[postgres]' and "
                "write the URL as postgresql+psycopg://user@host/db."
            ) from None
        raise StorageError(
            f"The database URL '{shown}' needs the driver '{missing}', which is not "
            "installed. Install it, or use sqlite:///path/to/arena.db."
        ) from None


def _install_sqlite_hooks(engine: Engine, *, wal: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy emit BEGIN itself (see _on_begin) instead of pysqlite's implicit one.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if wal:
            cursor.execute("PRAGMA journal_mode=WAL")
            # NORMAL is durable across process crashes (kill -9) in WAL mode.
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        immediate = connection.get_execution_options().get(_WRITE_OPTION, False)
        if immediate and is_read_only(engine):  # say so before SQLite's cryptic refusal
            raise StorageError(
                f"The database {describe(engine)} is read-only, and this command needs to "
                "write to it. Make the file and its folder writable, or use another "
                "database with --db."
            )
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def write_engine(engine: Engine) -> Engine:
    """The same engine (same pool) whose transactions take the write lock when they begin."""
    return engine.execution_options(**{_WRITE_OPTION: True})
