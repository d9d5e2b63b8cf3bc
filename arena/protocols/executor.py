"""What an executor plugin provides (the `xent_arena_executors` hook, `ExecutorEntry`): an
object that plays every match of a prepared tournament not yet stored as done, writing each
to the store from the driver's process only, and returns the run's summary. It builds the
tournament's judge itself (in process, as Ray actors, ...) and closes it.

The tournament and the summary are the tournaments wing's types (`PreparedTournament`,
`RunSummary`), which the core may not name: the contract takes them as type parameters,
and the wing fixes them (`arena.tournaments.running.executors.base.RunExecutor`). It sits
above the storage and plugin layers, whose `Store` and `Registry` it names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar, runtime_checkable

from arena.events import Event

if TYPE_CHECKING:
    from arena.plugins.registry import Registry
    from arena.storage import Store

TournamentT = TypeVar("TournamentT", contravariant=True)
SummaryT = TypeVar("SummaryT", covariant=True)
EventHook = Callable[[Event, str], None]  # every event of the run's matches, with its key


@runtime_checkable
class Executor(Protocol[TournamentT, SummaryT]):
    """Plays a prepared tournament's missing matches; see the module docstring."""

    name: str

    async def run(
        self,
        tournament: TournamentT,
        *,
        registry: Registry,
        store: Store,
        concurrency: int | None = None,
        progress: bool = False,
        on_event: EventHook | None = None,
    ) -> SummaryT: ...
