"""Row helpers shared by the writers (`repo.Store` and `imports`): get-or-create by a
unique key (of any table: the columns are named by the key), and the id of an inserted row."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Select, Table, and_, bindparam, select
from sqlalchemy.engine import Connection, CursorResult
from sqlmodel import SQLModel

from arena.storage.tables import table_of

IMPORTED_MODE = "import"  # the mode of tournaments made by `arena import` (storage.imports)


@functools.cache
def _lookup(table: Table, columns: tuple[str, ...]) -> Select[Any]:
    """`SELECT id WHERE col = :col AND ...`, built once so its compiled form is cached."""
    where = and_(*(table.c[name] == bindparam(name) for name in columns))
    return select(table.c.id).where(where)


def find_or_insert(
    conn: Connection, model: type[SQLModel], unique: Mapping[str, Any], extra: Mapping[str, Any]
) -> int:
    """The id of the `model` row matching `unique`, inserting `unique | extra` where none
    does."""
    table = table_of(model)
    found = conn.execute(_lookup(table, tuple(unique)), dict(unique)).scalar()
    if found is not None:
        return int(found)
    return new_id(conn.execute(table.insert(), {**unique, **extra}))


def row_id(value: int | None) -> int:
    """A primary key read back (typed optional by SQLModel, never NULL in a stored row)."""
    if value is None:
        raise RuntimeError("the database returned a row without an id")
    return int(value)


def new_id(result: CursorResult[Any]) -> int:
    key = result.inserted_primary_key
    if key is None:
        raise RuntimeError("the database returned no id for an inserted row")
    return int(key[0])
