"""How a tournament picks its executor by name (the contract: `arena.protocols.executor`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.errors import ConfigError
from arena.protocols.executor import Executor

if TYPE_CHECKING:
    from arena.plugins.registry import Registry
    from arena.tournaments.running.executors.engine import RunSummary
    from arena.tournaments.running.prepare import PreparedTournament

    # the executor contract with this wing's types
    RunExecutor = Executor[PreparedTournament, RunSummary]

LOCAL = "local"


def create_executor(registry: Registry, name: str) -> RunExecutor:
    """The executor registered as `name` (raises `UnknownNameError` listing the others)."""
    made = registry.executor_entry(name).factory()
    if not isinstance(made, Executor):
        raise ConfigError(
            f"The '{name}' executor's plugin returned a {type(made).__name__}, not an "
            "executor; ask its author to fix it, or pick another with --executor."
        )
    return made
