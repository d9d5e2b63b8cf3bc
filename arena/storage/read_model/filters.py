"""The global filters every read of the dashboard takes: one tournament, some games, one
judge, a window of finish dates. Plain data, hashable, so it keys caches; the dashboard
reads and writes them as query parameters (`arena.dashboard.filters`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date


@dataclass(frozen=True)
class Filters:
    """What every page shows: one tournament's matches, optionally only some games, one
    judge (by spec) and a window of finish dates (inclusive, UTC). Hashable, so it keys caches."""

    tournament: str | None = None
    snapshot: int | None = None
    games: tuple[str, ...] = ()
    judge: str | None = None
    since: date | None = None
    until: date | None = None

    def with_games(self, games: Sequence[str]) -> Filters:
        return replace(self, games=tuple(sorted(games)))
