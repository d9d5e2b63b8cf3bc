"""Running tournaments from Python: `run_file` (what `arena run FILE` does) and
`play_config` for a loaded config (perhaps altered: a scheduled run's own seed, the demo's
sizes). `arena run`, the scheduler, the demo and the play server all go through
`play_config`."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from arena.plugins.registry import Registry
from arena.protocols.executor import EventHook
from arena.storage import MATCH_DONE, Store
from arena.tournaments.planning.config import TournamentConfig, load_tournament
from arena.tournaments.ratings.informative import uninformative_roles
from arena.tournaments.records.from_store import records_from_store
from arena.tournaments.running.executors.base import create_executor
from arena.tournaments.running.executors.engine import RunSummary
from arena.tournaments.running.prepare import PreparedTournament, prepare_tournament
from arena.tournaments.running.run_snapshots import EVERY_S, SnapshotTicker, store_final_snapshot


async def play_config(
    config: TournamentConfig,
    store: Store,
    registry: Registry,
    *,
    concurrency: int | None = None,
    progress: bool = False,
    source: str = "tournament file",
    prepared: PreparedTournament | None = None,
    snapshots: bool = False,
    snapshot_every_s: float = EVERY_S,
    on_event: EventHook | None = None,
) -> RunSummary:
    """Check `config` against `registry` (unless `prepared` is the result of that), then
    play its pending matches into `store` with the executor the config names. With
    `snapshots`, store rating snapshots during the run (every `snapshot_every_s` at most)
    and after it (`arena.tournaments.running.run_snapshots`). `on_event(event, match key)` hears
    every event of the run's matches (the play server follows its people's seats so)."""
    if prepared is None:
        prepared = await asyncio.to_thread(prepare_tournament, config, registry, source)
    executor = create_executor(registry, config.executor)
    snapshots = snapshots and not store.read_only
    ticker = SnapshotTicker(store, config.name, snapshot_every_s) if snapshots else None
    async with ticker or contextlib.nullcontext():
        summary = await executor.run(
            prepared, registry=registry, store=store, concurrency=concurrency,
            progress=progress, on_event=on_event,
        )
    notes = await asyncio.to_thread(run_notes, store, config.name)
    if snapshots:
        notes += await asyncio.to_thread(
            store_final_snapshot, store, config.name, summary.run_id
        )
    summary.notes = notes
    return summary


def with_executor(
    config: TournamentConfig, executor: str | None, ray_address: str | None
) -> TournamentConfig:
    """`config` with the command line's executor choices (None keeps the file's)."""
    if ray_address is not None:
        config = config.model_copy(
            update={"ray": config.ray.model_copy(update={"address": ray_address})}
        )
        executor = executor or "ray"
    if executor is not None:
        config = config.model_copy(update={"executor": executor})
    return config


def run_notes(store: Store, tournament: str) -> tuple[str, ...]:
    """Warnings about the tournament's matches so far: roles whose every entrant scored
    alike on every map (they measure nothing and are left out of the ratings)."""
    records = records_from_store(store.stored_matches(tournament, status=MATCH_DONE))
    return tuple(role.note for role in uninformative_roles(records))


async def run_file(
    path: str | Path,
    *,
    db: str | None = None,
    concurrency: int | None = None,
    progress: bool = False,
    registry: Registry,
    snapshot: bool = False,
    executor: str | None = None,
    ray_address: str | None = None,
    snapshot_every_s: float = EVERY_S,
) -> RunSummary:
    """Load, check and run a tournament file into the database `db`; with `snapshot`, store
    the tournament's ratings during the run and after it (`play_config`).
    `executor` and `ray_address` override the file's `executor` and `[ray] address`.
    `registry` is the caller's (`Registry.load()` for a program that has none)."""
    config = with_executor(load_tournament(path, registry, db), executor, ray_address)
    create_executor(registry, config.executor)  # an unknown name or missing engine: say so now
    # Checked completely before the database is opened: a broken file leaves no trace.
    prepared = await asyncio.to_thread(prepare_tournament, config, registry, str(path))
    store = Store.open(db)
    try:
        return await play_config(
            config, store, registry, concurrency=concurrency, progress=progress,
            source=str(path), prepared=prepared, snapshots=snapshot,
            snapshot_every_s=snapshot_every_s,
        )
    finally:
        store.close()
