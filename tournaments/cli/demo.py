"""`arena demo`: the command line of the demo tournament (`arena.tournaments.demo` builds and
runs it; added to the `arena` command by `arena.tournaments.plugin`)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from arena.cli.context import registry_of
from arena.interrupts import run_stoppable

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command("demo")
def demo_command(
    ctx: typer.Context,
    db: Annotated[
        str | None, typer.Option("--db", help="SQLAlchemy URL (default: the database every "
                                 "command reads: $XENT_ARENA_DB or the user data dir).")
    ] = None,
    judge: Annotated[str, typer.Option(help="Judge spec, e.g. bundled or ngram.")] = "bundled",
    maps: Annotated[int | None, typer.Option(min=1, help="Maps per game.")] = None,
    rounds: Annotated[int | None, typer.Option(min=1, help="Rounds per match.")] = None,
    budget: Annotated[
        int | None, typer.Option(min=1, help="Search player's simulations per move.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Another seed plays new maps.")] = None,
    without: Annotated[
        list[str] | None, typer.Option(help="Leave a participant out (repeatable).")
    ] = None,
    concurrency: Annotated[int | None, typer.Option(min=1, help="Matches in flight.")] = None,
    progress: Annotated[bool, typer.Option(help="Show a live progress bar.")] = True,
) -> None:
    """Run a small offline tournament and print its leaderboard (no GPU, key or network)."""
    from arena.storage import default_db_url
    from arena.tournaments.demo import demo_config, run_demo

    config = demo_config(
        judge=judge, maps=maps, rounds=rounds, budget=budget, seed=seed, without=without or ()
    )
    url = db or default_db_url()
    registry = registry_of(ctx)
    typer.echo(
        f"demo: {len(config.games)} games x {config.maps} map(s), participants "
        f"{', '.join(p.name for p in config.participants if not p.npc_only)}; "
        f"database {url}",
        err=True,
    )
    report = run_stoppable(
        run_demo(
            config, db, registry=registry, concurrency=concurrency,
            progress=progress and sys.stderr.isatty(),
        )
    )
    typer.echo(report)
