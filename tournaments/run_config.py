"""Running tournaments from Python: `run_file` (what `arena run FILE` does) and
`play_config` for a loaded config (perhaps altered: a scheduled run's own seed, the demo's
sizes). `arena run`, the scheduler and the demo all go through `play_config`."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.errors import ArenaError
from arena.registry import Registry
from arena.storage import MATCH_DONE, Store
from arena.storage.queries import stored_matches
from tournaments.config import TournamentConfig, load_tournament
from tournaments.executor import RunSummary, run_tournament
from tournaments.prepare import PreparedTournament, prepare_tournament
from tournaments.progress import ProgressSink, RichProgress, judge_metrics
from tournaments.ratings.informative import uninformative_roles
from tournaments.records_from_store import records_from_store


async def play_config(
    config: TournamentConfig,
    store: Store,
    registry: Registry,
    *,
    concurrency: int | None = None,
    progress: bool = False,
    source: str = "tournament file",
    prepared: PreparedTournament | None = None,
) -> RunSummary:
    """Check `config` against `registry` (unless `prepared` is the result of that), then
    play its pending matches into `store`."""
    if prepared is None:
        prepared = await asyncio.to_thread(prepare_tournament, config, registry, source)
    judge = registry.create_judge(config.judge)
    sink: ProgressSink | None = (
        RichProgress(config.name, judge_metrics(judge)) if progress else None
    )
    try:
        summary = await run_tournament(
            prepared, registry=registry, judge=judge, store=store, concurrency=concurrency,
            progress=sink,
        )
    finally:
        await judge.aclose()
    notes = await asyncio.to_thread(run_notes, store, config.name)
    summary.notes = notes
    return summary


def run_notes(store: Store, tournament: str) -> tuple[str, ...]:
    """Warnings about the tournament's matches so far: roles whose every entrant scored
    alike on every map (they measure nothing and are left out of the ratings)."""
    records = records_from_store(stored_matches(store.engine, tournament, status=MATCH_DONE))
    return tuple(role.note for role in uninformative_roles(records))


async def run_file(
    path: str | Path,
    *,
    db: str | None = None,
    concurrency: int | None = None,
    progress: bool = False,
    registry: Registry | None = None,
    snapshot: bool = False,
) -> RunSummary:
    """Load, check and run a tournament file into the database `db`; with `snapshot`, store
    the tournament's ratings after the run (`tournaments.ratings.service.store_snapshot`)."""
    registry = registry or Registry.load()
    config = load_tournament(path, registry)
    # Checked completely before the database is opened: a broken file leaves no trace.
    prepared = await asyncio.to_thread(prepare_tournament, config, registry, str(path))
    store = Store.open(db)
    try:
        summary = await play_config(
            config, store, registry, concurrency=concurrency, progress=progress,
            source=str(path), prepared=prepared,
        )
        if snapshot and not store.read_only:
            failed = await asyncio.to_thread(_store_snapshot, store, config.name, summary.run_id)
            summary.notes = summary.notes + failed
        return summary
    finally:
        store.close()


def _store_snapshot(store: Store, tournament: str, run_id: int) -> tuple[str, ...]:
    """Ratings over every match stored so far; a failure is a note, the run still counts."""
    from tournaments.ratings.service import store_snapshot

    try:
        store_snapshot(store.engine, tournament, run_id=run_id)
    except ArenaError as error:
        return (f"no rating snapshot for this run: {error}",)
    return ()
