"""Every migration path yields the fresh schema.

The older schemas are built from the migration code itself: each step of
`arena.storage.migrations.MIGRATIONS` is run once with its schema changes recorded instead of
made (the columns it adds through `_add_columns`, the tables it creates), so version v is the
fresh schema without what steps v+1.. add. A database at each version from 1 to
`CURRENT_VERSION - 1` is then migrated by `migrate` and its reflected tables, columns (type,
nullability), indexes, unique constraints and foreign keys are compared with a fresh one.
A step that forgets a column, an index or a table fails here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, Table, create_engine, inspect
from sqlmodel import SQLModel

from arena.storage import migrations, tables
from arena.storage.engine import sqlite_url

Changes = dict[int, tuple[set[tuple[str, str]], set[str]]]  # version -> (columns, tables)


def recorded_changes(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Changes:
    """What each migration step adds, recorded on a fresh database (nothing is changed)."""
    changes: Changes = {}
    for version, step in sorted(migrations.MIGRATIONS.items()):
        columns: set[tuple[str, str]] = set()
        created: set[str] = set()

        def add_columns(_c: Any, model: type[SQLModel], names: tuple[str, ...],
                        columns: set[tuple[str, str]] = columns) -> None:
            columns.update((tables.table_of(model).name, name) for name in names)

        def create(table: Table, *_a: Any, created: set[str] = created, **_k: Any) -> None:
            created.add(table.name)

        with monkeypatch.context() as patch:
            patch.setattr(migrations, "_add_columns", add_columns)
            patch.setattr(Table, "create", create)
            with engine.begin() as connection:
                step(connection)
        changes[version] = (columns, created)
    return changes


def fresh(path: Path) -> Engine:
    engine = create_engine(sqlite_url(path))
    migrations.migrate(engine)
    return engine


def build_version(path: Path, version: int, changes: Changes) -> Engine:
    """A database at schema `version`: the fresh schema less what later steps add."""
    engine = fresh(path)
    later = [changes[v] for v in range(version + 1, migrations.CURRENT_VERSION + 1)]
    dropped_tables = set().union(*(t for _, t in later))
    dropped_columns = set().union(*(c for c, _ in later))
    with engine.begin() as connection:
        inspector = inspect(connection)
        for table, column in sorted(dropped_columns):
            if table in dropped_tables:
                continue
            for index in inspector.get_indexes(table):
                if column in index["column_names"]:
                    connection.exec_driver_sql(f'DROP INDEX "{index["name"]}"')
            connection.exec_driver_sql(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
        for table in sorted(dropped_tables):
            connection.exec_driver_sql(f'DROP TABLE "{table}"')
        migrations._stamp(connection, version)
    return engine


def schema(engine: Engine) -> dict[str, Any]:
    """Tables with their columns, indexes, unique constraints and foreign keys."""
    inspector = inspect(engine)
    found: dict[str, Any] = {}
    for name in sorted(inspector.get_table_names()):
        found[name] = {
            "columns": sorted(
                (c["name"], str(c["type"]), bool(c["nullable"]))
                for c in inspector.get_columns(name)
            ),
            "indexes": sorted(
                (tuple(i["column_names"]), bool(i["unique"])) for i in inspector.get_indexes(name)
            ),
            "unique": sorted(tuple(u["column_names"]) for u in inspector.get_unique_constraints(name)),
            "foreign_keys": sorted(
                (tuple(f["constrained_columns"]), f["referred_table"])
                for f in inspector.get_foreign_keys(name)
            ),
        }
    return found


@pytest.fixture(scope="module")
def changes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Changes]:
    with pytest.MonkeyPatch.context() as patch:
        yield recorded_changes(fresh(tmp_path_factory.mktemp("rec") / "rec.db"), patch)


def test_the_recording_sees_every_step(changes: Changes) -> None:
    assert sorted(changes) == list(range(2, migrations.CURRENT_VERSION + 1))
    assert ("schedules", "interval_s") in changes[2][0] and "schedule_runs" in changes[2][1]
    assert ("live_matches", "events_json") in changes[9][0]


@pytest.mark.parametrize("version", range(1, migrations.CURRENT_VERSION))
def test_every_migration_path_yields_the_fresh_schema(
    version: int, changes: Changes, tmp_path: Path
) -> None:
    expected = schema(fresh(tmp_path / "fresh.db"))
    old = build_version(tmp_path / f"v{version}.db", version, changes)
    with old.connect() as connection:
        assert migrations.schema_version(connection) == version
    assert schema(old) != expected or version == migrations.CURRENT_VERSION  # really older
    assert migrations.migrate(old) == version
    assert schema(old) == expected


def test_the_comparison_catches_a_missing_column(changes: Changes, tmp_path: Path) -> None:
    """A step that forgot a column (here v9's events_json) leaves a different schema."""
    broken = {**migrations.MIGRATIONS, 9: lambda _connection: None}
    old = build_version(tmp_path / "v8.db", 8, changes)
    migrations.migrate(old, migrations=broken)
    assert schema(old) != schema(fresh(tmp_path / "fresh.db"))
