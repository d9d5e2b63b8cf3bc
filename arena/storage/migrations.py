"""Schema versions and the migration path.

The database records its schema version in the one-row table `schema_version`.

- A new (empty) database is created at `CURRENT_VERSION` directly from the tables in
  `arena.storage.tables`.
- An older database is upgraded one version at a time: `MIGRATIONS[v]` is a function
  that takes a connection inside a write transaction and turns a version `v - 1` schema
  into version `v` (ALTER TABLE, data copies). Each step commits together with its new
  version number, so an interrupted upgrade resumes at the step it was in.
- A database newer than this code is refused, never touched.

To change the schema: edit the tables, bump `CURRENT_VERSION` to N, and register
``MIGRATIONS[N] = _to_vN`` that brings a version N-1 database to the new tables; add a test
that builds a version N-1 database and upgrades it (see tests/tournaments/test_storage.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sqlalchemy import Engine, inspect, select
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from arena.storage import tables
from arena.storage.engine import StorageError, describe, is_read_only, write_engine

CURRENT_VERSION = 10

Migration = Callable[[Connection], None]


def _add_columns(connection: Connection, table: type[SQLModel], names: tuple[str, ...]) -> None:
    """ALTER TABLE ... ADD COLUMN for each named column of `table` not yet there (nullable
    columns only: existing rows get NULL)."""
    core = tables.table_of(table)
    present = {c["name"] for c in inspect(connection).get_columns(core.name)}
    quote = connection.dialect.identifier_preparer.quote
    for name in names:
        if name not in present:
            kind = core.c[name].type.compile(dialect=connection.dialect)
            connection.exec_driver_sql(
                f"ALTER TABLE {quote(core.name)} ADD COLUMN {quote(name)} {kind}"
            )


def _to_v2(connection: Connection) -> None:
    """Schedules get an interval trigger and a lease; runs of schedules get a table."""
    _add_columns(connection, tables.Schedule, ("interval_s", "lease_owner", "lease_until"))
    tables.table_of(tables.ScheduleRun).create(connection, checkfirst=True)


# version -> upgrade from version - 1. Version 1 is the first schema: nothing to migrate.
_SEED_COLUMNS = (("maps", "seed"), ("matches", "play_seed"), ("schedule_runs", "seed"))


def _to_v3(connection: Connection) -> None:
    """Seed columns become 64-bit. SQLite's INTEGER already is; Postgres' is 32-bit."""
    if connection.dialect.name != "postgresql":
        return
    for table, column in _SEED_COLUMNS:
        connection.exec_driver_sql(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE BIGINT")


def _to_v4(connection: Connection) -> None:
    """Live state for dashboards: run heartbeats, matches in flight, judge pool health,
    scheduler heartbeats (new tables only)."""
    for table in _LIVE_TABLES:
        tables.table_of(table).create(connection, checkfirst=True)


def _to_v5(connection: Connection) -> None:
    """Tournaments get a secret seed key (XGL.md section 8). Existing ones get a fresh
    random key here: their map and play seeds, hence their plans and stored match keys, do
    not depend on it, so stored matches stay valid and a resume plays only what is missing
    (moves seeds of the matches still to play are keyed from now on)."""
    _add_columns(connection, tables.Tournament, ("seed_key",))
    table = tables.table_of(tables.Tournament)
    missing = connection.execute(select(table.c.id).where(table.c.seed_key.is_(None))).all()
    for (ident,) in missing:
        connection.execute(
            table.update().where(table.c.id == ident).values(seed_key=tables.new_seed_key_hex())
        )


def _to_v6(connection: Connection) -> None:
    """Matches record their executor and judge backend (NULL for older ones); drivers
    claim matches in a new table (scale-out: several drivers on one database)."""
    _add_columns(connection, tables.Match, ("executor", "judge_backend"))
    tables.table_of(tables.MatchClaim).create(connection, checkfirst=True)


def _to_v7(connection: Connection) -> None:
    """The game space: fine-tuning verdicts, transfer values and grown scopes (new tables)."""
    for model in _GAME_SPACE_TABLES:
        tables.table_of(model).create(connection, checkfirst=True)


def _to_v8(connection: Connection) -> None:
    """Run heartbeats say which phase a run is in (making maps, then playing) and how many
    maps it has made, so a dashboard shows the preparation (NULL for older rows)."""
    _add_columns(connection, tables.LiveRun, ("phase", "maps_done", "maps_total"))


def _to_v9(connection: Connection) -> None:
    """Matches in flight carry their latest events (redacted, bounded), so a dashboard
    follows a match move by move while it is played (NULL for older rows)."""
    _add_columns(connection, tables.LiveMatch, ("events_json",))


def _to_v10(connection: Connection) -> None:
    """Seats carry what their player spent: tokens, dollars, calls and seconds on moves
    (NULL for older rows: not measured)."""
    _add_columns(connection, tables.Seat, SEAT_SPEND)


SEAT_SPEND = ("prompt_tokens", "completion_tokens", "cost_usd", "calls", "move_s")

MIGRATIONS: dict[int, Migration] = {
    2: _to_v2, 3: _to_v3, 4: _to_v4, 5: _to_v5, 6: _to_v6, 7: _to_v7, 8: _to_v8, 9: _to_v9,
    10: _to_v10,
}


def schema_version(connection: Connection) -> int | None:
    """The stored schema version, or None for a database without arena tables."""
    if not inspect(connection).has_table(tables.SchemaVersion.__tablename__):
        return None
    row = connection.execute(select(tables.table_of(tables.SchemaVersion).c.version)).first()
    return None if row is None else int(row[0])


def _stamp(connection: Connection, version: int) -> None:
    table = tables.table_of(tables.SchemaVersion)
    connection.execute(table.delete())
    connection.execute(table.insert().values(id=1, version=version, updated_at=tables.utcnow()))


def _refuse_newer(engine: Engine, found: int | None, target: int) -> None:
    if found is not None and found > target:
        raise StorageError(
            f"The database {describe(engine)} has schema "
            f"version {found}, newer than this arena's {target}. Upgrade xent-arena "
            "(pip install -U xent-arena), or use another database with --db."
        )


def migrate(
    engine: Engine,
    *,
    migrations: Mapping[int, Migration] = MIGRATIONS,
    target: int = CURRENT_VERSION,
) -> int:
    """Bring the database to schema `target`; returns the version it was at before
    (0 for a new database). Safe to call from several processes at once. A database
    already at `target` is only read, so a read-only one opens; one that would need
    writing while read-only is refused."""
    with engine.connect() as connection:
        found = schema_version(connection)
    if found == target:
        return found
    _refuse_newer(engine, found, target)
    if is_read_only(engine):
        shown = describe(engine)
        state = "holds no arena tables" if found is None else f"has schema version {found}"
        raise StorageError(
            f"The database {shown} is read-only and {state}; this arena needs version "
            f"{target}. Make the file and its folder writable once so it can be "
            "upgraded, or use another database with --db."
        )
    with write_engine(engine).begin() as connection:
        found = schema_version(connection)
        if found is None:
            SQLModel.metadata.create_all(connection, tables=[tables.table_of(t) for t in _TABLES])
            _stamp(connection, target)
            return 0
    _refuse_newer(engine, found, target)
    for version in range(found + 1, target + 1):
        step = migrations.get(version)
        if step is None:
            raise StorageError(
                f"No migration to schema version {version} (database at {version - 1}). "
                "This is a bug in the arena: please report it."
            )
        with write_engine(engine).begin() as connection:
            now = schema_version(connection)
            if now is not None and now >= version:  # another process did this step
                continue
            step(connection)
            _stamp(connection, version)
    return found


_LIVE_TABLES: tuple[type[SQLModel], ...] = (
    tables.LiveRun,
    tables.LiveMatch,
    tables.LiveJudge,
    tables.LiveScheduler,
)
_GAME_SPACE_TABLES: tuple[type[SQLModel], ...] = (
    tables.FineTuneVerdict,
    tables.TransferValue,
    tables.Scope,
    tables.ScopeGame,
)
_TABLES: tuple[type[SQLModel], ...] = (
    tables.SchemaVersion,
    tables.Tournament,
    tables.Run,
    tables.Participant,
    tables.Game,
    tables.GameMap,
    tables.JudgeRecord,
    tables.Match,
    tables.MatchClaim,
    tables.Seat,
    tables.MatchRound,
    tables.EventRecord,
    tables.RatingSnapshot,
    tables.Schedule,
    tables.ScheduleRun,
    *_LIVE_TABLES,
    *_GAME_SPACE_TABLES,
)
