"""Row helpers shared by the writers (`repo.Store` and `imports`): get-or-create by a
unique key, and the id of an inserted row."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Select, Table, and_, bindparam, select
from sqlalchemy.engine import Connection, CursorResult

IMPORTED_MODE = "import"  # the mode of tournaments made by `arena import` (storage.imports)


@functools.cache
def _lookup(table: Table, columns: tuple[str, ...]) -> Select[Any]:
    """`SELECT id WHERE col = :col AND ...`, built once so its compiled form is cached."""
    where = and_(*(table.c[name] == bindparam(name) for name in columns))
    return select(table.c.id).where(where)


def find_or_insert(
    conn: Connection, table: Table, unique: Mapping[str, Any], extra: Mapping[str, Any]
) -> int:
    """The id of the row matching `unique`, inserting `unique | extra` where none does."""
    found = conn.execute(_lookup(table, tuple(unique)), dict(unique)).scalar()
    if found is not None:
        return int(found)
    return new_id(conn.execute(table.insert(), {**unique, **extra}))


def new_id(result: CursorResult[Any]) -> int:
    key = result.inserted_primary_key
    if key is None:
        raise RuntimeError("the database returned no id for an inserted row")
    return int(key[0])
