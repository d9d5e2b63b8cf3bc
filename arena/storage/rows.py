"""Row helpers shared by the writers (`repo.Store` and `imports`): get-or-create by a
unique key (of any table: the columns are named by the key), the id of an inserted row, and
a bulk insert of many rows."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
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


_MARKS = {"qmark": "?", "format": "%s", "pyformat": "%s"}


def driver_value(conn: Connection, table: Table, column: str, value: Any) -> Any:
    """`value` as the database driver takes it for `table.column` (SQLite's datetime text,
    its booleans as integers; most values as they are): for the constants of `bulk_insert`."""
    process = table.c[column].type.dialect_impl(conn.dialect).bind_processor(conn.dialect)
    return process(value) if process is not None else value


def bulk_insert(
    conn: Connection, table: Table, columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    """Insert `rows` (tuples in the order of `columns`, values as `driver_value` gives them)
    with one driver `executemany`: SQLAlchemy's per-row parameter processing cost most of
    the time of a 200 000-row import."""
    mark = _MARKS.get(str(conn.dialect.paramstyle))
    if mark is None:  # a driver of another placeholder style: SQLAlchemy's own insert
        conn.execute(table.insert(), [dict(zip(columns, row, strict=True)) for row in rows])
        return
    names = ", ".join(conn.dialect.identifier_preparer.quote(c) for c in columns)
    sql = f"INSERT INTO {table.name} ({names}) VALUES ({', '.join([mark] * len(columns))})"
    conn.exec_driver_sql(sql, [tuple(row) for row in rows])
