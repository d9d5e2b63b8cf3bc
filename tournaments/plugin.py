"""Adds the tournament commands to the command line (entry point
``builtin_tournaments = "arena.tournaments.plugin"``): `arena run`, `arena matches`,
`arena ratings`, `arena scores`, `arena export`, `arena import`, `arena import-benchmark`,
`arena schedule ...`, `arena scheduler`, `arena demo`, `arena dashboard`,
`arena play-server` and `arena rescore`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    import typer

    from arena.plugins.plugin_types import StorySourceEntry


@hookimpl
def arena_cli_commands() -> list[typer.Typer]:
    from arena.tournaments.cli.benchmark import app as benchmark_app
    from arena.tournaments.cli.dashboard import dashboard_app
    from arena.tournaments.cli.demo import app as demo_app
    from arena.tournaments.cli.imports import app as imports_app
    from arena.tournaments.cli.ratings import app as ratings_app
    from arena.tournaments.cli.rescore import app as rescore_app
    from arena.tournaments.cli.run import app
    from arena.tournaments.play.cli import play_server_app
    from arena.tournaments.services.recurring.cli import schedule_app, scheduler_app

    return [app, ratings_app, imports_app, benchmark_app, schedule_app, scheduler_app,
            demo_app, dashboard_app, play_server_app, rescore_app]


@hookimpl
def arena_story_sources() -> list[StorySourceEntry]:
    from arena.tournaments.planning.stories.plugin import story_source_entries

    return story_source_entries()
