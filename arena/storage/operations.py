"""Every storage operation other packages use, as methods of `Store` (the one door).

Each line binds one storage function to the store's engine (`arena.storage.door`), grouped
by the module that holds its SQL; callers write ``store.schedule_runs(name)`` or, from async
code, ``await store.acquire_lease.in_thread(name, owner, 60)``, and never see an engine.
"""

from __future__ import annotations

from arena.storage import (
    abandoned_runs,
    claims,
    imports,
    live,
    match_keys,
    numbers,
    queries,
    scopes,
    snapshots,
)
from arena.storage import match_sources as sources
from arena.storage import schedule_runs as runs_of_schedules
from arena.storage import schedules as schedule_rows
from arena.storage import transfers as transfer_rows
from arena.storage.door import operation
from arena.storage.engine import database_key


class StoreOperations:
    """The operations half of `Store` (its writes of matches and identity rows are in
    `arena.storage.repo`)."""

    # stored tournaments and matches (queries)
    tournament_names = operation(queries.tournament_names)
    tournament_id = operation(queries.tournament_id)
    stored_matches = operation(queries.stored_matches)
    done_match_ids = operation(queries.done_match_ids)
    where = operation(database_key)  # what a reader keeps per database is keyed by
    match_events = operation(queries.match_events)
    match_counts = operation(queries.match_counts)
    seat_spend = operation(queries.seat_spend)
    map_texts = operation(queries.map_texts)
    match_sources = operation(sources.match_sources)  # games, participants (rescore)
    match_id_for_ref = operation(match_keys.match_id_for_ref)
    run_number = operation(numbers.run_number)
    snapshot_number = operation(numbers.snapshot_number)

    # drivers sharing a tournament: match claims, runs whose process is gone
    claim_matches = operation(claims.claim)
    renew_claims = operation(claims.renew)
    release_claims = operation(claims.release)
    release_runs_claims = operation(claims.release_runs)
    interrupt_abandoned_runs = operation(abandoned_runs.interrupt_abandoned_runs)

    # live state for dashboards
    write_live = operation(live.write_live)
    write_scheduler_beat = operation(live.write_scheduler_beat)
    live_runs = operation(live.live_runs)
    matches_in_flight = operation(live.matches_in_flight)
    live_match_events = operation(live.live_match_events)
    judge_pool_health = operation(live.judge_pool_health)
    scheduler_beats = operation(live.scheduler_beats)
    next_runs = operation(live.next_runs)

    # rating snapshots
    save_rating_snapshot = operation(snapshots.save_rating_snapshot)
    rating_snapshots = operation(snapshots.rating_snapshots)

    # recurring schedules and their runs
    save_schedule = operation(schedule_rows.save_schedule)
    mark_schedule_run = operation(schedule_rows.mark_schedule_run)
    schedules = operation(schedule_rows.schedules)
    delete_schedule = operation(schedule_rows.delete_schedule)
    acquire_lease = operation(runs_of_schedules.acquire_lease)
    renew_lease = operation(runs_of_schedules.renew_lease)
    release_lease = operation(runs_of_schedules.release_lease)
    note_next_run = operation(runs_of_schedules.note_next_run)
    start_schedule_run = operation(runs_of_schedules.start_schedule_run)
    finish_schedule_run = operation(runs_of_schedules.finish_schedule_run)
    schedule_runs = operation(runs_of_schedules.schedule_runs)

    # imported results (`arena import`) and what a tournament row holds
    tournament_info = operation(imports.tournament_info)
    tournament_config = operation(imports.tournament_config)
    import_sources = operation(imports.import_sources)
    map_labels = operation(imports.map_labels)
    save_import = operation(imports.save_import)

    # the game space: grown scopes, fine-tuning verdicts and transfer values
    scope = operation(scopes.scope)
    scope_names = operation(scopes.scope_names)
    create_scope = operation(scopes.create_scope)
    set_scope_progress = operation(scopes.set_progress)
    scope_archive = operation(scopes.games)
    save_scope_games = operation(scopes.save_games)
    save_scope_game = operation(scopes.save_game)
    accepted_scope_games = operation(scopes.accepted_games)
    scope_summaries = operation(scopes.summaries)
    save_verdict = operation(transfer_rows.save_verdict)
    save_transfer = operation(transfer_rows.save_transfer)
    verdict = operation(transfer_rows.verdict)
    transfer = operation(transfer_rows.transfer)
    verdicts = operation(transfer_rows.verdicts)
    transfers = operation(transfer_rows.transfers)
    transfer_settings = operation(transfer_rows.settings)
