"""The default executor: every match on this process's event loop (`run_tournament`)."""

from __future__ import annotations

from arena.plugins.registry import Registry
from arena.protocols.executor import EventHook
from arena.storage import Store
from arena.tournaments.running.executors.base import LOCAL
from arena.tournaments.running.executors.engine import RunSummary, run_tournament
from arena.tournaments.running.prepare import PreparedTournament
from arena.tournaments.running.progress import ProgressSink, RichProgress, judge_metrics

IN_PROCESS = "in-process"  # the judge backend recorded with each match


class LocalExecutor:
    name = LOCAL

    async def run(
        self,
        tournament: PreparedTournament,
        *,
        registry: Registry,
        store: Store,
        concurrency: int | None = None,
        progress: bool = False,
        on_event: EventHook | None = None,
    ) -> RunSummary:
        config = tournament.config
        judge = registry.create_judge(config.judge)
        sink: ProgressSink | None = (
            RichProgress(config.name, judge_metrics(judge)) if progress else None
        )
        try:
            return await run_tournament(
                tournament,
                registry=registry,
                judge=judge,
                store=store,
                concurrency=concurrency,
                progress=sink,
                on_event=on_event,
            )
        finally:
            await judge.aclose()
