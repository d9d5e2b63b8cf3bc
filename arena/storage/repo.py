"""Writing to the arena database: identity rows (get-or-create), runs, maps and matches.

All methods are synchronous and thread-safe (each opens its own transaction); async code
calls them through `asyncio.to_thread`, an operation's `in_thread`, or
`arena.storage.writer.MatchWriter`. Writes take
the write lock when they begin (`write_engine`), so a check-then-insert is atomic even
across processes sharing one SQLite file.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import SQLModel, col

from arena.redaction import redact, redact_params
from arena.storage import tables as t
from arena.storage.engine import (
    StorageError,
    create_db_engine,
    describe,
    is_read_only,
    write_engine,
)
from arena.storage.match_rows import insert_matches
from arena.storage.migrations import migrate, schema_version
from arena.storage.operations import StoreOperations
from arena.storage.read_only import open_read_only
from arena.storage.records import (
    MATCH_DONE,
    FinishedMatch,
    GameInfo,
    JudgeProvenance,
    ParticipantInfo,
)
from arena.storage.rows import IMPORTED_MODE, find_or_insert, new_id, row_id
from arena.storage.tables import GameMap, Match, Run, Tournament


class Store(StoreOperations):
    """The arena database, and the one door to it: `Store.open(url)` creates or upgrades
    the schema, `Store.open_read_only(url)` only reads; every operation is a method (those
    besides match and identity writes are listed in `arena.storage.operations`). `engine`
    is for storage itself and its tests: no other package touches it."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._write = write_engine(engine)

    @classmethod
    def open(cls, url: str | None = None, *, create: bool = True) -> Store:
        """Open (and upgrade) the database at `url`. `create=False`, for commands that
        only read, refuses a database that does not exist instead of creating it. Every
        failure is a `StorageError` saying which database and what to do."""
        engine = create_db_engine(url, create=create)
        try:
            if not create:
                _require_arena_tables(engine)
            migrate(engine)
        except DBAPIError as error:
            engine.dispose()
            raise StorageError(
                f"Cannot open the database {describe(engine)}: {_reason(error)}. Check the "
                "URL, the server and your permissions, or use another database with --db."
            ) from None
        except BaseException:
            engine.dispose()
            raise
        return cls(engine)

    @classmethod
    def open_read_only(cls, url: str | None = None) -> Store:
        """The database at `url` for viewing: opened read-only, its schema checked, never
        migrated (`arena.storage.read_only`); `StorageError` with the fix otherwise."""
        return cls(open_read_only(url))

    def describe(self) -> str:
        """The database as a person wrote it (a file's path, or the URL without its
        password), for messages."""
        return describe(self.engine)

    @property
    def url(self) -> str:
        """The full URL (password included), for a process that opens its own store, e.g.
        a Ray worker; never shown."""
        return self.engine.url.render_as_string(hide_password=False)

    @property
    def read_only(self) -> bool:
        """Whether the database was opened read-only (nothing can be stored)."""
        return is_read_only(self.engine)

    def require_writable(self, why: str) -> None:
        """Raise `StorageError` when the database is read-only; `why` says what needed
        writing, e.g. "3 matches are still to be played"."""
        if self.read_only:
            raise StorageError(
                f"The database {describe(self.engine)} is read-only, but {why}. Make the file "
                "and its folder writable, or use another database with --db."
            )

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ identity rows

    def _get_or_create(
        self, model: type[SQLModel], rows: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]
    ) -> list[int]:
        """Ids of rows matching each `unique` mapping, inserting `unique | extra` where
        none does; all in one transaction."""
        for _ in range(2):  # the second pass reads rows a concurrent writer inserted
            try:
                with self._write.begin() as conn:
                    return [find_or_insert(conn, model, unique, extra) for unique, extra in rows]
            except IntegrityError:
                continue
        raise RuntimeError(f"could not create or find rows of {model.__name__}")

    def ensure_tournament(self, name: str, mode: str, config_json: str) -> int:
        """The tournament's id; its stored config is replaced by the latest one. A tournament
        of imported results is refused (its config holds the files' provenance)."""
        values = {"mode": mode, "config_json": config_json}
        created = {**values, "seed_key": t.new_seed_key_hex()}
        for _ in range(2):  # the second pass finds the row a concurrent writer inserted
            try:
                with self._write.begin() as conn:
                    ident = find_or_insert(conn, Tournament, {"name": name}, created)
                    found = conn.execute(
                        select(col(Tournament.mode)).where(col(Tournament.id) == ident)
                    )
                    if found.scalar() == IMPORTED_MODE:
                        raise StorageError(
                            f"Tournament '{name}' holds imported results (`arena import`). "
                            "Give the tournament file another `name`; rate both together "
                            f"with `arena ratings --tournament {name} --tournament OTHER`."
                        )
                    conn.execute(
                        update(Tournament).where(col(Tournament.id) == ident).values(**values)
                    )
                    return ident
            except IntegrityError:
                continue
        raise RuntimeError(f"could not create or find the tournament '{name}'")

    def tournament_seed_key(self, tournament_id: int) -> bytes:
        """The tournament's secret seed key, made on first use where it has none (a
        tournament of imported results, say). Only the executor reads it."""
        with self._write.begin() as conn:
            conn.execute(
                update(Tournament)
                .where(col(Tournament.id) == tournament_id, col(Tournament.seed_key).is_(None))
                .values(seed_key=t.new_seed_key_hex())
            )
            found = conn.execute(
                select(col(Tournament.seed_key)).where(col(Tournament.id) == tournament_id)
            )
            key = found.scalar()
        if key is None:
            raise StorageError(f"No tournament with id {tournament_id} in the database.")
        return bytes.fromhex(str(key))

    def ensure_participants(self, infos: Sequence[ParticipantInfo]) -> list[int]:
        rows = [
            (
                {
                    "name": info.name,
                    "spec": redact(info.spec),
                    "plugin": info.plugin,
                    "plugin_version": info.plugin_version,
                },
                {
                    "model": info.model,
                    "params_json": json.dumps(redact_params(info.params), sort_keys=True),
                },
            )
            for info in infos
        ]
        return self._get_or_create(t.Participant, rows)

    def ensure_participant(self, info: ParticipantInfo) -> int:
        return self.ensure_participants([info])[0]

    def ensure_games(self, infos: Sequence[GameInfo]) -> list[int]:
        rows = [
            (
                {
                    "name": info.name,
                    "version": info.version,
                    "dialect": info.dialect,
                    "code_sha256": info.code_sha256,
                },
                {"filename": info.filename, "source": info.source},
            )
            for info in infos
        ]
        return self._get_or_create(t.Game, rows)

    def ensure_game(self, info: GameInfo) -> int:
        return self.ensure_games([info])[0]

    def ensure_judge(self, info: JudgeProvenance) -> int:
        unique = {
            "spec": info.spec,
            "name": info.name,
            "model": info.model,
            "revision": info.revision,
            "dtype": info.dtype,
        }
        return self._get_or_create(
            t.JudgeRecord, [(unique, {"vocab_size": info.vocab_size})]
        )[0]

    # ------------------------------------------------------------------ maps

    def find_map(self, game_id: int, seed: int, source: str) -> tuple[int, dict[str, str]] | None:
        """A stored map's id and texts, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(col(GameMap.id), col(GameMap.stories_json)).where(
                    col(GameMap.game_id) == game_id,
                    col(GameMap.seed) == seed,
                    col(GameMap.story_source) == source,
                )
            ).first()
        return None if row is None else (row_id(row[0]), json.loads(row[1]))

    def ensure_map(
        self, game_id: int, seed: int, source: str, stories: Mapping[str, str]
    ) -> tuple[int, dict[str, str]]:
        """Store a map unless one exists; returns the stored id and texts (the first stored
        texts win, so every entrant plays identical maps even across processes)."""
        unique = {"game_id": game_id, "seed": seed, "story_source": source}
        extra = {"stories_json": json.dumps(dict(stories), sort_keys=True)}
        (ident,) = self._get_or_create(GameMap, [(unique, extra)])
        with self.engine.connect() as conn:
            text = conn.execute(
                select(col(GameMap.stories_json)).where(col(GameMap.id) == ident)
            ).scalar()
        return ident, json.loads(str(text))

    # ------------------------------------------------------------------ runs

    def start_run(
        self, tournament_id: int, *, planned: int, pending: int, config_sha256: str, version: str
    ) -> int:
        with self._write.begin() as conn:
            result = conn.execute(
                insert(Run).values(
                    tournament_id=tournament_id,
                    status="running",
                    planned=planned,
                    pending=pending,
                    config_sha256=config_sha256,
                    arena_version=version,
                    host=socket.gethostname(),
                    pid=os.getpid(),
                    started_at=t.utcnow(),
                )
            )
            return new_id(result)

    def finish_run(self, run_id: int, status: str) -> None:
        with self._write.begin() as conn:
            conn.execute(
                update(Run)
                .where(col(Run.id) == run_id)
                .values(status=status, finished_at=t.utcnow())
            )

    # ------------------------------------------------------------------ matches

    def done_keys(self, tournament_id: int) -> set[str]:
        """Keys of the tournament's matches stored as done (resume skips them)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(col(Match.key)).where(
                    col(Match.tournament_id) == tournament_id, col(Match.status) == MATCH_DONE
                )
            )
            return {str(r[0]) for r in rows}

    def save_matches(self, matches: Sequence[FinishedMatch]) -> list[bool]:
        """Write the matches in one transaction; per match, False when its key was already
        stored as done (by an earlier run or another process) and nothing was written.
        A stored error under the same key is replaced."""
        with self._write.begin() as conn:
            return insert_matches(conn, matches)

    def save_match(self, match: FinishedMatch) -> bool:
        """`save_matches` for one match; a concurrent insert of the same key counts as done."""
        try:
            return self.save_matches([match])[0]
        except IntegrityError:
            if match.key in self.done_keys(match.tournament_id):
                return False
            raise


def _reason(error: DBAPIError) -> str:
    """The driver's own message, first line only (no SQL, no parameters)."""
    text = str(error.orig).strip()
    return text.splitlines()[0] if text else type(error.orig).__name__


def _require_arena_tables(engine: Engine) -> None:
    with engine.connect() as conn:
        found = schema_version(conn)
    if found is None:
        raise StorageError(
            f"The database {describe(engine)} holds no arena data yet. Run a tournament into "
            "it first (arena run FILE --db ...), or point --db at the right database."
        )
