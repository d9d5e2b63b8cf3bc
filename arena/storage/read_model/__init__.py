"""The read model: every query a viewer (the dashboard) makes, declared in one place.

`ReadModel.open(url)` opens the database read-only with its schema checked (never migrated);
each method below is one query, ``(filters, ...) -> DataFrame`` or plain records, one module
per concept. Aggregation happens in SQL, so pages stay fast over 100 000 matches. Nothing
here imports Streamlit (the dashboard caches these calls itself, `arena.dashboard.cache`,
given the methods themselves, typed) or writes. It needs pandas (the dashboard extra), so
it is imported only by the dashboard and never by `arena.storage` itself.
"""

from __future__ import annotations

from sqlalchemy import Engine

from arena.storage import imports, queries
from arena.storage import live as live_rows
from arena.storage import scopes as scope_rows
from arena.storage import transfers as transfer_rows
from arena.storage.door import operation
from arena.storage.engine import database_key
from arena.storage.read_model import catalogue, frames, history, live, participants, replay, state
from arena.storage.read_model import matches as match_reads
from arena.storage.read_model import scopes as scope_reads
from arena.storage.read_model import transfers as transfer_reads
from arena.storage.read_model.filters import Filters
from arena.storage.read_model.frames import MATCH_TABLE_LIMIT
from arena.storage.read_model.history import SnapshotView
from arena.storage.read_model.live import LIVE_COLUMNS
from arena.storage.read_model.replay import MatchDetail
from arena.storage.read_model.state import DatabaseState
from arena.storage.read_only import open_read_only

__all__ = [
    "LIVE_COLUMNS",
    "MATCH_TABLE_LIMIT",
    "DatabaseState",
    "Filters",
    "MatchDetail",
    "ReadModel",
    "SnapshotView",
]


class ReadModel:
    """A read-only arena database and the queries a viewer may make of it. `engine` is for
    storage and its tests: the viewer calls methods."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    def open(cls, url: str | None = None) -> ReadModel:
        """The database at `url`, read-only, its schema checked (`StorageError` with the fix
        when it cannot be shown: missing, not an arena database, another schema version)."""
        return cls(open_read_only(url))

    def close(self) -> None:
        self.engine.dispose()

    where = operation(database_key)  # the database, password hidden: what a viewer keeps
    # per database is keyed by it

    def state(self, label: str) -> DatabaseState:
        """Whether the database can be shown now (`label` names it in the message)."""
        return state.database_state(self.engine, label)

    # what is stored, cheaply: the caches key on it
    watermark = operation(frames.watermark)

    # the catalogue: tournaments, games, judges, snapshots (filters and catalogue pages)
    tournaments = operation(catalogue.tournaments)
    game_names = operation(catalogue.game_names)
    judge_specs = operation(catalogue.judge_specs)
    snapshots = operation(catalogue.snapshots)
    snapshot_payload = operation(catalogue.snapshot_payload)
    run_config_sha = operation(catalogue.run_config_sha)
    date_range = operation(catalogue.date_range)
    games = operation(catalogue.games)
    role_scores = operation(catalogue.role_scores)

    # rating history
    snapshot_history = operation(history.snapshot_history)
    first_seen = operation(history.first_seen)

    # matches and seats
    matches = operation(match_reads.matches)
    match_count = operation(match_reads.match_count)
    seat_rows = operation(match_reads.seat_rows)
    scored_seats = operation(match_reads.scored_seats)
    participant_summary = operation(match_reads.participant_summary)
    head_to_head = operation(match_reads.head_to_head)
    done_match_ids = operation(queries.done_match_ids)
    match_counts = operation(queries.match_counts)
    seat_spend = operation(queries.seat_spend)

    # the rating inputs, read as `Store` reads them (`arena.tournaments.records.rating_store`)
    tournament_names = operation(queries.tournament_names)
    stored_matches = operation(queries.stored_matches)
    import_sources = operation(imports.import_sources)
    tournament_config = operation(imports.tournament_config)

    # participants
    participant_specs = operation(participants.participant_specs)
    people = operation(participants.people)
    participant_usage = operation(participants.participant_usage)

    # one match's replay
    match_ref = operation(replay.match_ref)
    match_detail = operation(replay.match_detail)
    comparable_matches = operation(replay.comparable_matches)

    # runs, schedules, live state
    runs = operation(live.runs)
    recent_matches_per_minute = operation(live.recent_matches_per_minute)
    # *_table: the viewer's frames (Store.schedules and .schedule_runs are records)
    schedule_table = operation(live.schedules)
    schedule_run_table = operation(live.schedule_runs)
    live_progress = operation(live.live_progress)
    live_matches = operation(live.live_matches)
    live_judges = operation(live.live_judges)
    next_recurring = operation(live.next_recurring)
    match_id_for_key = operation(live.match_id_for_key)
    live_events = operation(live.live_events)
    live_match = operation(live.live_match)
    live_runs = operation(live_rows.live_runs)

    # the game space: transfer values, scopes
    transfer_setting_table = operation(transfer_reads.transfer_settings)  # Store's: rows
    transfer_verdicts = operation(transfer_reads.transfer_verdicts)
    transfer_values = operation(transfer_reads.transfer_values)
    scope_list = operation(scope_reads.scope_list)
    scope = operation(scope_rows.scope)
    scope_archive = operation(scope_rows.games)
    transfers = operation(transfer_rows.transfers)
