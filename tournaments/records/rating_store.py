"""Ratings read from and written to the database: the rating inputs of stored tournaments,
rating snapshots, and the leaderboard of stored matches as text.

The I/O side of `arena.tournaments.ratings.service` (whose functions are pure), so that
`arena.tournaments.ratings` never imports storage queries, the exchange or the records
reader: this module sits above them.

`load_inputs` is the one way to the ratings' inputs (records, win-share matches, point
convention, base, normalisation) and `rating_rows` the one board: `arena ratings`, every
snapshot and the dashboard's live board (which reads through its read model, a
`RatingSource` like `Store`) call them, so they agree number for number.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from arena.storage import MATCH_DONE, MATCH_NO_RESULT, Store, StoredMatch
from arena.storage.imports import ImportSource
from arena.storage.queries import SeatSpendRow
from arena.tournaments.ratings import Leaderboard, MatchRecord
from arena.tournaments.ratings.leaderboard_text import render_leaderboard
from arena.tournaments.ratings.outcomes import WIN_SHARE
from arena.tournaments.ratings.records import NoResultRecord
from arena.tournaments.ratings.service import (
    DEFAULT_OPTIONS,
    SNAPSHOT_METHOD,
    RatingInputs,
    RatingOptions,
    compute_ratings,
    snapshot_payload,
)
from arena.tournaments.ratings.spend import ParticipantCost, participant_costs
from arena.tournaments.records.from_store import (
    check_tournaments,
    no_result_records,
    records_from_store,
)


class RatingSource(Protocol):
    """Where the rating inputs are read: a `Store`, or the dashboard's read-only
    `arena.storage.read_model.ReadModel` (the same storage queries)."""

    def tournament_names(self) -> list[str]: ...

    def stored_matches(self, tournament: str, *, status: str | None = None) -> list[StoredMatch]:
        ...

    def import_sources(self, tournament: str) -> list[ImportSource]: ...

    def tournament_config(self, tournament: str) -> dict[str, Any] | None: ...


class SpendSource(Protocol):
    """Where the players' spend is read: a `Store` or the dashboard's `ReadModel`."""

    def tournament_names(self) -> list[str]: ...

    def seat_spend(self, tournament: str) -> list[SeatSpendRow]: ...


Records = Callable[[Sequence[StoredMatch]], list[MatchRecord]]


def load_inputs(
    store: RatingSource, tournaments: Sequence[str], records_of: Records = records_from_store
) -> RatingInputs:
    """Records and conventions of `tournaments` (UnknownNameError for an unknown name).
    `records_of` is `records_from_store`, or a caller's cache in front of it (the dashboard
    keeps the records of done matches it has made: they never change)."""
    names = check_tournaments(store, tournaments)
    records: list[MatchRecord] = []
    no_results: list[NoResultRecord] = []
    win_share: set[str] = set()
    points: set[str] = set()
    bases: set[str] = set()
    choices: set[str] = set()
    for name in names:
        matches = store.stored_matches(name, status=MATCH_DONE)
        records += records_of(matches)
        no_results += no_result_records(store.stored_matches(name, status=MATCH_NO_RESULT))
        sources = store.import_sources(name)
        points |= {s.point for s in sources} if sources else {"mle"}
        share_runs = {s.run_id for s in sources if s.outcome == WIN_SHARE}
        win_share |= {m.key for m in matches if m.run_id in share_runs}
        stored = store.tournament_config(name) or {}
        base = stored.get("base")
        if isinstance(base, str) and base:
            bases.add(base)
        if isinstance(stored.get("normalisation"), Mapping):
            choices.add(json.dumps(stored["normalisation"], sort_keys=True))
    return RatingInputs(
        tuple(names),
        tuple(records),
        frozenset(win_share),
        frozenset(points),
        bases.pop() if len(bases) == 1 else None,
        json.loads(choices.pop()) if len(choices) == 1 else None,
        tuple(no_results),
    )


def load_costs(store: SpendSource, tournaments: Sequence[str]) -> dict[str, ParticipantCost]:
    """Each participant's spend over its rated seats of the tournaments' done matches
    (`arena.tournaments.ratings.spend`)."""
    return participant_costs(
        row for name in check_tournaments(store, tournaments) for row in store.seat_spend(name)
    )


def rating_rows(
    store: RatingSource,
    tournaments: Sequence[str],
    options: RatingOptions = DEFAULT_OPTIONS,
    records_of: Records = records_from_store,
) -> list[dict[str, Any]]:
    """Leaderboard rows as dicts ``{participant, rating, ci_low, ci_high, rank_low,
    rank_high, n_comparisons, provisional}``, best first: what `arena ratings` prints."""
    return rated(store, tournaments, options, records_of)[1].as_dicts()


def rated(
    store: RatingSource,
    tournaments: Sequence[str],
    options: RatingOptions = DEFAULT_OPTIONS,
    records_of: Records = records_from_store,
) -> tuple[RatingInputs, Leaderboard]:
    """The inputs of `tournaments` and their leaderboard (`arena ratings`)."""
    inputs = load_inputs(store, tournaments, records_of)
    return inputs, compute_ratings(inputs, options)


def store_snapshot(
    store: Store,
    tournament: str,
    *,
    run_id: int | None = None,
    options: RatingOptions = DEFAULT_OPTIONS,
) -> int:
    """Rate all done matches of `tournament` now and store the result as a snapshot (method
    ``bradley_terry``); returns the snapshot id. Ratings accumulate across runs: each run's
    snapshot covers every match stored so far."""
    inputs = load_inputs(store, [tournament])
    payload = json.loads(json.dumps(snapshot_payload(inputs, options, run_id)))
    info = store.tournament_info(tournament)
    ident = None if info is None else info.id
    return store.save_rating_snapshot(ident, SNAPSHOT_METHOD, payload)


def leaderboard_text(
    store: Store, tournaments: Sequence[str], options: RatingOptions = DEFAULT_OPTIONS
) -> str:
    """Rate the stored matches of `tournaments` and render the leaderboard."""
    inputs = load_inputs(store, tournaments)
    return render_leaderboard(inputs, options, compute_ratings(inputs, options))
