"""The games a page match may name: a registered game's name or pasted text, never a path on
the server (a pasted game is read as a scope's game is, its text and never a file, by the
same loader with the same resource limits; nothing on the server's disk is looked at, so
the answer is the same for any path)."""

from __future__ import annotations

from arena.errors import UnknownNameError
from arena.lang.limits import ResourceLimits
from arena.match_setup import LoadedGame, load_entry, load_game_text
from arena.plugins.registry import Registry
from arena.specs import shorten

PASTED = "pasted"


def registered_game(game: str, registry: Registry) -> str:
    """`game` if it is a registered game's name; else UnknownNameError listing them."""
    if game not in registry.game_names():
        raise UnknownNameError(
            "game", shorten(game, 60), registry.game_names(),
            "Pick one of the page's games, or paste a game's text (XGL).",
        )
    return game


def page_game(game: str, source: str, dialect: str | None, registry: Registry,
              limits: ResourceLimits) -> LoadedGame:
    """The game the page names: pasted text, else a registered name (never a path)."""
    if source:
        return load_game_text(source, f"{PASTED}.xgl", dialect=dialect, limits=limits)
    entry = registry.game(registered_game(game, registry))
    return load_entry(entry, dialect=dialect, limits=limits)
