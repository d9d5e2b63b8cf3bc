"""The built-in games: every ``*.xgl`` and ``*.xent`` file shipped in the `arena.games`
package, registered through the same `arena_games` hook as third-party games.

A game's name is its file stem; its version and description come from the header comments
(``# version: 2``, ``# measures: ...``), see `GameEntry.from_source`.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

from arena.lang.game_file import GAME_SUFFIXES
from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_types import GameEntry


def games_in(directory: Traversable) -> list[GameEntry]:
    """A `GameEntry` per game file directly in `directory`, sorted by file name."""
    found = [
        item
        for item in directory.iterdir()
        if item.is_file() and item.name.endswith(GAME_SUFFIXES)
    ]
    return [
        GameEntry.from_source(item.read_text(encoding="utf-8"), item.name)
        for item in sorted(found, key=lambda item: item.name)
    ]


@hookimpl
def arena_games() -> list[GameEntry]:
    """Every game file bundled with the arena."""
    return games_in(files("arena.games"))
