"""The executor interface and how a tournament picks one by name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from arena.errors import ConfigError

if TYPE_CHECKING:
    from arena.plugins.registry import Registry
    from arena.storage import Store
    from arena.tournaments.running.executors.engine import RunSummary
    from arena.tournaments.running.match_task import EventHook
    from arena.tournaments.running.prepare import PreparedTournament

LOCAL = "local"


@runtime_checkable
class Executor(Protocol):
    """Plays every match of a prepared tournament not yet stored as done, writing each to
    `store` from this (the driver's) process only, and returns the run's summary.

    It builds the tournament's judge itself (in process, as Ray actors, ...) and closes it.
    """

    name: str

    async def run(
        self,
        tournament: PreparedTournament,
        *,
        registry: Registry,
        store: Store,
        concurrency: int | None = None,
        progress: bool = False,
        on_event: EventHook | None = None,
    ) -> RunSummary: ...


def create_executor(registry: Registry, name: str) -> Executor:
    """The executor registered as `name` (raises `UnknownNameError` listing the others)."""
    made = registry.executor_entry(name).factory()
    if not isinstance(made, Executor):
        raise ConfigError(
            f"The '{name}' executor's plugin returned a {type(made).__name__}, not an "
            "executor; ask its author to fix it, or pick another with --executor."
        )
    return made
