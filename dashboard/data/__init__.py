"""Pure read queries of the dashboard: ``(engine, filters, ...) -> DataFrame`` (or plain
records), one module per concept. Aggregation happens in SQL, so pages stay fast over
100 000 matches; nothing here imports Streamlit (the cached layer is `arena.dashboard.cache`,
which calls these by name), the runtime, or writes.
"""

from __future__ import annotations

from arena.dashboard.data.catalogue import (
    date_range,
    game_names,
    games,
    judge_specs,
    role_scores,
    run_config_sha,
    snapshot_payload,
    snapshots,
    tournaments,
)
from arena.dashboard.data.frames import (
    MATCH_TABLE_LIMIT,
    joined_matches,
    match_conditions,
    read_driver_frame,
    read_frame,
    watermark,
)
from arena.dashboard.data.history import (
    SnapshotView,
    first_seen,
    snapshot_history,
)
from arena.dashboard.data.live import (
    LIVE_COLUMNS,
    live_events,
    live_judges,
    live_match,
    live_matches,
    live_progress,
    match_id_for_key,
    next_recurring,
    recent_matches_per_minute,
    runs,
    schedule_runs,
    schedules,
)
from arena.dashboard.data.matches import (
    head_to_head,
    match_count,
    match_records,
    matches,
    participant_summary,
    scored_seats,
    seat_rows,
)
from arena.dashboard.data.participants import (
    participant_specs,
    participant_usage,
)
from arena.dashboard.data.replay import (
    MatchDetail,
    comparable_matches,
    match_detail,
    match_ref,
)
from arena.dashboard.data.scopes import (
    scope_list,
    scope_view,
)
from arena.dashboard.data.transfers import (
    transfer_settings,
    transfer_values,
    transfer_verdicts,
)

__all__ = [
    "LIVE_COLUMNS",
    "MATCH_TABLE_LIMIT",
    "MatchDetail",
    "SnapshotView",
    "comparable_matches",
    "date_range",
    "first_seen",
    "game_names",
    "games",
    "head_to_head",
    "joined_matches",
    "judge_specs",
    "live_events",
    "live_judges",
    "live_match",
    "live_matches",
    "live_progress",
    "match_conditions",
    "match_count",
    "match_detail",
    "match_id_for_key",
    "match_records",
    "match_ref",
    "matches",
    "next_recurring",
    "participant_specs",
    "participant_summary",
    "participant_usage",
    "read_driver_frame",
    "read_frame",
    "recent_matches_per_minute",
    "role_scores",
    "run_config_sha",
    "runs",
    "schedule_runs",
    "schedules",
    "scope_list",
    "scope_view",
    "scored_seats",
    "seat_rows",
    "snapshot_history",
    "snapshot_payload",
    "snapshots",
    "tournaments",
    "transfer_settings",
    "transfer_values",
    "transfer_verdicts",
    "watermark",
]
