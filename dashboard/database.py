"""Opening the arena database for the dashboard: read-only, and a clear sentence for every
state in which there is nothing to show (no file, not an arena database, an older or newer
schema, an empty arena, a database locked by a writer)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError

from arena.errors import ArenaError
from arena.storage import CURRENT_VERSION
from arena.storage import tables as t

READ_BUSY_TIMEOUT_S = 5.0  # a reader waits this long for a writer holding an exclusive lock


class DashboardDatabaseError(ArenaError):
    """The dashboard's database cannot be shown (the message says why and what to do)."""


def readonly_engine(url: str) -> Engine:
    """An engine that cannot write: SQLite opened with ``mode=ro``; any other backend with
    read-only transactions."""
    try:
        parsed = make_url(url)
    except Exception as error:
        raise DashboardDatabaseError(
            f"Bad database URL '{url}': {error}. Use e.g. sqlite:///path/to/arena.db or "
            "postgresql+psycopg://user@host/db."
        ) from None
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(parsed, pool_pre_ping=True)

        @event.listens_for(engine, "connect")
        def _readonly(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            cursor.close()
            dbapi_connection.commit()

        return engine
    path = Path(parsed.database or "").expanduser()
    if not parsed.database or str(path) == ":memory:":
        raise DashboardDatabaseError(
            f"The dashboard needs a database file, not '{url}'. Pass --db sqlite:///path/to/arena.db."
        )
    if not path.is_file():
        raise DashboardDatabaseError(
            f"No database file at {path}. Run a tournament first (`arena demo` or "
            "`arena run FILE --db sqlite:///PATH`), or pass the right --db URL."
        )
    uri = f"{path.resolve().as_uri()}?mode=ro"

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=READ_BUSY_TIMEOUT_S)

    return create_engine("sqlite://", creator=connect)


@dataclass(frozen=True)
class DatabaseState:
    """What the dashboard found: ``ok`` with the schema version, or a message to show."""

    ok: bool
    message: str = ""
    version: int | None = None


def check_database(engine: Engine, label: str) -> DatabaseState:
    """Whether `engine` holds an arena database this dashboard can show."""
    try:
        with engine.connect() as conn:
            names = set(inspect(conn).get_table_names())
            if not names:
                return DatabaseState(
                    False,
                    f"The database {label} is empty: no arena tables yet. Run a tournament "
                    "into it (`arena run FILE --db URL`, or `arena demo`), then reload.",
                )
            if t.SchemaVersion.__tablename__ not in names:
                return DatabaseState(
                    False,
                    f"{label} is not an arena database (it has tables "
                    f"{', '.join(sorted(names)[:5])} but no schema_version). Pass the URL of a "
                    "database written by `arena run`.",
                )
            row = conn.execute(select(t.table_of(t.SchemaVersion).c.version)).first()
            version = None if row is None else int(row[0])
            if version is None:
                return DatabaseState(False, f"{label} has no schema version row: it is not an "
                                     "arena database, or its creation was interrupted.")
            if version < CURRENT_VERSION:
                return DatabaseState(
                    False,
                    f"{label} has schema version {version}, older than this arena's "
                    f"{CURRENT_VERSION}; the dashboard never writes, so it does not upgrade it. "
                    "Upgrade it by running any arena command on it, e.g. "
                    "`arena matches --tournament NAME --db URL`, then reload.",
                    version,
                )
            if version > CURRENT_VERSION:
                return DatabaseState(
                    False,
                    f"{label} has schema version {version}, newer than this arena's "
                    f"{CURRENT_VERSION}. Upgrade xent-arena (pip install -U xent-arena).",
                    version,
                )
            return DatabaseState(True, "", version)
    except OperationalError as error:
        text = str(error.orig)
        if "locked" in text or "busy" in text:
            return DatabaseState(
                False,
                f"{label} is locked by a process writing to it (a running tournament or an "
                "upgrade). The dashboard retries on the next refresh; reload in a few seconds.",
            )
        return DatabaseState(False, f"{label} cannot be read: {text}.")
    except DBAPIError as error:
        return DatabaseState(
            False, f"{label} is not an arena database ({error.orig}). Pass the right --db URL."
        )
