"""`arena run FILE` and `arena matches --tournament NAME` (added to the `arena` command by
`arena.tournaments.plugin`; also runnable as `python -m arena.tournaments.cli.run ...`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from arena.cli.console import run_app
from arena.cli.context import registry_of
from arena.interrupts import run_stoppable
from arena.listing import printable, text_table

if TYPE_CHECKING:  # storage and the run import SQLAlchemy and NumPy: loaded per command
    from arena.storage import StoredMatch

INTERRUPTED = "interrupted: finished matches are stored; run the same command to resume."

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True)

MatchStatus = Literal["done", "error"]
DbOption = Annotated[
    str | None,
    typer.Option("--db", help="SQLAlchemy URL (default: $XENT_ARENA_DB or the user data dir)."),
]


@app.command("run")
def run_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Tournament file (TOML).")],
    db: DbOption = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Matches in flight (overrides the file).")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a live progress bar.")] = True,
    executor: Annotated[
        str | None,
        typer.Option(help="Where matches run: local or ray (overrides the file's `executor`)."),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(help="Ray cluster to join, e.g. auto or ray://head:10001 (implies ray)."),
    ] = None,
) -> None:
    """Run a tournament; running it again resumes where it stopped. Ctrl-C or SIGTERM
    stops it keeping every finished match."""
    from arena.tournaments.play_server_cli import browser_entrants
    from arena.tournaments.run_config import run_file

    people = browser_entrants(file)
    if people:  # nobody answers them here: every move of theirs times out and forfeits
        typer.echo(
            f"warning: {', '.join(people)} play(s) in the browser (human:web); here their moves "
            f"time out and forfeit. Run the file with `arena play-server --tournament {file}`.",
            err=True,
        )
    try:
        summary = run_stoppable(
            run_file(
                file,
                db=db,
                concurrency=concurrency,
                progress=progress and sys.stderr.isatty(),
                snapshot=True,
                registry=registry_of(ctx),
                executor=executor,
                ray_address=ray_address,
            )
        )
    except KeyboardInterrupt:
        typer.echo(INTERRUPTED, err=True)
        raise typer.Exit(130) from None
    for run_id in summary.abandoned_runs:
        typer.echo(
            f"note: run {run_id} of this tournament had stopped without finishing (its "
            "process was killed); it is now marked interrupted.",
            err=True,
        )
    typer.echo(
        f"{summary.status}: {summary.written} match(es) stored this run "
        f"({summary.errors} error(s)), {summary.already_done} already done, "
        f"{summary.planned} planned; {summary.rounds / max(summary.wall_s, 1e-9):.1f} rounds/s"
        + (
            f"; {summary.claimed_elsewhere} left to another driver on this database"
            if summary.claimed_elsewhere
            else ""
        )
    )
    if summary.no_results:
        typer.echo(
            f"{summary.no_results} match(es) ended with no result (an ensure line over its "
            "budget, or a provider that could not be reached): they count in no score; run "
            "again to play them again.",
            err=True,
        )
    for note in summary.notes:
        typer.echo(f"warning: {note}", err=True)
    if summary.map_failures:
        typer.echo(
            f"{summary.map_failures} match(es) skipped: their map could not be made; "
            "run again to retry.",
            err=True,
        )
    if summary.errors or summary.map_failures:
        raise typer.Exit(1)


MATCH_HEADER = ("match", "game", "map", "status", "seats (role=participant:best score)", "error")


def _seats(match: StoredMatch) -> str:
    parts = []
    for seat in match.seats:
        score = "forfeit" if seat.forfeit else ("-" if seat.best is None else f"{seat.best:.2f}")
        npc = "" if seat.main else " (npc)"
        parts.append(f"{seat.role}={seat.participant}{npc}:{score}")
    return " ".join(parts)


@app.command("matches")
def matches_command(
    tournament: Annotated[str, typer.Option("--tournament", "-t", help="Tournament name.")],
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="Show the latest N matches.")] = 20,
    status: Annotated[
        MatchStatus | None, typer.Option(help="Only matches with this status.")
    ] = None,
) -> None:
    """List a tournament's stored matches."""
    from arena.storage import Store
    from arena.storage.match_keys import short_key

    store = Store.open(db, create=False)
    try:
        found = store.stored_matches(tournament, status=status, limit=limit)
        counts = store.match_counts(tournament)
        if not found and tournament not in store.tournament_names():
            from arena.errors import UnknownNameError

            raise UnknownNameError("tournament", tournament, store.tournament_names())
    finally:
        store.close()
    if not found:
        typer.echo(f"No {status or 'stored'} matches in tournament '{printable(tournament)}'.")
        return
    rows = [
        (short_key(m.key), f"{m.game}@{m.game_version}", m.map_index, m.status, _seats(m),
         m.error or "")
        for m in found
    ]
    for line in text_table(MATCH_HEADER, rows, right={2}):
        typer.echo(line)
    stored = counts.get(status, 0) if status else sum(counts.values())
    if stored > len(found):
        typer.echo(f"Showing the latest {len(found)} of {stored} {status or 'stored'} matches "
                   f"(use --limit {stored} to see them all).")


def main(argv: list[str] | None = None) -> None:
    """`python -m arena.tournaments.cli.run`: user errors print a message and exit 2."""
    run_app(
        app,
        argv,
        interrupted=INTERRUPTED,
    )


if __name__ == "__main__":
    main()
