"""The global filters of the dashboard (`Filters`, declared with the read model that takes
them) and their query-parameter form (shareable links)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from arena.storage.read_model.filters import Filters as Filters  # its home: the read model

# query-parameter names: global filters, then per-page state (match, seat, ...)
P_TOURNAMENT = "tournament"
P_SNAPSHOT = "snapshot"
P_GAME = "game"  # repeated: ?game=a&game=b
P_JUDGE = "judge"
P_SINCE = "since"
P_UNTIL = "until"
GLOBAL_PARAMS = (P_TOURNAMENT, P_SNAPSHOT, P_GAME, P_JUDGE, P_SINCE, P_UNTIL)


# Dates a link may name: beyond these no match was finished, and the far ends overflow
# date arithmetic and pandas timestamps (?until=9999-12-31 crashed the page).
EARLIEST, LATEST = date(1970, 1, 1), date(2200, 12, 31)
_MAX_DIGITS = 18  # an int64; ?round= with 5 000 digits is no round


def _date(text: str | None) -> date | None:
    if not text:
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        return None
    return day if EARLIEST <= day <= LATEST else None


def small_int(text: str | None) -> int | None:
    """A link's integer (ASCII digits, at most 18 of them), else None: `isdigit` also
    accepts '²', which `int` refuses."""
    if not text or len(text) > _MAX_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def filters_from_params(single: Mapping[str, str], games: Sequence[str]) -> Filters:
    """Filters from query parameters (`single`: one value per name; `games`: every ?game=).
    Unparseable values are ignored rather than fatal: a link stays usable. Dates out of
    order are taken as the window they span."""
    since, until = _date(single.get(P_SINCE)), _date(single.get(P_UNTIL))
    return Filters(
        tournament=single.get(P_TOURNAMENT) or None,
        snapshot=small_int(single.get(P_SNAPSHOT)),
        games=tuple(sorted(g for g in games if g)),
        judge=single.get(P_JUDGE) or None,
        since=min(since, until) if since and until else since,
        until=max(since, until) if since and until else until,
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
