"""The global filters of the dashboard and their query-parameter form (shareable links)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date

# query-parameter names: global filters, then per-page state (match, seat, ...)
P_TOURNAMENT = "tournament"
P_SNAPSHOT = "snapshot"
P_GAME = "game"  # repeated: ?game=a&game=b
P_JUDGE = "judge"
P_SINCE = "since"
P_UNTIL = "until"
GLOBAL_PARAMS = (P_TOURNAMENT, P_SNAPSHOT, P_GAME, P_JUDGE, P_SINCE, P_UNTIL)


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


def _date(text: str | None) -> date | None:
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _int(text: str | None) -> int | None:
    try:
        return None if text is None else int(text)
    except ValueError:
        return None


def filters_from_params(single: Mapping[str, str], games: Sequence[str]) -> Filters:
    """Filters from query parameters (`single`: one value per name; `games`: every ?game=).
    Unparseable values are ignored rather than fatal: a link stays usable."""
    return Filters(
        tournament=single.get(P_TOURNAMENT) or None,
        snapshot=_int(single.get(P_SNAPSHOT)),
        games=tuple(sorted(g for g in games if g)),
        judge=single.get(P_JUDGE) or None,
        since=_date(single.get(P_SINCE)),
        until=_date(single.get(P_UNTIL)),
    )


def params_from_filters(filters: Filters) -> dict[str, str | list[str]]:
    """The query parameters that reproduce `filters` (unset ones left out)."""
    out: dict[str, str | list[str]] = {}
    if filters.tournament:
        out[P_TOURNAMENT] = filters.tournament
    if filters.snapshot is not None:
        out[P_SNAPSHOT] = str(filters.snapshot)
    if filters.games:
        out[P_GAME] = list(filters.games)
    if filters.judge:
        out[P_JUDGE] = filters.judge
    if filters.since:
        out[P_SINCE] = filters.since.isoformat()
    if filters.until:
        out[P_UNTIL] = filters.until.isoformat()
    return out
