"""`games = "scope:NAME"` in a tournament file: the games of a scope grown by `arena scope
grow` (its initial and accepted games), read from the tournament's database.

The games' text comes from the scope's rows and is checked like any game file when the
tournament is prepared (`arena.tournaments.prepare`); it is never executed as Python.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.storage import Database, scopes
from arena.storage.engine import describe
from arena.storage.read_only import open_read_only

PREFIX = "scope:"
DatabaseRef = str | Database | None  # a URL (None: the default database) or an open handle


@dataclass(frozen=True)
class ScopeGames:
    """The `[[games]]` entries standing for a scope and each one's text by label."""

    entries: list[dict[str, Any]]
    texts: dict[str, tuple[str, str]]  # label -> (source, filename)


def is_scope_ref(value: object) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX)


def _read(engine: Database, name: str) -> ScopeGames:
    games = scopes.accepted_games(engine, name)
    if games is None:
        raise scopes.unknown_scope(name, scopes.scope_names(engine))
    if not games:
        raise ArenaError(
            f"The scope '{name}' in {describe(engine)} has no games yet; grow it with "
            f"`arena scope grow --name {name} --from GAME`."
        )
    names = Counter(g.name for g in games)
    # a name two texts share (two parents' mutations alike named) gets its text's hash
    labels = [g.name if names[g.name] == 1 else f"{g.name}-{g.sha256[:8]}" for g in games]
    entries = [{"game": label, "name": label} for label in labels]
    texts = {label: (g.source, g.filename) for label, g in zip(labels, games, strict=True)}
    return ScopeGames(entries, texts)


def scope_games(ref: str, db: DatabaseRef) -> ScopeGames:
    """The games of `scope:NAME` in the database `db`; `ArenaError` with the fix when the
    scope (or the database) is not there."""
    name = ref[len(PREFIX):]
    if isinstance(db, Database):
        return _read(db, name)
    try:
        engine = open_read_only(db)
    except ArenaError as error:
        raise ArenaError(
            f"games = \"{ref}\" needs the database that holds the scope: {error}"
        ) from None
    try:
        return _read(engine, name)
    finally:
        engine.dispose()


def expand(data: Mapping[str, Any], db: DatabaseRef) -> tuple[dict[str, Any], ScopeGames | None]:
    """`data` with a `games = "scope:NAME"` replaced by the scope's games (else as is)."""
    ref = data.get("games")
    if not is_scope_ref(ref):
        return dict(data), None
    assert isinstance(ref, str)
    found = scope_games(ref, db)
    return {**data, "games": found.entries}, found


__all__ = ["PREFIX", "ScopeGames", "expand", "is_scope_ref", "scope_games"]
