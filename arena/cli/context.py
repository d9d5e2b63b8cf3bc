"""How a command reaches the plugin registry: the `arena` command discovers the plugins once,
when it mounts their commands, and hands that registry to every command as the click
context's object; commands take it with `registry_of(ctx)` and pass it down to the library
code they call, so a run discovers the plugins once.

A sub-app run on its own (`python -m arena.tournaments.cli.run`, a test's `CliRunner` on one
command module) has no such object: it falls back to `Registry.load()`, unless the caller
gives one (`CliRunner().invoke(app, args, obj=registry)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from arena.plugins.registry import Registry


def registry_of(ctx: typer.Context) -> Registry:
    """The registry the command line was started with."""
    from arena.plugins.registry import Registry

    found = ctx.find_object(Registry)
    if found is None:
        found = Registry.load()
        ctx.find_root().obj = found  # the command's later look-ups find it
    return found
