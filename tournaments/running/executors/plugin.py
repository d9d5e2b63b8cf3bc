"""Registers the built-in executors (entry point ``builtin_executors``), through the same
hook as a third party's."""

from __future__ import annotations

from arena.plugins.hookspecs import hookimpl
from arena.plugins.plugin_types import ExecutorEntry


def _local() -> object:
    from arena.tournaments.running.executors.local import LocalExecutor

    return LocalExecutor()


def _ray() -> object:
    from arena.tournaments.running.executors.ray_executor import RayExecutor

    return RayExecutor()


@hookimpl
def arena_executors() -> list[ExecutorEntry]:
    return [
        ExecutorEntry("local", _local, "every match in this process (asyncio)"),
        ExecutorEntry("ray", _ray, "matches as Ray tasks, judges as Ray actors (needs ray)"),
    ]
