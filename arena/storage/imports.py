"""External results stored as a tournament of their own (`arena import`), with provenance.

An import needs no schema of its own: it is a tournament whose `config_json` is
``{"import": {"sources": [...]}}``, one `runs` row per imported file (status ``imported``,
`config_sha256` = the file's sha256), and ordinary `matches`/`seats` rows. Identity rows are
marked as external: games and matches have dialect ``import``, participants and the judge
have spec ``import:<format>``, a map is ``story_source = "import:<label>"``, seed 0.

`save_import` writes a whole file in one transaction: everything or nothing. A file whose
sha256 is already among the tournament's sources is not written again (idempotent).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from arena.storage import tables as t
from arena.storage.engine import StorageError, write_engine
from arena.storage.match_rows import MATCHES, SEATS
from arena.storage.records import MATCH_DONE
from arena.storage.rows import (
    IMPORTED_MODE,
    bulk_insert,
    driver_value,
    find_or_insert,
    new_id,
    row_id,
)
from arena.storage.tables import GameMap, Tournament

IMPORT_DIALECT = "import"
IMPORT_STATUS = "imported"
MAP_PREFIX = "import:"


@dataclass(frozen=True)
class ImportedSeat:
    role: str
    participant: str
    score: float | None  # None: forfeit
    forfeit: bool = False


@dataclass(frozen=True)
class ImportedMatch:
    """One validated row: ``ident`` (the file's match id, or its line number) becomes part
    of the stored match key, so it must be unique within the file."""

    ident: str
    game: str
    map_label: str
    mode: str  # "head_to_head", or "eval" for a single seat
    seats: tuple[ImportedSeat, ...]


@dataclass(frozen=True)
class ImportSource:
    """Provenance of one imported file, as kept in the tournament's config."""

    file: str
    sha256: str
    format: str
    outcome: str  # how scores compare: "higher-wins" or "win-share"
    point: str  # the source's point estimate convention: "mle" or "bootstrap_mean"
    run_id: int
    matches: int
    imported_at: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ImportSource:
        return cls(
            str(data["file"]), str(data["sha256"]), str(data["format"]), str(data["outcome"]),
            str(data.get("point", "mle")), int(data["run_id"]), int(data["matches"]),
            str(data["imported_at"]),
        )


@dataclass(frozen=True)
class ImportBatch:
    tournament: str
    file: str
    sha256: str
    format: str
    outcome: str
    point: str
    matches: Sequence[ImportedMatch]
    arena_version: str = ""


@dataclass(frozen=True)
class ImportResult:
    source: ImportSource
    created: bool  # False: the file was imported before and nothing changed


def match_key(tournament: str, sha256: str, ident: str) -> str:
    """The stored key of an imported match; sorts in file order within one file."""
    scope = hashlib.sha256(f"{tournament}\0{sha256}".encode()).hexdigest()[:16]
    return f"import:{scope}:{ident}"


@dataclass(frozen=True)
class TournamentInfo:
    id: int
    name: str
    mode: str
    config: dict[str, Any]  # the stored config (a tournament file, or the import sources)


def tournament_info(engine: Engine, tournament: str) -> TournamentInfo | None:
    """The stored row of `tournament`, or None when there is no such tournament."""
    query = select(col(Tournament.id), col(Tournament.mode), col(Tournament.config_json)).where(
        col(Tournament.name) == tournament
    )
    with engine.connect() as conn:
        row = conn.execute(query).first()
    if row is None:
        return None
    found = json.loads(str(row[2]))
    config = found if isinstance(found, dict) else {}
    return TournamentInfo(row_id(row[0]), tournament, str(row[1]), config)


def tournament_config(engine: Engine, tournament: str) -> dict[str, Any] | None:
    """The stored config of `tournament` as a dict, or None when there is no such tournament."""
    info = tournament_info(engine, tournament)
    return None if info is None else info.config


def import_sources(engine: Engine, tournament: str) -> list[ImportSource]:
    """The files imported into `tournament`, oldest first (empty for a played tournament)."""
    return _sources(tournament_config(engine, tournament))


def map_labels(engine: Engine, map_ids: Sequence[int]) -> dict[int, str]:
    """The label of each imported map (maps of played tournaments are absent)."""
    out: dict[int, str] = {}
    ids = sorted(set(map_ids))
    with engine.connect() as conn:
        for start in range(0, len(ids), 500):
            query = select(col(GameMap.id), col(GameMap.story_source)).where(
                col(GameMap.id).in_(ids[start : start + 500])
            )
            for ident, source in conn.execute(query):
                if str(source).startswith(MAP_PREFIX):
                    out[row_id(ident)] = str(source)[len(MAP_PREFIX) :]
    return out


def save_import(engine: Engine, batch: ImportBatch) -> ImportResult:
    """Store the batch in one transaction, unless its sha256 is already a source of the
    tournament; a tournament played by `arena run` is refused."""
    for _ in range(2):  # the second pass sees what a concurrent importer committed
        try:
            with write_engine(engine).begin() as conn:
                return _save(conn, batch)
        except IntegrityError:
            continue
    raise StorageError(f"Could not import {batch.file}: concurrent writes kept conflicting.")


def _sources(config: Mapping[str, Any] | None) -> list[ImportSource]:
    block = (config or {}).get("import")
    if not isinstance(block, dict):
        return []
    return [ImportSource.from_json(s) for s in block.get("sources", [])]


def _save(conn: Connection, batch: ImportBatch) -> ImportResult:
    row = conn.execute(
        select(col(Tournament.id), col(Tournament.config_json)).where(
            col(Tournament.name) == batch.tournament
        )
    ).first()
    config: dict[str, Any] = {"import": {"sources": []}}
    if row is not None:
        config = json.loads(str(row[1]))
        if not isinstance(config, dict) or not isinstance(config.get("import"), dict):
            # played by `arena run`: its config is a tournament file, not a list of sources
            raise StorageError(
                f"Tournament '{batch.tournament}' holds matches played by `arena run`; imported "
                "results go into a tournament of their own. Use another name, e.g. "
                f"--tournament {batch.tournament}-imported, and rate both together with "
                f"`arena ratings --tournament {batch.tournament} "
                f"--tournament {batch.tournament}-imported`."
            )
        for source in _sources(config):
            if source.sha256 == batch.sha256:
                return ImportResult(source, created=False)
    now = t.utcnow()
    if row is None:
        tournament_id = new_id(
            conn.execute(
                insert(Tournament),
                {"name": batch.tournament, "mode": IMPORTED_MODE,
                 "config_json": json.dumps(config), "created_at": now},
            )
        )
    else:
        tournament_id = row_id(row[0])
    run_id = new_id(
        conn.execute(
            insert(t.Run),
            {
                "tournament_id": tournament_id, "status": IMPORT_STATUS,
                "planned": len(batch.matches), "pending": len(batch.matches),
                "config_sha256": batch.sha256, "arena_version": batch.arena_version,
                "host": socket.gethostname(), "pid": os.getpid(), "started_at": now,
                "finished_at": now,
            },
        )
    )
    _insert_batch(conn, batch, tournament_id, run_id, now)
    source = ImportSource(
        batch.file, batch.sha256, batch.format, batch.outcome, batch.point, run_id,
        len(batch.matches), now.isoformat(timespec="seconds"),
    )
    config["import"].setdefault("sources", []).append(asdict(source))
    conn.execute(
        update(Tournament)
        .where(col(Tournament.id) == tournament_id)
        .values(config_json=json.dumps(config, sort_keys=True))
    )
    return ImportResult(source, created=True)


def _insert_batch(
    conn: Connection, batch: ImportBatch, tournament_id: int, run_id: int, now: datetime
) -> None:
    """Insert the batch's matches and seats in bulk: one statement per table, whatever the
    number of rows (a file of 200 000 results took minutes row by row). Every key is new:
    keys are scoped by the file's sha256, and a file already imported never gets here."""
    spec = f"import:{batch.format}"
    judge_id = find_or_insert(
        conn, t.JudgeRecord,
        {"spec": spec, "name": "external", "model": "", "revision": "", "dtype": ""},
        {"vocab_size": 0},
    )
    people = {
        name: find_or_insert(
            conn, t.Participant,
            {"name": name, "spec": spec, "plugin": "import", "plugin_version": ""},
            {"model": "", "params_json": "{}"},
        )
        for name in dict.fromkeys(s.participant for m in batch.matches for s in m.seats)
    }
    games = {
        name: find_or_insert(
            conn, t.Game,
            {"name": name, "version": IMPORT_DIALECT, "dialect": IMPORT_DIALECT,
             "code_sha256": ""},
            {"filename": "", "source": ""},
        )
        for name in dict.fromkeys(m.game for m in batch.matches)
    }
    maps = _map_ids(conn, batch, games, now)
    # a map's index in its game: the order its label first appears in the file
    index: dict[tuple[str, str], int] = {}
    per_game: dict[str, int] = {}
    for m in batch.matches:
        if (m.game, m.map_label) not in index:
            index[(m.game, m.map_label)] = per_game.get(m.game, 0)
            per_game[m.game] = per_game.get(m.game, 0) + 1
    keys = [match_key(batch.tournament, batch.sha256, m.ident) for m in batch.matches]
    moment = driver_value(conn, MATCHES, "started_at", now)
    done, dialect, local, in_process = MATCH_DONE, IMPORT_DIALECT, "local", "in-process"
    bulk_insert(conn, MATCHES, _MATCH_COLUMNS, (
        (key, tournament_id, run_id, games[m.game], maps[(m.game, m.map_label)], judge_id,
         index[(m.game, m.map_label)], 0, m.mode,
         m.seats[0].role if m.mode == "eval" else None, 1, dialect, done, None, 0, moment,
         moment, 0.0, local, in_process)  # executor and judge as FinishedMatch has them
        for key, m in zip(keys, batch.matches, strict=True)
    ))
    ids = {
        str(key): row_id(ident)
        for key, ident in conn.execute(
            select(MATCHES.c.key, MATCHES.c.id).where(MATCHES.c.run_id == run_id)
        )
    }
    main = driver_value(conn, SEATS, "main", True)
    forfeit = {flag: driver_value(conn, SEATS, "forfeit", flag) for flag in (False, True)}
    bulk_insert(conn, SEATS, _SEAT_COLUMNS, (
        (ids[key], s.role, people[s.participant], main, s.score, forfeit[s.forfeit],
         json.dumps([s.score]))
        for key, m in zip(keys, batch.matches, strict=True)
        for s in m.seats
    ))


_MATCH_COLUMNS = (
    "key", "tournament_id", "run_id", "game_id", "map_id", "judge_id", "map_index",
    "play_seed", "mode", "main_role", "rounds", "dialect", "status", "error", "event_count",
    "started_at", "finished_at", "duration_s", "executor", "judge_backend",
)
_SEAT_COLUMNS = (
    "match_id", "role", "participant_id", "main", "best", "forfeit", "round_scores_json",
)


def _map_ids(
    conn: Connection, batch: ImportBatch, games: Mapping[str, int], now: datetime
) -> dict[tuple[str, str], int]:
    """The id of each (game, map label) of the batch, inserting the maps not stored yet
    (imported maps are shared by every import of a game name)."""
    wanted = dict.fromkeys((m.game, m.map_label) for m in batch.matches)
    by_id = {ident: game for game, ident in games.items()}

    def stored() -> dict[tuple[str, str], int]:
        found: dict[tuple[str, str], int] = {}
        ids = sorted(by_id)
        for start in range(0, len(ids), 500):
            query = select(col(GameMap.id), col(GameMap.game_id), col(GameMap.story_source)).where(
                col(GameMap.game_id).in_(ids[start : start + 500]), col(GameMap.seed) == 0
            )
            for ident, game_id, source in conn.execute(query):
                if str(source).startswith(MAP_PREFIX):
                    key = (by_id[row_id(game_id)], str(source)[len(MAP_PREFIX) :])
                    found[key] = row_id(ident)
        return found

    found = stored()
    missing = [key for key in wanted if key not in found]
    if missing:
        conn.execute(insert(GameMap), [
            {"game_id": games[game], "seed": 0, "story_source": MAP_PREFIX + label,
             "stories_json": "{}", "created_at": now}
            for game, label in missing
        ])
        found = stored()
    return {key: found[key] for key in wanted}
