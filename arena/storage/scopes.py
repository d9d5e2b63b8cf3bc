"""Scopes grown by Algorithm 1 (`arena scope grow`) and their archives (tables `scopes`,
`scope_games`).

Every game the growth looked at is one row, written as soon as it was measured and updated
when its batch was decided, so a killed run loses at most the candidate in progress; the
rows are also what a rerun replays instead of asking the pipeline and the oracle again
(`arena.gamespace.scope.growth`). A game is stored once per scope (by the sha256 of its text).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Row, case, func, insert, select, update
from sqlmodel import col

from arena.errors import ConfigError, did_you_mean
from arena.storage import tables as t
from arena.storage.engine import write_engine
from arena.storage.tables import Scope, ScopeGame

GROWING, DONE, INTERRUPTED = "growing", "done", "interrupted"


@dataclass(frozen=True)
class ScopeRecord:
    """A scope: its parameters (JSON), the fine-tuning setting of its values, its status."""

    id: int
    name: str
    params_json: str
    setting_sha256: str
    status: str
    round: int
    state: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = field(default=None, compare=False)
    updated_at: datetime | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ScopeGameRecord:
    """One game of a scope's archive: an initial game (parent None), or a candidate with
    its round, whether it was accepted, its gamma and what the growth saw (`verdicts`:
    pipeline verdicts, transfer values, the decision)."""

    name: str
    sha256: str
    filename: str
    source: str
    parent: str | None
    round: int
    accepted: bool
    gamma: float | None
    lineage: dict[str, Any] = field(default_factory=dict)
    verdicts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScopeSummary:
    """A line of `arena scope list`."""

    name: str
    status: str
    round: int
    games: int
    candidates: int
    updated_at: datetime


def _scope(row: Row[Any]) -> ScopeRecord:
    return ScopeRecord(
        row.id, row.name, row.params_json, row.setting_sha256, row.status, row.round,
        json.loads(row.state_json or "{}"), row.created_at, row.updated_at,
    )


def _game(row: Row[Any]) -> ScopeGameRecord:
    return ScopeGameRecord(
        row.name, row.sha256, row.filename, row.source, row.parent, row.round,
        bool(row.accepted), row.gamma, json.loads(row.lineage_json or "{}"),
        json.loads(row.verdicts_json or "{}"),
    )


def scope(engine: Engine, name: str) -> ScopeRecord | None:
    """The scope called `name`, if stored."""
    with engine.connect() as conn:
        row = conn.execute(select(Scope).where(col(Scope.name) == name)).first()
    return None if row is None else _scope(row)


def unknown_scope(name: str, known: Sequence[str]) -> ConfigError:
    """The error for a scope name the database does not hold."""
    return ConfigError(
        f"No scope called '{name}' in this database.{did_you_mean(name, known)} Grow it with "
        "`arena scope grow --name NAME --from GAME`, or point --db at its database."
    )


def scope_names(engine: Engine) -> list[str]:
    """Every stored scope's name, sorted."""
    with engine.connect() as conn:
        return sorted(conn.execute(select(col(Scope.name))).scalars())


def create_scope(engine: Engine, name: str, params_json: str, setting_sha256: str) -> ScopeRecord:
    """Store a new scope (status growing, round 0) and return it."""
    now = t.utcnow()
    with write_engine(engine).begin() as conn:
        conn.execute(insert(Scope), {
            "name": name, "params_json": params_json, "setting_sha256": setting_sha256,
            "status": GROWING, "round": 0, "state_json": "{}", "created_at": now,
            "updated_at": now,
        })
    made = scope(engine, name)
    assert made is not None
    return made


def set_progress(
    engine: Engine, scope_id: int, *, status: str, round: int, state: dict[str, Any]
) -> None:
    """Record where the growth stands (shown by `arena scope show`; resuming replays)."""
    with write_engine(engine).begin() as conn:
        conn.execute(update(Scope).where(col(Scope.id) == scope_id).values(
            status=status, round=round, state_json=json.dumps(state), updated_at=t.utcnow(),
        ))


def games(engine: Engine, scope_id: int) -> list[ScopeGameRecord]:
    """The scope's archive in the order the games were first stored."""
    query = select(ScopeGame).where(col(ScopeGame.scope_id) == scope_id).order_by(col(ScopeGame.id))
    with engine.connect() as conn:
        return [_game(r) for r in conn.execute(query)]


def _game_values(game: ScopeGameRecord) -> dict[str, Any]:
    return {
        "name": game.name, "filename": game.filename, "source": game.source,
        "parent": game.parent, "round": game.round, "accepted": game.accepted,
        "gamma": game.gamma, "lineage_json": json.dumps(game.lineage, ensure_ascii=False),
        "verdicts_json": json.dumps(game.verdicts, ensure_ascii=False),
    }


def save_games(engine: Engine, scope_id: int, records: Sequence[ScopeGameRecord]) -> None:
    """Store each game in the archive, or update its row (same text) in place, all in one
    transaction (a batch is stored whole or not at all); a row keeps its first position."""
    with write_engine(engine).begin() as conn:
        for game in records:
            key = (col(ScopeGame.scope_id) == scope_id) & (col(ScopeGame.sha256) == game.sha256)
            values = _game_values(game)
            if conn.execute(select(col(ScopeGame.id)).where(key)).first() is None:
                conn.execute(insert(ScopeGame), {
                    **values, "scope_id": scope_id, "sha256": game.sha256,
                    "created_at": t.utcnow(),
                })
            else:
                conn.execute(update(ScopeGame).where(key).values(**values))
        conn.execute(update(Scope).where(col(Scope.id) == scope_id).values(
            updated_at=t.utcnow()
        ))


def save_game(engine: Engine, scope_id: int, game: ScopeGameRecord) -> None:
    """`save_games` of one game."""
    save_games(engine, scope_id, [game])


def accepted_games(engine: Engine, name: str) -> list[ScopeGameRecord] | None:
    """The games of scope `name` (initial and accepted), in archive order; None when there
    is no such scope."""
    found = scope(engine, name)
    if found is None:
        return None
    return [g for g in games(engine, found.id) if g.accepted]


def summaries(engine: Engine) -> list[ScopeSummary]:
    """Every scope with its counts, the most recently updated first."""
    accepted = func.sum(case((col(ScopeGame.accepted).is_(True), 1), else_=0))
    query = (
        select(
            col(Scope.name), col(Scope.status), col(Scope.round), col(Scope.updated_at),
            func.count(col(ScopeGame.id)).label("candidates"),
            accepted.label("games"),
        )
        .outerjoin(ScopeGame, col(ScopeGame.scope_id) == col(Scope.id))
        .group_by(col(Scope.id))
        .order_by(col(Scope.updated_at).desc())
    )
    with engine.connect() as conn:
        return [
            ScopeSummary(r.name, r.status, r.round, int(r.games or 0), r.candidates,
                         r.updated_at)
            for r in conn.execute(query)
        ]


__all__ = [
    "DONE", "GROWING", "INTERRUPTED", "ScopeGameRecord", "ScopeRecord", "ScopeSummary",
    "accepted_games", "create_scope", "games", "save_game", "save_games", "scope",
    "scope_names",
    "set_progress", "summaries", "unknown_scope",
]
