"""The dashboard's database checks. It is opened by `arena.storage.read_only.open_read_only`
(the one home of read-only opening: it refuses, in one sentence, a missing file, a
non-arena database and another schema version); this module only re-checks, on every run,
the states in which there is nothing to show yet."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from arena.errors import ArenaError
from arena.storage.read_only import check_schema


@dataclass(frozen=True)
class DatabaseState:
    """What the dashboard found: ``ok`` with the schema version, or a message to show."""

    ok: bool
    message: str = ""
    version: int | None = None


def check_database(engine: Engine, label: str) -> DatabaseState:
    """Whether `engine` can be shown now: its schema still this arena's (a tournament may
    have upgraded or replaced the file since the dashboard opened it), and not locked."""
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
