"""Arena storage: SQLModel tables and the only code that knows SQL or holds an engine.

Open a database with `Store.open(url)` (creates or upgrades the schema) or
`Store.open_read_only(url)`; store finished matches through `MatchWriter`; everything else is
a `Store` method (listed in `arena.storage.operations`). Viewers read through the declared
read model, `arena.storage.read_model.ReadModel` (it needs pandas: import it only there).
"""

from __future__ import annotations

from arena.storage.engine import (
    DB_ENV,
    StorageError,
    create_db_engine,
    default_db_url,
    shown_url,
    sqlite_url,
)
from arena.storage.migrations import CURRENT_VERSION, migrate
from arena.storage.records import (
    MATCH_DONE,
    MATCH_ERROR,
    MATCH_NO_RESULT,
    FinishedMatch,
    GameInfo,
    JudgeProvenance,
    ParticipantInfo,
    SeatResult,
    StoredMatch,
    StoredSeat,
)
from arena.storage.repo import Store
from arena.storage.writer import MatchWriter

__all__ = [
    "CURRENT_VERSION",
    "DB_ENV",
    "MATCH_DONE",
    "MATCH_ERROR",
    "MATCH_NO_RESULT",
    "FinishedMatch",
    "GameInfo",
    "JudgeProvenance",
    "MatchWriter",
    "ParticipantInfo",
    "SeatResult",
    "StorageError",
    "Store",
    "StoredMatch",
    "StoredSeat",
    "create_db_engine",
    "default_db_url",
    "migrate",
    "shown_url",
    "sqlite_url",
]
