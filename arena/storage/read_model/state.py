"""Whether a database can be shown now. A viewer opened it read-only with its schema checked
(`arena.storage.read_only`); a tournament may have upgraded or replaced the file since, or
hold its write lock at this moment, so the viewer re-checks on every page run."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from arena.errors import ArenaError
from arena.storage.read_only import check_schema


@dataclass(frozen=True)
class DatabaseState:
    """What the viewer found: ``ok`` with the schema version, or a message to show."""

    ok: bool
    message: str = ""
    version: int | None = None


def database_state(engine: Engine, label: str) -> DatabaseState:
    """Whether `engine` can be shown now: its schema still this arena's, and not locked;
    `label` names the database in the message."""
    try:
        return DatabaseState(True, "", check_schema(engine))
    except OperationalError as error:
        if "locked" in str(error.orig) or "busy" in str(error.orig):
            return DatabaseState(
                False,
                f"{label} is locked by a process writing to it (a running tournament or an "
                "upgrade). Reload in a few seconds.",
            )
        return DatabaseState(False, f"{label} cannot be read: {error.orig}.")
    except ArenaError as error:
        return DatabaseState(False, str(error))
