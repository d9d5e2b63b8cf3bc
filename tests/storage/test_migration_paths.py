"""Every migration path yields the fresh schema.

The older schemas are built from the migration code itself: each step of
`arena.storage.migrations.MIGRATIONS` is run once with its schema changes recorded instead of
made (the columns it adds through `_add_columns`, the tables it creates), so version v is the
fresh schema without what steps v+1.. add. A database at each version from 1 to
`CURRENT_VERSION - 1` is then migrated by `migrate` and its reflected tables, columns (type,
nullability), indexes, unique constraints and foreign keys are compared with a fresh one,
on SQLite and on a real PostgreSQL server (where version 2 also has the 32-bit seed columns
that step 3 widens). A step that forgets a column, an index, a table or a type change fails
here.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, Table, create_engine, inspect
from sqlmodel import SQLModel

from arena.storage import migrations, tables
from arena.storage.engine import sqlite_url
from tests.storage.postgres_server import available, postgres_server

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


NewEngine = Callable[[], Engine]  # an engine on a new, empty database of the backend
NARROWED_BEFORE_V3 = 3  # PostgreSQL's seed columns were 32-bit before step 3 widened them


def fresh(new_engine: NewEngine) -> Engine:
    engine = new_engine()
    migrations.migrate(engine)
    return engine


def build_version(new_engine: NewEngine, version: int, changes: Changes) -> Engine:
    """A database at schema `version`: the fresh schema less what later steps add (and, on
    PostgreSQL before version 3, with the 32-bit seed columns)."""
    engine = fresh(new_engine)
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
        for table in reversed(SQLModel.metadata.sorted_tables):  # referring tables first
            if table.name in dropped_tables:
                connection.exec_driver_sql(f'DROP TABLE "{table.name}"')
        if connection.dialect.name == "postgresql" and version < NARROWED_BEFORE_V3:
            for table_name, column in migrations._SEED_COLUMNS:
                if table_name not in dropped_tables:
                    connection.exec_driver_sql(
                        f'ALTER TABLE "{table_name}" ALTER COLUMN "{column}" TYPE INTEGER'
                    )
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
    path = tmp_path_factory.mktemp("rec") / "rec.db"
    with pytest.MonkeyPatch.context() as patch:
        yield recorded_changes(fresh(lambda: create_engine(sqlite_url(path))), patch)


BACKENDS = [
    "sqlite",
    pytest.param("postgresql", marks=[
        pytest.mark.postgres,
        pytest.mark.skipif(not available(), reason="PostgreSQL server binaries not installed"),
    ]),
]


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[NewEngine]:
    """Makes engines on new empty databases: SQLite files, or databases of one throwaway
    PostgreSQL server (`tests.storage.postgres_server`, as the other Postgres tests)."""
    made: list[Engine] = []
    numbers = itertools.count()
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            folder = tmp_path_factory.mktemp("paths")

            def url_of(name: str) -> str:
                return sqlite_url(folder / f"{name}.db")
        else:
            server = stack.enter_context(postgres_server())
            admin = create_engine(server, isolation_level="AUTOCOMMIT")
            stack.callback(admin.dispose)

            def url_of(name: str) -> str:
                with admin.connect() as connection:
                    connection.exec_driver_sql(f"CREATE DATABASE {name}")
                return server.rsplit("/", 1)[0] + "/" + name

        def new_engine() -> Engine:
            made.append(create_engine(url_of(f"paths{next(numbers)}")))
            return made[-1]

        try:
            yield new_engine
        finally:  # before the server stops
            for engine in made:
                engine.dispose()


def test_the_recording_sees_every_step(changes: Changes) -> None:
    assert sorted(changes) == list(range(2, migrations.CURRENT_VERSION + 1))
    assert ("schedules", "interval_s") in changes[2][0] and "schedule_runs" in changes[2][1]
    assert ("live_matches", "events_json") in changes[9][0]


@pytest.mark.parametrize("version", range(1, migrations.CURRENT_VERSION))
def test_every_migration_path_yields_the_fresh_schema(
    version: int, changes: Changes, backend: NewEngine
) -> None:
    expected = schema(fresh(backend))
    old = build_version(backend, version, changes)
    with old.connect() as connection:
        assert migrations.schema_version(connection) == version
    assert schema(old) != expected or version == migrations.CURRENT_VERSION  # really older
    assert migrations.migrate(old) == version
    assert schema(old) == expected


def test_the_comparison_catches_a_missing_column(changes: Changes, backend: NewEngine) -> None:
    """A step that forgot a column (here v9's events_json) leaves a different schema."""
    broken = {**migrations.MIGRATIONS, 9: lambda _connection: None}
    old = build_version(backend, 8, changes)
    migrations.migrate(old, migrations=broken)
    assert schema(old) != schema(fresh(backend))


def test_the_comparison_catches_a_missing_type_change(changes: Changes, backend: NewEngine
                                                       ) -> None:
    """On PostgreSQL a version 2 database whose seeds step 3 did not widen stays different
    (on SQLite every INTEGER is 64-bit already: there the step has nothing to do)."""
    broken = {**migrations.MIGRATIONS, 3: lambda _connection: None}
    old = build_version(backend, 2, changes)
    migrations.migrate(old, migrations=broken)
    differs = schema(old) != schema(fresh(backend))
    assert differs == (old.dialect.name == "postgresql")
