"""`games = "scope:NAME"` in a tournament file: the games of a scope grown by `arena scope
grow` (its initial and accepted games), read from the tournament's database.
`games = "scope:NAME?cover=ETA"` plays only the scope's optimal ETA-cover (Def. 45, from the
transfer values the growth measured; `arena.gamespace.scope.report.scope_cover`): the
games whose scores make Def. 47's benchmark measure.

The games' text comes from the scope's rows and is checked like any game file when the
tournament is prepared (`arena.tournaments.running.prepare`); it is never executed as Python.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.storage import Store
from arena.storage.scopes import unknown_scope

PREFIX = "scope:"
DatabaseRef = str | Store | None  # a URL (None: the default database) or an open store


@dataclass(frozen=True)
class ScopeGames:
    """The `[[games]]` entries standing for a scope and each one's text by label."""

    entries: list[dict[str, Any]]
    texts: dict[str, tuple[str, str]]  # label -> (source, filename)


def is_scope_ref(value: object) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX)


def _cover_eta(ref: str, query: str) -> float | None:
    from urllib.parse import parse_qs

    params = parse_qs(query, keep_blank_values=True)
    unknown = sorted(set(params) - {"cover"})
    text = params.get("cover", [None])[-1]
    try:
        eta = None if text is None else float(text)
    except ValueError:
        eta = None
        unknown = unknown or ["cover"]
    if unknown or (text is not None and eta is None):
        raise ArenaError(
            f"games = \"{ref}\" has a bad option ({', '.join(unknown)}): the only option is "
            "cover=ETA, a number such as 0.5; write e.g. \"scope:NAME?cover=0.5\"."
        )
    return eta


def _read(store: Store, name: str, eta: float | None = None) -> ScopeGames:
    games = store.accepted_scope_games(name)
    if games is None:
        raise unknown_scope(name, store.scope_names())
    if not games:
        raise ArenaError(
            f"The scope '{name}' in {store.describe()} has no games yet; grow it with "
            f"`arena scope grow --name {name} --from GAME`."
        )
    if eta is not None:
        from arena.gamespace.scope.report import archive_values, scope_cover
        found = store.scope(name)
        assert found is not None  # accepted_games found it
        rows = store.scope_archive(found.id)
        values = archive_values(rows, store.transfers(found.setting_sha256))
        gamma, _ = scope_cover(rows, values, eta)
        games = [g for g in games if g.sha256 in set(gamma.games)]
    names = Counter(g.name for g in games)
    # a name two texts share (two parents' mutations alike named) gets its text's hash
    labels = [g.name if names[g.name] == 1 else f"{g.name}-{g.sha256[:8]}" for g in games]
    entries = [{"game": label, "name": label} for label in labels]
    texts = {label: (g.source, g.filename) for label, g in zip(labels, games, strict=True)}
    return ScopeGames(entries, texts)


def scope_games(ref: str, db: DatabaseRef) -> ScopeGames:
    """The games of `scope:NAME` in the database `db`; `ArenaError` with the fix when the
    scope (or the database) is not there."""
    name, _, query = ref[len(PREFIX):].partition("?")
    eta = _cover_eta(ref, query)
    if isinstance(db, Store):
        return _read(db, name, eta)
    try:
        store = Store.open_read_only(db)
    except ArenaError as error:
        raise ArenaError(
            f"games = \"{ref}\" needs the database that holds the scope: {error}"
        ) from None
    try:
        return _read(store, name, eta)
    finally:
        store.close()


def expand(data: Mapping[str, Any], db: DatabaseRef) -> tuple[dict[str, Any], ScopeGames | None]:
    """`data` with a `games = "scope:NAME"` replaced by the scope's games (else as is)."""
    ref = data.get("games")
    if not is_scope_ref(ref):
        return dict(data), None
    assert isinstance(ref, str)
    found = scope_games(ref, db)
    return {**data, "games": found.entries}, found


__all__ = ["PREFIX", "ScopeGames", "expand", "is_scope_ref", "scope_games"]
